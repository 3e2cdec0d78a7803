#pragma once
// CudaBackend, the class behind create_cuda_backend() (cuda_backend.h): private to this
// folder, so that its members can be defined in one file per concern (the same files as
// the Level Zero backend's, ze_backend_impl.h):
//
//   cuda_backend.cpp    construction, library loading, initialize, configuration, report
//   cuda_counting.cpp   fork-safe and driver device counts, visibility_filter
//   cuda_devices.cpp    the per-thread device, properties, capability, primary contexts
//   cuda_memory.cpp     memory_info, raw, virtual and pinned host memory
//   cuda_streams.cpp    stream priorities, streams, synchronize_stream/_device
//   cuda_events.cpp     events
//   cuda_copies.cpp     copies and fills on a stream
//   cuda_graphs.cpp     capture, instantiate, launch, destroy
//   cuda_peer.cpp       can_access_peer, peer_link
//
// Every call that needs a device runs through with_device_context() below: the device's
// primary context is made current for the call and the thread's previous context is put
// back, as PyTorch runs stream and event calls under a device guard. A driver failure
// becomes a Status naming the operation, the entry point, the device and the driver's code
// name (cuda_status.h). The behaviour and thread-safety contract is cuda_backend.h's.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/cuda_driver_library.h"
#include "backends/cuda/cuda_nvml_library.h"
#include "backends/cuda/cuda_status.h"
#include "spi/backend.h"

namespace accel::detail::cuda {

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

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(CudaBackendPaths paths);
  ~CudaBackend() override;

  // identity and lifetime (cuda_backend.cpp, cuda_counting.cpp)
  DeviceType type() const noexcept override { return DeviceType::kCUDA; }
  std::string name() const override { return "cuda"; }
  int fork_safe_device_count() noexcept override;
  Result<int> driver_device_count() noexcept override;
  Status initialize() noexcept override;
  int device_count() const noexcept override { return count_; }
  Status configuration_status() noexcept override;
  std::string visibility_filter() const override;

  // device (cuda_devices.cpp; synchronize_device: cuda_streams.cpp)
  Status set_device(int index) noexcept override;
  Status maybe_set_device(int index) noexcept override;
  Result<int> current_device() noexcept override;
  Result<DeviceProperties> device_properties(int index) noexcept override;
  Result<DeviceCapability> device_capability(int index) noexcept override;
  Status synchronize_device(int index) noexcept override;

  // memory, virtual memory, pinned host (cuda_memory.cpp)
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

  // streams (cuda_streams.cpp) and events (cuda_events.cpp)
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
  Result<float> event_elapsed_time(int index, EventHandle start, EventHandle end) noexcept override;

  // copies and fills (cuda_copies.cpp)
  Status copy_async(int index, StreamHandle stream, void* dst, const void* src,
                    std::size_t bytes) noexcept override;
  Status fill_async(int index, StreamHandle stream, void* ptr, unsigned char value,
                    std::size_t bytes) noexcept override;

  // graphs (cuda_graphs.cpp)
  Status begin_capture(int index, StreamHandle stream, CaptureErrorMode mode) noexcept override;
  Result<CapturedGraphHandle> end_capture(int index, StreamHandle stream) noexcept override;
  Result<GraphHandle> instantiate_graph(int index, CapturedGraphHandle graph) noexcept override;
  Status launch_graph(int index, GraphHandle graph, StreamHandle stream) noexcept override;
  Status destroy_graph(int index, GraphHandle graph) noexcept override;
  Status destroy_captured_graph(int index, CapturedGraphHandle graph) noexcept override;

  // diagnostics (cuda_backend.cpp), peers (cuda_peer.cpp)
  BackendReport report() noexcept override;
  Result<bool> can_access_peer(int index, int peer) noexcept override;
  Result<PeerLinkInfo> peer_link(int index, int peer) noexcept override;

 private:
  // ---- library loading (cuda_backend.cpp) ----------------------------------------------

  // What loading the driver (NVML) found, loading it on first use. Lock-free
  // (cuda_backend.h): racing first users may each load; one result is published, the
  // others discarded.
  const DriverLoad* driver_load() noexcept;
  const NvmlLoad* nvml_load() noexcept;
  // The loaded driver, or nullptr (driver_unusable() says why).
  const DriverLibrary* driver() noexcept { return driver_load()->result.library.get(); }
  NvmlLibrary* nvml() noexcept { return nvml_load()->result.library.get(); }
  // The driver, once initialize() succeeded (the device methods' precondition).
  const DriverLibrary& library() const noexcept {
    return *driver_load_.load(std::memory_order_acquire)->result.library;
  }

  // configuration_status() without the remembered cuInit failure: what the files say.
  Status files_status() noexcept;
  // Why there is no usable driver (driver() == nullptr): kConfig naming the variable when
  // the user chose the file; kUnavailable with PyTorch's "Found no NVIDIA driver ..." when
  // nothing is installed (the default file absent, or the toolkit's stub); kDriver when
  // the default file is there but is no usable driver.
  Status driver_unusable() noexcept;
  // cuInit failed with `rc` (not CUDA_ERROR_NO_DEVICE): a driver that is there but does not
  // come up, e.g. the simulated driver given a bad machine file (it prints the cause on
  // stderr). Remembered for report(). Throws only std::bad_alloc.
  Status init_failure(const DriverLibrary& drv, cuda_abi::CUresult rc);

  // ---- counting (cuda_counting.cpp) -----------------------------------------------------

  // Note [Fork-safe device count] (cuda_nvml_library.h). -1 when NVML cannot answer.
  int nvml_visible_count(std::string* reason) noexcept;

  // ---- device calls (cuda_devices.cpp, and the templates below) -------------------------

  // A failed driver call on the loaded driver as a Status (cuda_status.h).
  Status status(cuda_abi::CUresult rc, std::string_view operation,
                std::optional<int> device = std::nullopt) const {
    return driver_status(library(), rc, operation, device);
  }

  // The device's primary context, retained on first use and kept. Throws only
  // std::bad_alloc (while building an error); every caller is inside a try block.
  Result<cuda_abi::CUcontext> primary_context(int index);

  // Runs `call(api)` with the device's primary context current on this thread, then
  // restores the thread's previous context. A failure of `call` is "<operation>:
  // <entry_point>: CUDA error: ...". A failed restore leaves the thread on `index`: it is
  // reported (after the call's own error when both failed), and the core then forgets the
  // thread's cached device (Backend::memory_info's contract).
  template <class Call>
  Status with_device_context(int index, std::string_view operation, std::string_view entry_point,
                             Call call) noexcept;
  // with_device_context() for a query: true for CUDA_SUCCESS, false for
  // CUDA_ERROR_NOT_READY (an answer, not an error).
  template <class Call>
  Result<bool> query_with_device_context(int index, std::string_view operation,
                                         std::string_view entry_point, Call call) noexcept;

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
  std::vector<cuda_abi::CUdevice> devices_;

  std::mutex context_mutex_;
  std::unique_ptr<std::atomic<cuda_abi::CUcontext>[]> primary_;
};

template <class Call>
Status CudaBackend::with_device_context(int index, std::string_view operation,
                                        std::string_view entry_point, Call call) noexcept {
  using cuda_abi::CUcontext;
  using cuda_abi::CUDA_SUCCESS;
  using cuda_abi::CUresult;
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
    return Status(
        failed.kind(),
        failed.message() + "; then restoring the previous context failed too: " + restore.message(),
        failed.detail());
  } catch (...) {
    return host_out_of_memory();
  }
}

template <class Call>
Result<bool> CudaBackend::query_with_device_context(int index, std::string_view operation,
                                                    std::string_view entry_point,
                                                    Call call) noexcept {
  bool ready = true;
  Status result = with_device_context(index, operation, entry_point, [&](const DriverApi& api) {
    const cuda_abi::CUresult rc = call(api);
    if (rc != cuda_abi::CUDA_ERROR_NOT_READY) return rc;
    ready = false;
    return cuda_abi::CUDA_SUCCESS;
  });
  if (!result.ok()) return result;
  return ready;
}

}  // namespace accel::detail::cuda
