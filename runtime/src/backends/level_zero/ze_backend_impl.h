#pragma once
// The Level Zero backend (device type xpu, ACCEL_BACKEND=xpu): the Backend SPI
// (core/spi/backend.h) over the real Level Zero loader, opened at run time
// (ze_loader.h: ACCEL_LEVEL_ZERO_LOADER, default "libze_loader.so.1"), so the runtime starts
// where libze1 is absent (xpu is then unavailable, with the reason in report()).
// It follows the Level Zero specification, Intel's driver (intel/compute-runtime) where
// the specification is silent, and PyTorch XPU's choices (c10/xpu, torch/xpu).
//
// Which devices: the first driver that has a discrete GPU, else the first with an integrated
// one (as c10/xpu/XPUFunctions.cpp); its devices are what zeDeviceGet returns, so
// ZE_FLAT_DEVICE_HIERARCHY and ZE_AFFINITY_MASK are the driver's business — the backend only
// validates their syntax first (configuration_status(): a malformed value is kConfig naming it).
// One context for all devices (as SYCL's default context).
//
// Fork-safe count (ze_count.h): Sysman (zesInit, zesDriverGet, zesDeviceGet,
// zesDeviceGetProperties + ext properties) when the loader exports zesInit; otherwise a
// short-lived probe child that initialises, counts and reports over a pipe, with a
// bounded wait and no zombie. PyTorch's logical numbering and discrete-over-integrated rule
// (torch/xpu/__init__.py) are applied to what Sysman reports.
//
// Per-thread device: Level Zero has no current device; the backend keeps one per thread
// (set_device and maybe_set_device both just record it; there is no context to create),
// tagged with the backend instance's id so a new instance never inherits it.
//
// Thread safety and fork (core/spi/backend.h): the loader is loaded on first use without a
// lock (compare-and-swap publish, like the CUDA backend); the fork-safe count's cache is
// lock-free (ze_count.h). The locks (init_mutex_, ze_init_mutex_) are taken only on paths
// the core closes in a poisoned child, after it marked the runtime fork-poisoning, so the
// backend needs no fork hooks. initialize() and driver_device_count() call zeInit at most
// once per process and, where the loader has no zesInit, set ZES_ENABLE_SYSMAN=1
// first unless the user set it (memory_info's free bytes need the legacy route).
//
// Files: level_zero_backend.cpp (identity, init, devices, properties, report, fork hooks),
// ze_loader.* (the loader and its entry points), ze_status.* (ze_result_t -> Status),
// ze_visibility.* (mask and hierarchy syntax, PyTorch's mask parse), ze_device_facts.*
// (dtypes, uuid text), ze_count.* (device choice, fork-safe count: Sysman or probe child),
// ze_memory.cpp (raw, virtual and
// host memory, memory_info), ze_queues.h + ze_streams.cpp + ze_events.cpp (immediate command
// lists as streams, event pools, timestamps), ze_peer.cpp (can_access_peer).
// Capabilities: everything but graphs (Level Zero has no stream capture; begin_capture
// answers kUnsupported, as the conformance profile's branch explains).

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "accel_abi/level_zero.h"
#include "backends/level_zero/ze_count.h"
#include "backends/level_zero/ze_loader.h"
#include "core/spi/backend.h"

namespace accel::detail::level_zero {

using ZeApi = accel::abi::level_zero::ZeApi;

struct LevelZeroBackendPaths {
  // unset: ACCEL_LEVEL_ZERO_LOADER, else "libze_loader.so.1". A path from the variable is
  // the user's configuration: one that does not load is kConfig naming the variable.
  std::optional<std::string> loader;
};

// One visible device as initialize() found it.
struct ZeDevice {
  ze_device_handle_t handle = nullptr;
  DeviceProperties properties;                // what device_properties() answers
  ze_device_properties_t core{};              // raw, with the _1_2 stype (ticks per second)
  std::uint32_t compute_ordinal = 0;          // first queue group with COMPUTE
  std::uint32_t copy_ordinal = UINT32_MAX;    // first COPY-only group, if any
  std::uint64_t timer_hz = 0;                 // ticks per second
  std::uint32_t kernel_timestamp_bits = 32;
  bool fp64 = false;
  bool integrated = false;
};

struct QueueState;  // streams and events (ze_queues.h)

class LevelZeroBackend final : public Backend {
 public:
  explicit LevelZeroBackend(LevelZeroBackendPaths paths);
  ~LevelZeroBackend() override;

  // identity and lifetime (level_zero_backend.cpp, ze_count.cpp)
  DeviceType type() const noexcept override { return DeviceType::kXPU; }
  std::string name() const override { return "xpu"; }
  int fork_safe_device_count() noexcept override;
  Result<int> driver_device_count() noexcept override;
  Status initialize() noexcept override;
  int device_count() const noexcept override;
  Status configuration_status() noexcept override;
  std::string visibility_filter() const override;

  // device (level_zero_backend.cpp)
  Status set_device(int index) noexcept override;
  Status maybe_set_device(int index) noexcept override;
  Result<int> current_device() noexcept override;
  Result<DeviceProperties> device_properties(int index) noexcept override;
  Result<DeviceCapability> device_capability(int index) noexcept override;
  Status synchronize_device(int index) noexcept override;  // ze_streams.cpp

  // memory, virtual memory, pinned host (ze_memory.cpp)
  Result<MemoryInfo> memory_info(int index) noexcept override;
  Result<DevicePointer> allocate(int index, std::size_t bytes) noexcept override;
  Status deallocate(int index, DevicePointer pointer) noexcept override;
  Result<std::size_t> memory_granularity(int index) noexcept override;
  Result<DevicePointer> reserve_address_range(int index, std::size_t bytes) noexcept override;
  Status free_address_range(int index, DevicePointer base, std::size_t bytes) noexcept override;
  Result<PhysicalMemoryHandle> create_physical_memory(int index,
                                                      std::size_t bytes) noexcept override;
  Status release_physical_memory(int index, PhysicalMemoryHandle memory) noexcept override;
  Status map_memory(int index, DevicePointer address, std::size_t bytes,
                    PhysicalMemoryHandle memory) noexcept override;
  Status unmap_memory(int index, DevicePointer address, std::size_t bytes) noexcept override;
  Result<void*> allocate_host(std::size_t bytes) noexcept override;
  Status free_host(void* pointer) noexcept override;

  // streams and events (ze_streams.cpp, ze_events.cpp)
  Result<PriorityRange> stream_priority_range(int index) noexcept override;
  Result<StreamHandle> create_stream(int index, int priority) noexcept override;
  Status destroy_stream(int index, StreamHandle stream) noexcept override;
  Result<bool> query_stream(int index, StreamHandle stream) noexcept override;
  Status synchronize_stream(int index, StreamHandle stream) noexcept override;
  Result<EventHandle> create_event(int index, EventOptions options) noexcept override;
  Status destroy_event(int index, EventHandle event) noexcept override;
  Status record_event(int index, EventHandle event, StreamHandle stream) noexcept override;
  Status stream_wait_event(int stream_index, StreamHandle stream,
                           EventHandle event) noexcept override;
  Result<bool> query_event(int index, EventHandle event) noexcept override;
  Status synchronize_event(int index, EventHandle event) noexcept override;
  Result<float> event_elapsed_time(int index, EventHandle start,
                                   EventHandle end) noexcept override;

  // fork hooks, diagnostics, peers
  void prepare_fork() noexcept override;
  void after_fork_parent() noexcept override;
  void after_fork_child() noexcept override;
  BackendReport report() noexcept override;
  Result<bool> can_access_peer(int index, int peer) noexcept override;  // ze_peer.cpp

  // For the files of this backend: valid after a successful initialize().
  const ZeApi& api() const noexcept { return *api_.load(std::memory_order_acquire); }
  ze_context_handle_t context() const noexcept { return context_; }
  // Streams and events (ze_queues.h); null before a successful initialize(). Also for code
  // that queues work on the runtime's streams (QueueState::append).
  QueueState* queues() const noexcept { return queues_.get(); }
  const ZeDevice& device(int index) const noexcept {
    return devices_[static_cast<std::size_t>(index)];
  }
  // The driver's API version (zeDriverGetApiVersion), for gating optional entries.
  ze_api_version_t driver_api_version() const noexcept { return api_version_; }

 private:
  // What loading the loader found, loading it on first use (lock-free publish).
  const ZeLoaderLoad& loader_load() noexcept;
  // The usable loader's entry points, or nullptr (loader_load().status() says why).
  const ZeApi* loaded_api() noexcept;
  // zeInit(0) at most once per process; its result. Sets ZES_ENABLE_SYSMAN first
  // where needed.
  ze_result_t ze_init_once() noexcept;
  // The Status a failed zeInit means: kUnavailable "No XPU devices are available
  // (zeInit returned ...)", or kDriver when a loader or driver the user named failed with
  // another code than UNINITIALIZED.
  // Remembered for report(). Throws only std::bad_alloc.
  Status init_failure(ze_result_t rc);
  Status no_device_status(const std::string& why);
  // Keeps the first initialisation failure for report(). Throws only std::bad_alloc.
  void remember_failure(const Status& failure);
  // initialize() after a successful zeInit: devices, properties, context, queue state.
  // Throws only std::bad_alloc.
  Status initialize_devices(const ZeApi& api);
  // Properties, queue groups and module flags of one chosen device.
  Status describe_device(int index, ze_device_handle_t handle, ZeDevice* out);

  LevelZeroBackendPaths paths_;
  const std::uint64_t id_;
  // Published once by loader_load(); owned by the backend.
  std::atomic<const ZeLoaderLoad*> loader_load_{nullptr};
  std::atomic<const ZeApi*> api_{nullptr};  // the loader's table once initialize() succeeded
  std::atomic<const Status*> init_failure_{nullptr};  // first failed init, for report()
  CountCache counts_;                                 // Note [Fork-safe Level Zero count]

  std::mutex ze_init_mutex_;  // ze_init_once() only
  std::atomic<bool> ze_init_done_{false};
  ze_result_t ze_init_result_ = ZE_RESULT_SUCCESS;  // under ze_init_mutex_ / after ze_init_done_
  pid_t ze_init_pid_ = 0;                            // the process that called zeInit
  // The process whose zeInit has begun (set before the call): the probe never forks while
  // the loader is being initialised in this process (fork_safe_device_count).
  std::atomic<pid_t> ze_init_started_pid_{0};

  std::mutex init_mutex_;  // initialize() only (the core serialises it too)
  std::atomic<bool> initialized_{false};
  ze_driver_handle_t driver_ = nullptr;
  ze_api_version_t api_version_ = ZE_API_VERSION_1_0;
  ze_context_handle_t context_ = nullptr;
  std::vector<ZeDevice> devices_;
  std::unique_ptr<QueueState> queues_;  // created by initialize(); ze_queues.h
};

// A new Level Zero backend; loads nothing until first used.
std::unique_ptr<Backend> create_level_zero_backend(LevelZeroBackendPaths paths = {});

// create_level_zero_backend() with the environment's paths: the registry's factory.
std::unique_ptr<Backend> make_backend();

}  // namespace accel::detail::level_zero
