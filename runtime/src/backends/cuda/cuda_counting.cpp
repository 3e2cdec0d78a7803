// The CUDA backend's device counts and visibility (cuda_backend_impl.h): the fork-safe count
// through NVML with CUDA_VISIBLE_DEVICES applied (Note [Fork-safe device count] in
// cuda_nvml_library.h), the driver's count, and the filter text for messages.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "accel_common/environment_variables.h"
#include "backends/cuda/cuda_backend_impl.h"
#include "backends/cuda/cuda_visibility.h"
#include "spi/environment.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUresult;

std::optional<std::string_view> visible_devices_variable() {
  const char* value = ::accel::detail::environment_variable(
      ::accel::common::environment_variable_name("CUDA_VISIBLE_DEVICES"));
  if (value == nullptr) return std::nullopt;
  return std::string_view(value);
}

}  // namespace

int CudaBackend::fork_safe_device_count() noexcept {
  // Without a usable driver no device can be used, whatever NVML says.
  if (driver() == nullptr) return 0;
  return nvml_visible_count(nullptr);
}

Result<int> CudaBackend::driver_device_count() noexcept {
  try {
    const DriverLibrary* drv = driver();
    if (drv == nullptr) return 0;
    CUresult rc = drv->api().cuInit(0);
    if (rc == cuda_abi::CUDA_ERROR_NO_DEVICE) return 0;
    if (rc != CUDA_SUCCESS) return init_failure(*drv, rc);
    driver_initialized_.store(true);
    int count = 0;
    rc = drv->api().cuDeviceGetCount(&count);
    if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuDeviceGetCount");
    return count;
  } catch (...) {
    return host_out_of_memory();
  }
}

std::string CudaBackend::visibility_filter() const {
  auto visible = visible_devices_variable();
  return visible ? "CUDA_VISIBLE_DEVICES='" + std::string(*visible) + "'" : std::string();
}

int CudaBackend::nvml_visible_count(std::string* reason) noexcept {
  try {
    VisibleDevices visible = parse_visible_devices(visible_devices_variable());
    if (visible.is_uuid_list) {
      if (visible.uuids.empty()) return 0;
      if (visible.uuids.front().rfind("MIG-", 0) == 0) {
        if (reason) *reason = "MIG UUIDs in CUDA_VISIBLE_DEVICES cannot be resolved by NVML";
        return -1;
      }
    } else if (visible.ordinals.empty()) {
      return 0;
    }
    NvmlLibrary* library = nvml();
    if (library == nullptr) {
      if (reason) *reason = nvml_load()->result.reason;
      return -1;
    }
    if (visible.is_uuid_list) {
      Result<std::vector<std::string>> uuids = library->device_uuids();
      if (!uuids.ok()) {
        if (reason) *reason = uuids.status().message();
        return -1;
      }
      return static_cast<int>(transform_uuid_to_ordinals(visible.uuids, *uuids).size());
    }
    Result<int> raw = library->device_count();
    if (!raw.ok()) {
      if (reason) *reason = raw.status().message();
      return -1;
    }
    return truncate_to_raw_count(visible.ordinals, *raw);
  } catch (...) {
    return -1;
  }
}

}  // namespace accel::detail::cuda
