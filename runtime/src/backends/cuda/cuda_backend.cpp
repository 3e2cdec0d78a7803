// The CUDA backend over the run-time-resolved driver API.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "backends/cuda/cuda_status.h"
#include "backends/cuda/driver_library.h"
#include "backends/cuda/nvml_library.h"
#include "backends/cuda/visible_devices.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUresult;

constexpr int kMaxDevices = 128;  // DeviceIndex is int8 in PyTorch: [0, 127]

std::atomic<std::uint64_t> g_next_backend_id{1};

// This thread's recorded maybe_set_device target, valid for the backend with that id.
struct ThreadTarget {
  std::uint64_t backend_id = 0;
  int index = -1;
};
thread_local ThreadTarget t_target;

std::optional<std::string_view> visible_devices_variable() {
  const char* value = std::getenv("CUDA_VISIBLE_DEVICES");
  if (value == nullptr) return std::nullopt;
  return std::string_view(value);
}

std::string format_uuid(const cuda_abi::CUuuid& uuid) {
  static const char* const kHex = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(CudaBackendPaths paths)
      : paths_(std::move(paths)), id_(g_next_backend_id.fetch_add(1)) {}

  DeviceType type() const noexcept override { return DeviceType::kCUDA; }
  std::string name() const override { return "cuda"; }

  int fork_safe_device_count() noexcept override {
    // Without a usable driver no device can be used, whatever NVML says.
    if (driver() == nullptr) return 0;
    return nvml_visible_count(nullptr);
  }

  Result<int> driver_device_count() noexcept override {
    const DriverLibrary* drv = driver();
    if (drv == nullptr) return 0;
    CUresult rc = drv->api().cuInit(0);
    if (rc == cuda_abi::CUDA_ERROR_NO_DEVICE) return 0;
    if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuInit");
    driver_initialized_.store(true);
    int count = 0;
    rc = drv->api().cuDeviceGetCount(&count);
    if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuDeviceGetCount");
    return count;
  }

  Status initialize() noexcept override {
    try {
      std::lock_guard lock(init_mutex_);
      if (initialized_.load()) return Status();
      const DriverLibrary* drv = driver();
      if (drv == nullptr) {
        return Status(ErrorKind::kUnavailable,
                      "initialize: no usable CUDA driver: " + driver_load_.reason);
      }
      const DriverApi& api = drv->api();
      CUresult rc = api.cuInit(0);
      if (rc == cuda_abi::CUDA_ERROR_NO_DEVICE) {
        return Status(ErrorKind::kUnavailable, "No CUDA GPUs are available");
      }
      if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuInit");
      driver_initialized_.store(true);
      int count = 0;
      rc = api.cuDeviceGetCount(&count);
      if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuDeviceGetCount");
      if (count <= 0) return Status(ErrorKind::kUnavailable, "No CUDA GPUs are available");
      if (count > kMaxDevices) {
        return Status(ErrorKind::kDriver, "Too many CUDA devices, DeviceIndex overflowed (count=" +
                                              std::to_string(count) + ")");
      }
      std::vector<CUdevice> devices(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i) {
        rc = api.cuDeviceGet(&devices[i], i);
        if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuDeviceGet", i);
      }
      devices_ = std::move(devices);
      primary_ = std::make_unique<std::atomic<CUcontext>[]>(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i) primary_[i].store(nullptr);
      count_ = count;
      initialized_.store(true);
      return Status();
    } catch (...) {
      return Status(ErrorKind::kRuntime, "initialize: out of memory");
    }
  }

  int device_count() const noexcept override { return count_; }

  Status set_device(int index) noexcept override {
    Result<CUcontext> ctx = primary_context(index);
    if (!ctx.ok()) return ctx.status();
    const DriverApi& api = driver_load_.library->api();
    CUcontext current = nullptr;
    CUresult rc = api.cuCtxGetCurrent(&current);
    if (rc != CUDA_SUCCESS) return status(rc, "set_device: cuCtxGetCurrent", index);
    if (current != *ctx) {
      rc = api.cuCtxSetCurrent(*ctx);
      if (rc != CUDA_SUCCESS) return status(rc, "set_device: cuCtxSetCurrent", index);
    }
    if (t_target.backend_id == id_) t_target = ThreadTarget{};
    return Status();
  }

  Status maybe_set_device(int index) noexcept override {
    if (primary_[index].load(std::memory_order_acquire) != nullptr) return set_device(index);
    unsigned int flags = 0;
    int active = 0;
    CUresult rc =
        driver_load_.library->api().cuDevicePrimaryCtxGetState(devices_[index], &flags, &active);
    if (rc != CUDA_SUCCESS) {
      return status(rc, "maybe_set_device: cuDevicePrimaryCtxGetState", index);
    }
    if (active != 0) return set_device(index);
    t_target = ThreadTarget{id_, index};
    return Status();
  }

  Result<int> current_device() noexcept override {
    if (t_target.backend_id == id_ && t_target.index >= 0) return t_target.index;
    const DriverApi& api = driver_load_.library->api();
    CUcontext ctx = nullptr;
    CUresult rc = api.cuCtxGetCurrent(&ctx);
    if (rc != CUDA_SUCCESS) return status(rc, "current_device: cuCtxGetCurrent");
    if (ctx == nullptr) return 0;
    CUdevice device = 0;
    rc = api.cuCtxGetDevice(&device);
    if (rc != CUDA_SUCCESS) return status(rc, "current_device: cuCtxGetDevice");
    auto it = std::find(devices_.begin(), devices_.end(), device);
    return it != devices_.end() ? static_cast<int>(it - devices_.begin())
                                : static_cast<int>(device);
  }

  Result<DeviceProperties> device_properties(int index) noexcept override {
    try {
      const DriverApi& api = driver_load_.library->api();
      CUdevice device = devices_[index];
      DeviceProperties properties;
      char name[256] = {};
      CUresult rc = api.cuDeviceGetName(name, sizeof(name) - 1, device);
      if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceGetName", index);
      properties.name = name;
      struct Attribute {
        cuda_abi::CUdevice_attribute attribute;
        int* out;
      };
      for (Attribute attribute :
           {Attribute{cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &properties.major},
            Attribute{cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &properties.minor},
            Attribute{cuda_abi::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                      &properties.multi_processor_count}}) {
        rc = api.cuDeviceGetAttribute(attribute.out, attribute.attribute, device);
        if (rc != CUDA_SUCCESS) {
          return status(rc, "device_properties: cuDeviceGetAttribute", index);
        }
      }
      std::size_t total = 0;
      rc = api.cuDeviceTotalMem(&total, device);
      if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceTotalMem", index);
      properties.total_memory_bytes = total;
      cuda_abi::CUuuid uuid{};
      rc = api.cuDeviceGetUuid(&uuid, device);
      if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceGetUuid", index);
      properties.uuid = format_uuid(uuid);
      return properties;
    } catch (...) {
      return Status(ErrorKind::kRuntime, "device_properties: out of memory");
    }
  }

  Result<MemoryInfo> memory_info(int index) noexcept override {
    MemoryInfo info;
    Status result = with_device_context(
        index, "memory_info",
        [&](const DriverApi& api) { return api.cuMemGetInfo(&info.free_bytes, &info.total_bytes); },
        "cuMemGetInfo");
    if (!result.ok()) return result;
    return info;
  }

  Status synchronize_device(int index) noexcept override {
    return with_device_context(
        index, "synchronize_device", [](const DriverApi& api) { return api.cuCtxSynchronize(); },
        "cuCtxSynchronize");
  }

  BackendReport report() noexcept override {
    BackendReport report;
    try {
      report.driver_path = paths_.driver.value_or(DriverLibrary::path_from_environment());
      report.nvml_path = paths_.nvml.value_or(NvmlLibrary::path_from_environment());
      const DriverLibrary* drv = driver();
      report.driver_loaded = drv != nullptr;
      if (drv != nullptr) {
        report.driver_path = drv->path();
        report.driver_version = drv->driver_version();
      }
      report.nvml_loaded = nvml() != nullptr;
      if (drv == nullptr) {
        report.count_source = "none";
        report.unavailable_reason = driver_load_.reason;
        return report;
      }
      std::string nvml_reason;
      int count = nvml_visible_count(&nvml_reason);
      if (count >= 0) {
        report.count_source = "nvml";
      } else if (initialized_.load()) {
        report.count_source = "driver";
        count = count_;
      } else if (driver_initialized_.load()) {
        report.count_source = "driver";
        count = 0;
        if (drv->api().cuDeviceGetCount(&count) != CUDA_SUCCESS) count = 0;
      } else {
        report.count_source = "none";
        count = 0;
        report.unavailable_reason = "NVML cannot count devices (" + nvml_reason +
                                    ") and counting through the driver would initialise it";
      }
      report.device_count = count;
      report.available = count > 0;
      if (count == 0 && report.unavailable_reason.empty()) {
        auto visible = visible_devices_variable();
        report.unavailable_reason = visible ? "no CUDA device is visible (CUDA_VISIBLE_DEVICES='" +
                                                  std::string(*visible) + "')"
                                            : "no CUDA device found";
      }
    } catch (...) {
    }
    return report;
  }

 private:
  // The loaded driver, or nullptr (driver_load_.reason says why). Loads once.
  const DriverLibrary* driver() noexcept {
    if (!driver_attempted_.load(std::memory_order_acquire)) {
      std::lock_guard lock(load_mutex_);
      if (!driver_attempted_.load()) {
        driver_load_ =
            DriverLibrary::load(paths_.driver.value_or(DriverLibrary::path_from_environment()));
        driver_attempted_.store(true, std::memory_order_release);
      }
    }
    return driver_load_.library.get();
  }

  NvmlLibrary* nvml() noexcept {
    if (!nvml_attempted_.load(std::memory_order_acquire)) {
      std::lock_guard lock(load_mutex_);
      if (!nvml_attempted_.load()) {
        nvml_load_ = NvmlLibrary::load(paths_.nvml.value_or(NvmlLibrary::path_from_environment()));
        nvml_attempted_.store(true, std::memory_order_release);
      }
    }
    return nvml_load_.library.get();
  }

  // Note [Fork-safe device count] (nvml_library.h). -1 when NVML cannot answer.
  int nvml_visible_count(std::string* reason) noexcept {
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
        if (reason) *reason = nvml_load_.reason;
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

  Status status(CUresult rc, std::string_view operation,
                std::optional<int> device = std::nullopt) const {
    return driver_status(*driver_load_.library, rc, operation, device);
  }

  // The device's primary context, retained on first use and kept.
  Result<CUcontext> primary_context(int index) noexcept {
    CUcontext ctx = primary_[index].load(std::memory_order_acquire);
    if (ctx != nullptr) return ctx;
    std::lock_guard lock(context_mutex_);
    ctx = primary_[index].load();
    if (ctx != nullptr) return ctx;
    CUresult rc = driver_load_.library->api().cuDevicePrimaryCtxRetain(&ctx, devices_[index]);
    if (rc != CUDA_SUCCESS) return status(rc, "cuDevicePrimaryCtxRetain", index);
    primary_[index].store(ctx, std::memory_order_release);
    return ctx;
  }

  // Runs `call` with the device's primary context current on this thread, then restores
  // the thread's previous context.
  template <class Call>
  Status with_device_context(int index, std::string_view operation, Call call,
                             std::string_view entry_point) noexcept {
    Result<CUcontext> ctx = primary_context(index);
    if (!ctx.ok()) return ctx.status();
    const DriverApi& api = driver_load_.library->api();
    std::string op = std::string(operation) + ": ";
    CUcontext previous = nullptr;
    CUresult rc = api.cuCtxGetCurrent(&previous);
    if (rc != CUDA_SUCCESS) return status(rc, op + "cuCtxGetCurrent", index);
    if (previous != *ctx) {
      rc = api.cuCtxSetCurrent(*ctx);
      if (rc != CUDA_SUCCESS) return status(rc, op + "cuCtxSetCurrent", index);
    }
    CUresult call_rc = call(api);
    if (previous != *ctx) {
      rc = api.cuCtxSetCurrent(previous);
      if (call_rc == CUDA_SUCCESS && rc != CUDA_SUCCESS) {
        return status(rc, op + "cuCtxSetCurrent", index);
      }
    }
    if (call_rc != CUDA_SUCCESS) return status(call_rc, op + std::string(entry_point), index);
    return Status();
  }

  const CudaBackendPaths paths_;
  const std::uint64_t id_;

  std::mutex load_mutex_;
  std::atomic<bool> driver_attempted_{false};
  DriverLibrary::LoadResult driver_load_;
  std::atomic<bool> nvml_attempted_{false};
  NvmlLibrary::LoadResult nvml_load_;

  std::mutex init_mutex_;
  std::atomic<bool> initialized_{false};
  std::atomic<bool> driver_initialized_{false};  // cuInit succeeded
  int count_ = 0;
  std::vector<CUdevice> devices_;

  std::mutex context_mutex_;
  std::unique_ptr<std::atomic<CUcontext>[]> primary_;
};

}  // namespace

std::unique_ptr<Backend> create_cuda_backend(CudaBackendPaths paths) {
  return std::make_unique<CudaBackend>(std::move(paths));
}

}  // namespace accel::detail::cuda
