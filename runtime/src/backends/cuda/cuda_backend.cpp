// The CUDA backend's construction, library loading, initialisation, configuration and
// report (cuda_backend_impl.h lists where the other members live).
#include "backends/cuda/cuda_backend.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "accel_common/environment_variables.h"
#include "backends/cuda/cuda_backend_impl.h"
#include "backends/cuda/cuda_device_facts.h"
#include "spi/device_limits.h"
#include "spi/environment.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUresult;

std::atomic<std::uint64_t> g_next_backend_id{1};

// PyTorch's text for "no driver installed" (c10/cuda/CUDAFunctions.cpp), verbatim.
constexpr const char* kNoDriverMessage =
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx";

// The file to load: the one CudaBackendPaths names (chosen by code, so not a variable
// the user set), else the variable's value when set and non-empty, else the SONAME.
template <class LoadResult>
LibraryLoad<LoadResult>* choose_library(const std::optional<std::string>& given,
                                        const char* variable, const char* default_name) {
  auto* load = new LibraryLoad<LoadResult>();
  if (given) {
    load->path = *given;
  } else if (const char* value = ::accel::detail::environment_variable(variable);
             value != nullptr && *value != '\0') {
    load->path = value;
    load->variable = variable;
  } else {
    load->path = default_name;
  }
  return load;
}

// What a load reports when even its failure could not be recorded (out of memory).
const DriverLoad kDriverNotLoadedOutOfMemory{{nullptr, "out of memory", false, false}, {}, nullptr};
const NvmlLoad kNvmlNotLoadedOutOfMemory{{nullptr, "out of memory"}, {}, nullptr};

// The published load in `slot`, loading `Library` (choose_library) and publishing it on
// first use. Racing first users may each load; the first published result wins and the
// others are discarded. Returns `out_of_memory` when even a failure cannot be recorded.
template <class Library>
const LibraryLoad<typename Library::LoadResult>* load_once(
    std::atomic<const LibraryLoad<typename Library::LoadResult>*>& slot,
    const std::optional<std::string>& given, const char* variable, const char* default_name,
    const LibraryLoad<typename Library::LoadResult>* out_of_memory) noexcept {
  using Load = LibraryLoad<typename Library::LoadResult>;
  const Load* loaded = slot.load(std::memory_order_acquire);
  if (loaded != nullptr) return loaded;
  try {
    Load* fresh = choose_library<typename Library::LoadResult>(given, variable, default_name);
    fresh->result = Library::load(fresh->path);
    if (slot.compare_exchange_strong(loaded, fresh, std::memory_order_acq_rel)) return fresh;
    delete fresh;  // another thread published first; `loaded` is its result
    return loaded;
  } catch (...) {
    return out_of_memory;
  }
}

}  // namespace

CudaBackend::CudaBackend(CudaBackendPaths paths)
    : paths_(std::move(paths)), id_(g_next_backend_id.fetch_add(1)) {}

CudaBackend::~CudaBackend() {
  delete driver_load_.load();
  delete nvml_load_.load();
  delete init_failure_.load();
}

// ---- library loading ----------------------------------------------------------------------

const DriverLoad* CudaBackend::driver_load() noexcept {
  return load_once<DriverLibrary>(driver_load_, paths_.driver,
                                  ::accel::common::environment_variable_name("ACCEL_CUDA_DRIVER"),
                                  "libcuda.so.1", &kDriverNotLoadedOutOfMemory);
}

const NvmlLoad* CudaBackend::nvml_load() noexcept {
  return load_once<NvmlLibrary>(nvml_load_, paths_.nvml,
                                ::accel::common::environment_variable_name("ACCEL_NVML_LIBRARY"),
                                "libnvidia-ml.so.1", &kNvmlNotLoadedOutOfMemory);
}

Status CudaBackend::driver_unusable() noexcept {
  try {
    const DriverLoad* load = driver_load();
    if (load->variable != nullptr) {
      return Status(ErrorKind::kConfig,
                    std::string(load->variable) + "='" + load->path +
                        "' names no usable CUDA driver: " + load->result.reason);
    }
    if (load->result.not_loaded || load->result.is_stub) {
      return Status(ErrorKind::kUnavailable,
                    std::string(kNoDriverMessage) + " (" + load->result.reason + ")");
    }
    return Status(ErrorKind::kDriver,
                  "the CUDA driver '" + load->path + "' cannot be used: " + load->result.reason);
  } catch (...) {
    return host_out_of_memory();
  }
}

Status CudaBackend::init_failure(const DriverLibrary& drv, CUresult rc) {
  Status base = driver_status(drv, rc, "cuInit");
  const DriverLoad* load = driver_load();
  std::string which = load->variable != nullptr
                          ? "named by " + std::string(load->variable) + "='" + load->path + "'"
                          : "'" + load->path + "'";
  Status failure(base.kind(),
                 base.message() + ": the CUDA driver " + which + " failed to initialise",
                 base.detail());
  if (init_failure_.load(std::memory_order_acquire) == nullptr) {
    auto* fresh = new Status(failure);
    const Status* expected = nullptr;
    if (!init_failure_.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
      delete fresh;
    }
  }
  return failure;
}

// ---- initialisation and configuration -----------------------------------------------------

Status CudaBackend::initialize() noexcept {
  try {
    std::lock_guard lock(init_mutex_);
    if (initialized_.load()) return Status();
    Status configuration = files_status();  // a failed cuInit is tried again
    if (!configuration.ok()) return configuration;
    const DriverLibrary* drv = driver();
    if (drv == nullptr) return driver_unusable();  // nothing installed
    const DriverApi& api = drv->api();
    CUresult rc = api.cuInit(0);
    if (rc == cuda_abi::CUDA_ERROR_NO_DEVICE) {
      return Status(ErrorKind::kUnavailable, "No CUDA GPUs are available");
    }
    if (rc != CUDA_SUCCESS) return init_failure(*drv, rc);
    driver_initialized_.store(true);
    int count = 0;
    rc = api.cuDeviceGetCount(&count);
    if (rc != CUDA_SUCCESS) return driver_status(*drv, rc, "cuDeviceGetCount");
    if (count <= 0) return Status(ErrorKind::kUnavailable, "No CUDA GPUs are available");
    if (count > kMaxDeviceIndex + 1) {
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
    return host_out_of_memory();
  }
}

// Note [Misconfiguration is an error]: a variable the user set that names a file that
// does not work is kConfig, whatever else is wrong; then a default driver that is
// installed but unusable (kDriver); then an NVML that loads but fails (kDriver, Note [A
// broken NVML is not "nothing installed"] in cuda_nvml_library.cpp), checked whenever a driver
// is there or the user named the NVML file. Nothing installed is OK here.
Status CudaBackend::configuration_status() noexcept {
  Status files = files_status();
  if (!files.ok()) return files;
  // A driver whose cuInit failed is unusable until a retry succeeds (initialize() tries
  // again), so until then the remembered failure is the configuration's state.
  if (!initialized_.load(std::memory_order_acquire)) {
    if (const Status* failure = init_failure_.load(std::memory_order_acquire)) return *failure;
  }
  return Status();
}

Status CudaBackend::files_status() noexcept {
  try {
    const DriverLoad* drv = driver_load();
    if (drv->result.library == nullptr && drv->variable != nullptr) return driver_unusable();
    const NvmlLoad* nvml_file = nvml_load();
    if (nvml_file->result.library == nullptr && nvml_file->variable != nullptr) {
      return Status(ErrorKind::kConfig,
                    std::string(nvml_file->variable) + "='" + nvml_file->path +
                        "' names no usable NVML library: " + nvml_file->result.reason);
    }
    if (drv->result.library == nullptr) {
      Status status = driver_unusable();
      if (status.kind() != ErrorKind::kUnavailable) return status;
    }
    if (NvmlLibrary* nvml_library = nvml();
        nvml_library != nullptr &&
        (drv->result.library != nullptr || nvml_file->variable != nullptr)) {
      Status usable = nvml_library->check_usable();
      if (!usable.ok() && usable.kind() != ErrorKind::kUnavailable) {
        return Status(usable.kind(), "NVML cannot count devices: " + usable.message(),
                      usable.detail());
      }
    }
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

// ---- diagnostics --------------------------------------------------------------------------

BackendReport CudaBackend::report() noexcept {
  BackendReport report;
  try {
    BackendComponent driver_component{"driver", driver_load()->path, false, ""};
    BackendComponent nvml_component{"nvml", nvml_load()->path, false, ""};
    const Status configuration = configuration_status();
    if (!configuration.ok()) {
      report.config_error = configuration.message();
      report.config_error_kind = configuration.kind();
    }
    const DriverLibrary* drv = driver();
    if (drv != nullptr) {
      driver_component.path = drv->path();
      driver_component.loaded = true;
      driver_component.version = format_driver_version(drv->driver_version());
    }
    if (NvmlLibrary* nvml_library = nvml()) {
      nvml_component.loaded = true;
      report.driver_release = nvml_library->driver_release();
    }
    report.components = {driver_component, nvml_component};
    if (!configuration.ok()) {  // broken: no device is usable, whatever a count says
      report.count_source = "none";
      report.unavailable_reason = configuration.message();
      return report;
    }
    if (drv == nullptr) {
      report.count_source = "none";
      report.unavailable_reason = driver_unusable().message();
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
      const std::string filter = visibility_filter();
      report.unavailable_reason =
          filter.empty() ? "no CUDA device found" : "no CUDA device is visible (" + filter + ")";
    }
  } catch (...) {
  }
  return report;
}

std::unique_ptr<Backend> create_cuda_backend(CudaBackendPaths paths) {
  return std::make_unique<CudaBackend>(std::move(paths));
}

std::unique_ptr<Backend> make_backend() { return create_cuda_backend(); }

}  // namespace accel::detail::cuda
