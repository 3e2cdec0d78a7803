// dlopen'd NVML with per-pid initialisation (Note [Fork-safe device count]).
#include "backends/cuda/cuda_nvml_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include "backends/common/shared_object.h"

namespace accel::detail::cuda {

using nvml_abi::nvmlReturn_t;

NvmlLibrary::LoadResult NvmlLibrary::load(const std::string& path) noexcept {
  LoadResult result;
  try {
    void* handle = open_shared_object(path, "NVML", "set ACCEL_NVML_LIBRARY to use another file",
                                      &result.reason);
    if (handle == nullptr) return result;
    std::shared_ptr<NvmlLibrary> library(new NvmlLibrary());
    library->path_ = path;
#define ACCEL_NVML_RESOLVE(symbol, ret, params) \
  library->symbol##_ = reinterpret_cast<nvml_abi::PFN_##symbol>(dlsym(handle, #symbol));
    ACCEL_NVML_ENTRY_POINTS(ACCEL_NVML_RESOLVE)
#undef ACCEL_NVML_RESOLVE
    // Only these are needed for counting; the rest are optional.
    const char* missing = nullptr;
    if (library->nvmlInit_v2_ == nullptr) missing = "nvmlInit_v2";
    if (library->nvmlDeviceGetCount_v2_ == nullptr) missing = "nvmlDeviceGetCount_v2";
    if (library->nvmlDeviceGetHandleByIndex_v2_ == nullptr) {
      missing = "nvmlDeviceGetHandleByIndex_v2";
    }
    if (library->nvmlDeviceGetUUID_ == nullptr) missing = "nvmlDeviceGetUUID";
    if (missing != nullptr) {
      result.reason = "NVML '" + path + "' does not export " + missing;
      return result;
    }
    result.library = std::move(library);
  } catch (...) {
    result.library.reset();
    result.reason = "out of memory";  // short enough to need no allocation
  }
  return result;
}

// Note [A broken NVML is not "nothing installed"]: NVML_ERROR_DRIVER_NOT_LOADED means
// there is no kernel driver, the same as no driver installed (the count then falls back to
// the CUDA driver, which says whether a device is there). Any other failure comes from an
// NVML that is installed and does not work (an unknown error, a version mismatch, a machine
// the simulated NVML refuses): kDriver, which makes the backend's configuration broken.
Status NvmlLibrary::failure(const char* operation, nvmlReturn_t code) const {
  const char* text = nvmlErrorString_ ? nvmlErrorString_(code) : nullptr;
  const char* name = nvml_abi::return_name(code);
  ErrorDetail detail;
  detail.driver_code = static_cast<int>(code);
  detail.driver_error_name = name ? name : std::to_string(code);
  const ErrorKind kind = code == nvml_abi::NVML_ERROR_DRIVER_NOT_LOADED ? ErrorKind::kUnavailable
                                                                        : ErrorKind::kDriver;
  std::string message = std::string(operation) + ": " + (text ? text : "NVML error") +
                        " (nvml=" + path_ + ", code=" + detail.driver_error_name + ")";
  return Status(kind, std::move(message), std::move(detail));
}

Status NvmlLibrary::check_usable() noexcept { return ensure_initialized(); }

Status NvmlLibrary::ensure_initialized() noexcept {
  try {
    long pid = static_cast<long>(getpid());
    if (initialized_pid_.load(std::memory_order_acquire) == pid) return Status();
    // Two threads may both initialise: NVML counts nvmlInit calls and we never shut down.
    nvmlReturn_t rc = nvmlInit_v2_();
    if (rc != nvml_abi::NVML_SUCCESS) return failure("nvmlInit_v2", rc);
    initialized_pid_.store(pid, std::memory_order_release);
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<int> NvmlLibrary::device_count() noexcept {
  try {
    Status status = ensure_initialized();
    if (!status.ok()) return status;
    unsigned int count = 0;
    nvmlReturn_t rc = nvmlDeviceGetCount_v2_(&count);
    if (rc != nvml_abi::NVML_SUCCESS) return failure("nvmlDeviceGetCount_v2", rc);
    return static_cast<int>(count);
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<std::vector<std::string>> NvmlLibrary::device_uuids() noexcept {
  try {
    Result<int> count = device_count();
    if (!count.ok()) return count.status();
    std::vector<std::string> uuids;
    for (int i = 0; i < *count; ++i) {
      nvml_abi::nvmlDevice_t device = nullptr;
      nvmlReturn_t rc = nvmlDeviceGetHandleByIndex_v2_(static_cast<unsigned>(i), &device);
      if (rc != nvml_abi::NVML_SUCCESS) return failure("nvmlDeviceGetHandleByIndex_v2", rc);
      char buffer[nvml_abi::kDeviceUuidV2BufferSize] = {};
      rc = nvmlDeviceGetUUID_(device, buffer, sizeof(buffer));
      if (rc != nvml_abi::NVML_SUCCESS) return failure("nvmlDeviceGetUUID", rc);
      buffer[sizeof(buffer) - 1] = '\0';
      uuids.emplace_back(buffer);
    }
    return uuids;
  } catch (...) {
    return host_out_of_memory();
  }
}

std::optional<bool> NvmlLibrary::mig_enabled(const std::string& uuid) noexcept {
  try {
    if (nvmlDeviceGetHandleByUUID_ == nullptr || nvmlDeviceGetMigMode_ == nullptr) {
      return std::nullopt;
    }
    if (!ensure_initialized().ok()) return std::nullopt;
    nvml_abi::nvmlDevice_t device = nullptr;
    if (nvmlDeviceGetHandleByUUID_(uuid.c_str(), &device) != nvml_abi::NVML_SUCCESS) {
      return std::nullopt;
    }
    unsigned int current = 0;
    unsigned int pending = 0;
    if (nvmlDeviceGetMigMode_(device, &current, &pending) != nvml_abi::NVML_SUCCESS) {
      return std::nullopt;
    }
    return current == nvml_abi::kDeviceMigEnable;
  } catch (...) {
    return std::nullopt;
  }
}

std::string NvmlLibrary::driver_release() noexcept {
  try {
    if (nvmlSystemGetDriverVersion_ == nullptr) return "";
    if (!ensure_initialized().ok()) return "";
    char buffer[nvml_abi::kSystemDriverVersionBufferSize] = {};
    if (nvmlSystemGetDriverVersion_(buffer, sizeof(buffer)) != nvml_abi::NVML_SUCCESS) return "";
    buffer[sizeof(buffer) - 1] = '\0';
    return buffer;
  } catch (...) {
    return "";
  }
}

}  // namespace accel::detail::cuda
