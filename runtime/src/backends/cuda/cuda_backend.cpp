// The CUDA backend over the run-time-resolved driver API.
#include "backends/cuda/cuda_backend.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "backends/cuda/cuda_memory.h"
#include "backends/cuda/cuda_peer.h"
#include "backends/cuda/cuda_status.h"
#include "backends/cuda/cuda_streams.h"
#include "backends/cuda/device_facts.h"
#include "backends/cuda/driver_library.h"
#include "backends/cuda/nvml_library.h"
#include "backends/cuda/visible_devices.h"
#include "spi/device_limits.h"
#include "spi/environment.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUcontext;
using cuda_abi::CUDA_SUCCESS;
using cuda_abi::CUdevice;
using cuda_abi::CUresult;

std::atomic<std::uint64_t> g_next_backend_id{1};

// This thread's recorded maybe_set_device target, valid for the backend with that id.
struct ThreadTarget {
  std::uint64_t backend_id = 0;
  int index = -1;
};
thread_local ThreadTarget t_target;

std::optional<std::string_view> visible_devices_variable() {
  const char* value = ::accel::detail::environment_variable("CUDA_VISIBLE_DEVICES");
  if (value == nullptr) return std::nullopt;
  return std::string_view(value);
}

// PyTorch's text for "no driver installed" (c10/cuda/CUDAFunctions.cpp), verbatim.
constexpr const char* kNoDriverMessage =
    "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
    "installed a driver from http://www.nvidia.com/Download/index.aspx";

// A library the backend loads: which file, whether the user chose it through its
// environment variable (Note [Misconfiguration is an error] in accel/accelerator.h), and
// what loading it found.
template <class LoadResult>
struct LibraryLoad {
  LoadResult result;
  std::string path;
  const char* variable = nullptr;  // "ACCEL_CUDA_DRIVER" when set there; else null
};
using DriverLoad = LibraryLoad<DriverLibrary::LoadResult>;
using NvmlLoad = LibraryLoad<NvmlLibrary::LoadResult>;

// The file to load: the one CudaBackendPaths names (chosen by code, so not a variable
// the user set), else the variable's value when set and non-empty, else the SONAME.
template <class LoadResult>
LibraryLoad<LoadResult>* choose_library(const std::optional<std::string>& given,
                                        const char* variable, const char* default_name) {
  auto* load = new LibraryLoad<LoadResult>();
  if (given) {
    load->path = *given;
  } else if (const char* value = ::accel::detail::environment_variable(variable); value != nullptr && *value != '\0') {
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

class CudaBackend final : public Backend, private DeviceCalls {
 public:
  explicit CudaBackend(CudaBackendPaths paths)
      : paths_(std::move(paths)), id_(g_next_backend_id.fetch_add(1)) {}
  ~CudaBackend() override {
    delete driver_load_.load();
    delete nvml_load_.load();
    delete init_failure_.load();
  }

  DeviceType type() const noexcept override { return DeviceType::kCUDA; }
  std::string name() const override { return "cuda"; }

  int fork_safe_device_count() noexcept override {
    // Without a usable driver no device can be used, whatever NVML says.
    if (driver() == nullptr) return 0;
    return nvml_visible_count(nullptr);
  }

  Result<int> driver_device_count() noexcept override {
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

  Status initialize() noexcept override {
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

  int device_count() const noexcept override { return count_; }

  // Note [Misconfiguration is an error]: a variable the user set that names a file that
  // does not work is kConfig, whatever else is wrong; then a default driver that is
  // installed but unusable (kDriver); then an NVML that loads but fails (kDriver, Note [A
  // broken NVML is not "nothing installed"] in nvml_library.cpp), checked whenever a driver
  // is there or the user named the NVML file. Nothing installed is OK here.
  Status configuration_status() noexcept override {
    Status files = files_status();
    if (!files.ok()) return files;
    // A driver whose cuInit failed is unusable until a retry succeeds (initialize() tries
    // again), so until then the remembered failure is the configuration's state.
    if (!initialized_.load(std::memory_order_acquire)) {
      if (const Status* failure = init_failure_.load(std::memory_order_acquire)) return *failure;
    }
    return Status();
  }

  // configuration_status() without the remembered cuInit failure: what the files say.
  Status files_status() noexcept {
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
      if (NvmlLibrary* nvml_library = nvml(); nvml_library != nullptr &&
                                              (drv->result.library != nullptr ||
                                               nvml_file->variable != nullptr)) {
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

  std::string visibility_filter() const override {
    auto visible = visible_devices_variable();
    return visible ? "CUDA_VISIBLE_DEVICES='" + std::string(*visible) + "'" : std::string();
  }

  Status set_device(int index) noexcept override {
    try {
      Result<CUcontext> ctx = primary_context(index);
      if (!ctx.ok()) return ctx.status();
      const DriverApi& api = library().api();
      CUcontext current = nullptr;
      CUresult rc = api.cuCtxGetCurrent(&current);
      if (rc != CUDA_SUCCESS) return status(rc, "set_device: cuCtxGetCurrent", index);
      if (current != *ctx) {
        rc = api.cuCtxSetCurrent(*ctx);
        if (rc != CUDA_SUCCESS) return status(rc, "set_device: cuCtxSetCurrent", index);
      }
      if (t_target.backend_id == id_) t_target = ThreadTarget{};
      return Status();
    } catch (...) {
      return host_out_of_memory();
    }
  }

  Status maybe_set_device(int index) noexcept override {
    try {
      if (primary_[index].load(std::memory_order_acquire) != nullptr) return set_device(index);
      unsigned int flags = 0;
      int active = 0;
      CUresult rc = library().api().cuDevicePrimaryCtxGetState(devices_[index], &flags, &active);
      if (rc != CUDA_SUCCESS) {
        return status(rc, "maybe_set_device: cuDevicePrimaryCtxGetState", index);
      }
      if (active != 0) return set_device(index);
      t_target = ThreadTarget{id_, index};
      return Status();
    } catch (...) {
      return host_out_of_memory();
    }
  }

  Result<int> current_device() noexcept override {
    try {
      if (t_target.backend_id == id_ && t_target.index >= 0) return t_target.index;
      const DriverApi& api = library().api();
      CUcontext ctx = nullptr;
      CUresult rc = api.cuCtxGetCurrent(&ctx);
      if (rc != CUDA_SUCCESS) return status(rc, "current_device: cuCtxGetCurrent");
      if (ctx == nullptr) return 0;
      CUdevice device = 0;
      rc = api.cuCtxGetDevice(&device);
      if (rc != CUDA_SUCCESS) return status(rc, "current_device: cuCtxGetDevice");
      auto it = std::find(devices_.begin(), devices_.end(), device);
      if (it == devices_.end()) {
        // A context made behind the runtime's back on a device it does not list: the raw
        // CUdevice is not a visible index, so it must not be reported as one.
        return Status(ErrorKind::kDriver,
                      "current_device: the current context's device is not one of the visible "
                      "devices (CUdevice=" +
                          std::to_string(device) + ", device_count=" + std::to_string(count_) +
                          ")");
      }
      return static_cast<int>(it - devices_.begin());
    } catch (...) {
      return host_out_of_memory();
    }
  }

  Result<DeviceProperties> device_properties(int index) noexcept override {
    try {
      const DriverApi& api = library().api();
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
      char pci_bus_id[64] = {};  // the driver needs 13 bytes; room for a wider domain
      rc = api.cuDeviceGetPCIBusId(pci_bus_id, sizeof(pci_bus_id) - 1, device);
      if (rc != CUDA_SUCCESS) return status(rc, "device_properties: cuDeviceGetPCIBusId", index);
      properties.pci_bus_id = format_pci_bus_id(pci_bus_id);
      // NVML is optional here: without it (or when it cannot say) the mode is unknown.
      if (NvmlLibrary* nvml_library = nvml()) {
        properties.mig_enabled = nvml_library->mig_enabled(properties.uuid);
      }
      return properties;
    } catch (...) {
      return host_out_of_memory();
    }
  }

  Result<DeviceCapability> device_capability(int index) noexcept override {
    try {
      const DriverApi& api = library().api();
      DeviceCapability capability;
      CUresult rc = api.cuDeviceGetAttribute(&capability.major,
                                             cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                             devices_[index]);
      if (rc == CUDA_SUCCESS) {
        rc = api.cuDeviceGetAttribute(&capability.minor,
                                      cuda_abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                      devices_[index]);
      }
      if (rc != CUDA_SUCCESS) {
        return status(rc, "device_capability: cuDeviceGetAttribute", index);
      }
      capability.supported_dtypes = supported_dtypes(capability.major, capability.minor);
      return capability;
    } catch (...) {
      return host_out_of_memory();
    }
  }

  Result<bool> can_access_peer(int index, int peer) noexcept override {
    return cuda::can_access_peer(library(), index, devices_[index], devices_[peer]);
  }

  Result<MemoryInfo> memory_info(int index) noexcept override {
    MemoryInfo info;  // no allocation before with_device_context, which never throws
    Status result = with_device_context(
        index, "memory_info",
        [&](const DriverApi& api) { return api.cuMemGetInfo(&info.free_bytes, &info.total_bytes); },
        "cuMemGetInfo");
    if (!result.ok()) return result;
    return info;
  }

  // Raw, virtual and pinned host memory: cuda_memory.cpp.
  Result<DevicePointer> allocate(int index, std::size_t bytes) noexcept override {
    return cuda::allocate(*this, index, bytes);
  }
  Status deallocate(int index, DevicePointer pointer) noexcept override {
    return cuda::deallocate(*this, index, pointer);
  }
  Result<std::size_t> memory_granularity(int index) noexcept override {
    return cuda::memory_granularity(*this, index);
  }
  Result<DevicePointer> reserve_address_range(int index, std::size_t bytes) noexcept override {
    return cuda::reserve_address_range(*this, index, bytes);
  }
  Status free_address_range(int index, DevicePointer base, std::size_t bytes) noexcept override {
    return cuda::free_address_range(*this, index, base, bytes);
  }
  Result<PhysicalMemoryHandle> create_physical_memory(int index,
                                                      std::size_t bytes) noexcept override {
    return cuda::create_physical_memory(*this, index, bytes);
  }
  Status release_physical_memory(int index, PhysicalMemoryHandle memory) noexcept override {
    return cuda::release_physical_memory(*this, index, memory);
  }
  Status map_memory(int index, DevicePointer address, std::size_t bytes,
                    PhysicalMemoryHandle memory) noexcept override {
    return cuda::map_memory(*this, index, address, bytes, memory);
  }
  Status unmap_memory(int index, DevicePointer address, std::size_t bytes) noexcept override {
    return cuda::unmap_memory(*this, index, address, bytes);
  }
  Result<void*> allocate_host(std::size_t bytes) noexcept override {
    return cuda::allocate_host(*this, bytes);
  }
  Status free_host(void* pointer) noexcept override { return cuda::free_host(*this, pointer); }

  Status synchronize_device(int index) noexcept override {
    return with_device_context(
        index, "synchronize_device", [](const DriverApi& api) { return api.cuCtxSynchronize(); },
        "cuCtxSynchronize");
  }

  // Streams, events and graphs: cuda_streams.cpp, cuda_events.cpp, cuda_graphs.cpp.
  Result<PriorityRange> stream_priority_range(int index) noexcept override {
    return cuda::stream_priority_range(*this, index);
  }
  Result<StreamHandle> create_stream(int index, int priority) noexcept override {
    return cuda::create_stream(*this, index, priority);
  }
  Status destroy_stream(int index, StreamHandle stream) noexcept override {
    return cuda::destroy_stream(*this, index, stream);
  }
  Result<bool> query_stream(int index, StreamHandle stream) noexcept override {
    return cuda::query_stream(*this, index, stream);
  }
  Status synchronize_stream(int index, StreamHandle stream) noexcept override {
    return cuda::synchronize_stream(*this, index, stream);
  }
  Result<EventHandle> create_event(int index, EventOptions options) noexcept override {
    return cuda::create_event(*this, index, options);
  }
  Status destroy_event(int index, EventHandle event) noexcept override {
    return cuda::destroy_event(*this, index, event);
  }
  Status record_event(int index, EventHandle event, StreamHandle stream) noexcept override {
    return cuda::record_event(*this, index, event, stream);
  }
  Status stream_wait_event(int stream_index, StreamHandle stream,
                           EventHandle event) noexcept override {
    return cuda::stream_wait_event(*this, stream_index, stream, event);
  }
  Result<bool> query_event(int index, EventHandle event) noexcept override {
    return cuda::query_event(*this, index, event);
  }
  Status synchronize_event(int index, EventHandle event) noexcept override {
    return cuda::synchronize_event(*this, index, event);
  }
  Result<float> event_elapsed_time(int index, EventHandle start,
                                   EventHandle end) noexcept override {
    return cuda::event_elapsed_time(*this, index, start, end);
  }
  Status begin_capture(int index, StreamHandle stream, CaptureErrorMode mode) noexcept override {
    return cuda::begin_capture(*this, index, stream, mode);
  }
  Result<CapturedGraphHandle> end_capture(int index, StreamHandle stream) noexcept override {
    return cuda::end_capture(*this, index, stream);
  }
  Result<GraphHandle> instantiate_graph(int index, CapturedGraphHandle graph) noexcept override {
    return cuda::instantiate_graph(*this, index, graph);
  }
  Status launch_graph(int index, GraphHandle graph, StreamHandle stream) noexcept override {
    return cuda::launch_graph(*this, index, graph, stream);
  }
  Status destroy_graph(int index, GraphHandle graph) noexcept override {
    return cuda::destroy_graph(*this, index, graph);
  }
  Status destroy_captured_graph(int index, CapturedGraphHandle graph) noexcept override {
    return cuda::destroy_captured_graph(*this, index, graph);
  }

  BackendReport report() noexcept override {
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

 private:
  // What loading the driver (NVML) found, loading it on first use. Lock-free
  // (cuda_backend.h): racing first users may each load; one result is published, the
  // others discarded.
  const DriverLoad* driver_load() noexcept {
    return load_once<DriverLibrary>(driver_load_, paths_.driver, "ACCEL_CUDA_DRIVER",
                                    "libcuda.so.1", &kDriverNotLoadedOutOfMemory);
  }
  const NvmlLoad* nvml_load() noexcept {
    return load_once<NvmlLibrary>(nvml_load_, paths_.nvml, "ACCEL_NVML_LIBRARY",
                                  "libnvidia-ml.so.1", &kNvmlNotLoadedOutOfMemory);
  }

  // The loaded driver, or nullptr (driver_unusable() says why).
  const DriverLibrary* driver() noexcept { return driver_load()->result.library.get(); }
  NvmlLibrary* nvml() noexcept { return nvml_load()->result.library.get(); }
  // The driver, once initialize() succeeded (the device methods' precondition).
  const DriverLibrary& library() const noexcept {
    return *driver_load_.load(std::memory_order_acquire)->result.library;
  }

  // Why there is no usable driver (driver() == nullptr): kConfig naming the variable when
  // the user chose the file; kUnavailable with PyTorch's "Found no NVIDIA driver ..." when
  // nothing is installed (the default file absent, or the toolkit's stub); kDriver when
  // the default file is there but is no usable driver.
  Status driver_unusable() noexcept {
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

  // cuInit failed with `rc` (not CUDA_ERROR_NO_DEVICE): a driver that is there but does not
  // come up, e.g. the simulated driver given a bad machine file (it prints the cause on
  // stderr). Remembered for report(). Throws only std::bad_alloc.
  Status init_failure(const DriverLibrary& drv, CUresult rc) {
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

  Status status(CUresult rc, std::string_view operation,
                std::optional<int> device = std::nullopt) const {
    return driver_status(library(), rc, operation, device);
  }

  // The device's primary context, retained on first use and kept. Throws only
  // std::bad_alloc (while building an error); every caller is inside a try block.
  Result<CUcontext> primary_context(int index) {
    CUcontext ctx = primary_[index].load(std::memory_order_acquire);
    if (ctx != nullptr) return ctx;
    std::lock_guard lock(context_mutex_);
    ctx = primary_[index].load();
    if (ctx != nullptr) return ctx;
    CUresult rc = library().api().cuDevicePrimaryCtxRetain(&ctx, devices_[index]);
    if (rc != CUDA_SUCCESS) return status(rc, "cuDevicePrimaryCtxRetain", index);
    primary_[index].store(ctx, std::memory_order_release);
    return ctx;
  }

  // Runs `call` with the device's primary context current on this thread, then restores
  // the thread's previous context. A failed restore leaves the thread on `index`: it is
  // reported (after the call's own error when both failed), and the core then forgets the
  // thread's cached device (Backend::memory_info's contract).
  template <class Call>
  Status with_device_context(int index, std::string_view operation, Call call,
                             std::string_view entry_point) noexcept {
    try {
      Result<CUcontext> ctx = primary_context(index);
      if (!ctx.ok()) return ctx.status();
      const DriverApi& api = library().api();
      std::string op = std::string(operation) + ": ";
      CUcontext previous = nullptr;
      CUresult rc = api.cuCtxGetCurrent(&previous);
      if (rc != CUDA_SUCCESS) return status(rc, op + "cuCtxGetCurrent", index);
      if (previous != *ctx) {
        rc = api.cuCtxSetCurrent(*ctx);
        if (rc != CUDA_SUCCESS) return status(rc, op + "cuCtxSetCurrent", index);
      }
      const CUresult call_rc = call(api);
      Status restore;
      if (previous != *ctx) {
        rc = api.cuCtxSetCurrent(previous);
        if (rc != CUDA_SUCCESS) {
          restore = status(rc, op + "cuCtxSetCurrent (restoring the previous context)", index);
        }
      }
      if (call_rc == CUDA_SUCCESS) return restore;
      Status failed = status(call_rc, op + std::string(entry_point), index);
      if (restore.ok()) return failed;
      return Status(failed.kind(),
                    failed.message() +
                        "; then restoring the previous context failed too: " + restore.message(),
                    failed.detail());
    } catch (...) {
      return host_out_of_memory();
    }
  }

  // DeviceCalls (cuda_streams.h): one driver call under the device's primary context.
  Status run(int index, std::string_view operation, std::string_view entry_point,
             const Call& call) noexcept override {
    return with_device_context(
        index, operation, [&call](const DriverApi& api) { return call(api); }, entry_point);
  }

  const CudaBackendPaths paths_;
  const std::uint64_t id_;

  // Published once by driver_load() / nvml_load(); owned by the backend.
  std::atomic<const DriverLoad*> driver_load_{nullptr};
  std::atomic<const NvmlLoad*> nvml_load_{nullptr};
  // The first cuInit failure (init_failure()), for report(); owned by the backend.
  std::atomic<const Status*> init_failure_{nullptr};

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

std::unique_ptr<Backend> make_backend() { return create_cuda_backend(); }

}  // namespace accel::detail::cuda
