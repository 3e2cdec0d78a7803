#pragma once
// LevelZeroBackend, the class behind create_level_zero_backend() (ze_backend.h): its
// members are defined in one file per concern, the same files as the CUDA backend's
// (cuda_backend_impl.h):
//
//   ze_backend.cpp     construction, loader loading, zeInit, initialize, configuration,
//                      report, fork hooks
//   ze_counting.cpp    fork-safe and driver device counts, visibility_filter, and the
//                      device choice they share with initialize() (ze_counting.h)
//   ze_devices.cpp     the per-thread device, properties, capability, describe_device
//   ze_memory.cpp      memory_info, raw, virtual and pinned host memory
//   ze_streams.cpp     stream priorities, streams, synchronize_stream/_device (ze_streams.h)
//   ze_events.cpp      events (ze_streams.h)
//   ze_copies.cpp      copies and fills on a stream
//   ze_peer.cpp        can_access_peer, peer_link
//   (no graphs file: Level Zero has no stream capture, the SPI's default answers)
//
// Beside them, as in the CUDA folder: ze_status.* (ze_result_t -> Status), ze_device_facts.*
// (dtypes, uuid text), ze_visibility.* (mask and hierarchy syntax, PyTorch's mask parse),
// ze_loader_library.* (the loader and its entry points). The behaviour and thread-safety
// contract is ze_backend.h's. Tests include this header to look at the class's state.

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "accel_abi/level_zero.h"
#include "backends/level_zero/ze_backend.h"
#include "backends/level_zero/ze_counting.h"
#include "backends/level_zero/ze_loader_library.h"
#include "spi/backend.h"

namespace accel::detail::level_zero {

using ZeApi = accel::abi::level_zero::ZeApi;

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

struct QueueState;  // streams and events (ze_streams.h)

class LevelZeroBackend final : public Backend {
 public:
  explicit LevelZeroBackend(LevelZeroBackendPaths paths);
  ~LevelZeroBackend() override;

  // identity and lifetime (ze_backend.cpp, ze_counting.cpp)
  DeviceType type() const noexcept override { return DeviceType::kXPU; }
  std::string name() const override { return "xpu"; }
  int fork_safe_device_count() noexcept override;
  Result<int> driver_device_count() noexcept override;
  Status initialize() noexcept override;
  int device_count() const noexcept override;
  Status configuration_status() noexcept override;
  std::string visibility_filter() const override;

  // device (ze_devices.cpp)
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
  const void* driver_queue(int index, StreamHandle stream) const noexcept override;
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

  // copies and fills (ze_copies.cpp)
  Status copy_async(int index, StreamHandle stream, void* dst, const void* src,
                    std::size_t bytes) noexcept override;
  Status fill_async(int index, StreamHandle stream, void* ptr, unsigned char value,
                    std::size_t bytes) noexcept override;

  // fork hooks, diagnostics, peers
  void prepare_fork() noexcept override;
  void after_fork_parent() noexcept override;
  void after_fork_child() noexcept override;
  BackendReport report() noexcept override;
  Result<bool> can_access_peer(int index, int peer) noexcept override;  // ze_peer.cpp
  Result<PeerLinkInfo> peer_link(int index, int peer) noexcept override;  // ze_peer.cpp

  // For the files of this backend: valid after a successful initialize().
  const ZeApi& api() const noexcept { return *api_.load(std::memory_order_acquire); }
  ze_context_handle_t context() const noexcept { return context_; }
  // Streams and events (ze_streams.h); null before a successful initialize(). Also for code
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
  std::unique_ptr<QueueState> queues_;  // created by initialize(); ze_streams.h
};

}  // namespace accel::detail::level_zero
