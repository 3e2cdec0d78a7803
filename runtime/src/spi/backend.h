#pragma once
// The backend SPI: what the runtime core needs from one vendor driver stack, grouped by
// capability so that the interface grows without breaking the backends that exist.
//
//   identity and lifetime   type, name, counting, initialize           every backend
//   device                  current device, properties, capability     every backend
//   memory                  memory_info, allocate, deallocate          default: kUnsupported
//   streams and events      streams, events, synchronization           default: kUnsupported
//   copies and fills        bytes queued on a stream                   default: kUnsupported
//   graphs                  capture and replay                         default: kUnsupported
//   fork                    prepare/parent/child hooks                 default: nothing to do
//   diagnostics             report()                                   default: minimal report
//
// A capability's methods have default implementations that answer kUnsupported with a
// message naming the backend and the capability (Backend::unsupported), so adding a
// capability here compiles and behaves sensibly for every backend until it implements it.
// The first two groups are pure virtual: without them there is no accelerator.
//
// Who owns what: one Backend instance per installed RuntimeState (core/runtime.h), which
// owns it. The core, not the backend, owns lazy initialisation, fork poisoning, argument
// resolution, device-index range checks and the per-thread cache of the current device
// index; a backend only does what its driver does.
//
// Rules for every method (the per-method contracts below add to them):
//  * Never throws. Methods are noexcept and return Status / Result; a method that cannot
//    build its message because memory ran out returns host_out_of_memory() (status.h).
//  * Thread safety: any method may be called concurrently from several threads. The
//    "current device" methods act on the calling thread only.
//  * Preconditions: methods taking a device index are called only after a successful
//    initialize(), with 0 <= index < device_count(), unless stated otherwise. Handles
//    passed in were returned by this backend and not yet destroyed.
//  * Fork (Note [Fork safety] in core/lazy_init_state.h): in a child forked after the core
//    attempted initialisation, the core calls only fork_safe_device_count(), report(),
//    type() and name(). Those must not need any lock that a thread of the parent may have
//    held at fork() unless the fork hooks release it. Where a backend keeps locks or state
//    that a fork can catch half-way, it overrides the fork hooks.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "accel/accelerator.h"
#include "accel/device.h"
#include "accel/event.h"
#include "accel/graph.h"
#include "accel/peer_link.h"
#include "accel/scalar_type.h"
#include "spi/handles.h"
#include "spi/status.h"

namespace accel::detail {

class Backend {
 public:
  virtual ~Backend() = default;

  // ---- identity and lifetime (every backend) -------------------------------------------

  // The device type this backend serves (kCUDA). Constant.
  virtual DeviceType type() const noexcept = 0;
  // Lower-case name, as ACCEL_BACKEND spells it ("cuda"). Constant. May throw only
  // std::bad_alloc (the one SPI method that returns an owning string).
  virtual std::string name() const = 0;

  // Counts visible devices without initialising the driver (CUDA: NVML with
  // CUDA_VISIBLE_DEVICES applied). -1 when it cannot answer that way (the core then falls
  // back to driver_device_count()). Reads the environment on every call. Callable before
  // initialize() and in any forked child.
  virtual int fork_safe_device_count() noexcept = 0;

  // Counts visible devices through the driver: initialises the driver (cuInit) but not the
  // backend. 0 (not an error) when there is no driver or no device. Callable before
  // initialize(); never in a forked child (the core poisons fork first).
  virtual Result<int> driver_device_count() noexcept = 0;

  // Brings the driver up for use and learns the device count. Idempotent; concurrent calls
  // are serialised by the core's init lock. Fails with kUnavailable (nothing installed, no
  // device), kConfig (configuration_status()) or kDriver. Postcondition on success:
  // device_count() > 0.
  virtual Status initialize() noexcept = 0;

  // The device count learned by initialize(), at most kMaxDeviceIndex + 1. Requires a
  // successful initialize(). Constant afterwards.
  virtual int device_count() const noexcept = 0;

  // A misconfiguration that makes every device unusable, found without initialising the
  // driver (Note [Misconfiguration is an error] in accel/accelerator.h): kConfig for an
  // explicitly configured file that does not work (naming the variable and its value),
  // kDriver for an installed driver that cannot be used. OK when all is well and when
  // nothing is installed (that is a legitimate "no device", not an error). initialize()
  // fails with the same status. Callable before initialize() and in a forked child (may
  // load libraries, takes no lock). Default: OK.
  virtual Status configuration_status() noexcept;

  // How the visible devices are narrowed, for messages ("CUDA_VISIBLE_DEVICES='0,1'");
  // empty when they are not. May throw only std::bad_alloc. Default: empty.
  virtual std::string visibility_filter() const;

  // ---- device (every backend) -----------------------------------------------------------
  // Per-thread contract, mirroring c10's DeviceGuardImpl and CUDA's SetDevice/MaybeSetDevice:

  // Makes `index` current on the calling thread, creating its context if needed.
  virtual Status set_device(int index) noexcept = 0;
  // Makes `index` current only if its context already exists; otherwise records it as the
  // thread's target, reported by current_device() and applied by the next set_device().
  virtual Status maybe_set_device(int index) noexcept = 0;
  // The calling thread's device: its recorded target, else the device of its current
  // context, else 0. Postcondition: 0 <= result < device_count(); a backend that cannot map
  // the driver's answer to a visible index returns kDriver instead (the core checks too).
  virtual Result<int> current_device() noexcept = 0;

  // Static properties of the device. Never changes the thread's current device.
  virtual Result<DeviceProperties> device_properties(int index) noexcept = 0;
  // Compute capability and the dtypes the device supports: vendor knowledge, so the table
  // lives in the backend (CUDA: Note [Supported dtypes] in backends/cuda/cuda_device_facts.cpp).
  virtual Result<DeviceCapability> device_capability(int index) noexcept = 0;

  // Blocks until all work on `index` is done. Default: kUnsupported. May switch the
  // thread's context for the call; on failure the thread's current device is unspecified
  // (the core forgets its cached index).
  virtual Status synchronize_device(int index) noexcept;

  // ---- memory (default: kUnsupported) ---------------------------------------------------

  // Device-wide free and total bytes. May switch the thread's context for the call (CUDA
  // needs a current context); on failure the thread's current device is unspecified (the
  // core forgets its cached index), on success it is what it was before.
  virtual Result<MemoryInfo> memory_info(int index) noexcept;
  // Raw device memory for the caching allocator: `bytes` > 0, aligned at least to 256.
  // kOutOfMemory when the device has no room. Does not change the current device.
  virtual Result<DevicePointer> allocate(int index, std::size_t bytes) noexcept;
  // Frees what allocate(index, ...) returned. Does not change the current device.
  virtual Status deallocate(int index, DevicePointer pointer) noexcept;
  // Both may be called while a stream of `index` is being captured into a graph: the
  // backend makes the call legal there (CUDA: relaxed capture mode around cuMemAlloc /
  // cuMemFree, as PyTorch does), because the caching allocator takes new segments during
  // capture (PyTorch's graph private pools).

  // ---- virtual memory (default: kUnsupported) -------------------------------------------
  // What expandable segments need (PyTorch's "expandable_segments"): reserve an address
  // range once, then back it page by page with physical memory and give the pages back.
  // Same device rule as memory; same capture rule as allocate().

  // The page size of physical memory on `index` (CUDA: cuMemGetAllocationGranularity,
  // minimum granularity, pinned device memory). Every size and offset below is a multiple.
  virtual Result<std::size_t> memory_granularity(int index) noexcept;
  // A range of `bytes` device addresses, backed by nothing (CUDA: cuMemAddressReserve).
  virtual Result<DevicePointer> reserve_address_range(int index, std::size_t bytes) noexcept;
  virtual Status free_address_range(int index, DevicePointer base, std::size_t bytes) noexcept;
  // `bytes` of physical memory on `index` (CUDA: cuMemCreate); kOutOfMemory when full.
  virtual Result<PhysicalMemoryHandle> create_physical_memory(int index, std::size_t bytes) noexcept;
  virtual Status release_physical_memory(int index, PhysicalMemoryHandle memory) noexcept;
  // Maps all of `memory` (`bytes`) at `address` inside a reserved range and makes it
  // readable and writable by device `index` (CUDA: cuMemMap + cuMemSetAccess).
  virtual Status map_memory(int index, DevicePointer address, std::size_t bytes,
                            PhysicalMemoryHandle memory) noexcept;
  virtual Status unmap_memory(int index, DevicePointer address, std::size_t bytes) noexcept;

  // ---- pinned host memory (default: kUnsupported) ---------------------------------------
  // Page-locked host memory usable by every device (CUDA: cuMemHostAlloc with
  // CU_MEMHOSTALLOC_PORTABLE), for the pinned host caching allocator. kOutOfMemory when
  // the host has no room. Does not change the current device (a context may be created).
  virtual Result<void*> allocate_host(std::size_t bytes) noexcept;
  virtual Status free_host(void* pointer) noexcept;

  // ---- streams and events (default: kUnsupported) ---------------------------------------
  // Every method names the device `index` its handles belong to; the backend runs the call
  // with that device current and leaves the thread's current device as it was (on failure
  // it is unspecified and the core forgets its cached index). A null StreamHandle names the
  // device's default stream (CUDA: the legacy NULL stream of the primary context). The core
  // creates pool streams once and never destroys them (Note [Stream pools] in
  // core/stream_pool.h); events are destroyed by their owner.

  // The device's stream priorities: lower numbers run first; least >= greatest; {0, 0}
  // when the device has none.
  struct PriorityRange {
    int least = 0;
    int greatest = 0;
  };
  virtual Result<PriorityRange> stream_priority_range(int index) noexcept;
  // A new stream on `index` that never synchronises implicitly with the default stream
  // (CUDA: CU_STREAM_NON_BLOCKING), with `priority` in the device's range.
  virtual Result<StreamHandle> create_stream(int index, int priority) noexcept;
  virtual Status destroy_stream(int index, StreamHandle stream) noexcept;
  // The driver's handle of `stream`, as a tool sees the queue (accel_abi/tool_interface.h):
  // CUDA's CUstream is the handle itself (the default); a backend whose StreamHandle is its
  // own object returns the driver object's handle (Level Zero: the immediate command list).
  virtual const void* driver_queue(int index, StreamHandle stream) const noexcept;
  // True when all work queued on `stream` so far has completed (CUDA: NOT_READY is false).
  virtual Result<bool> query_stream(int index, StreamHandle stream) noexcept;
  // Blocks until the work queued on `stream` so far is done.
  virtual Status synchronize_stream(int index, StreamHandle stream) noexcept;
  // A new event on `index` with the options' flags (timing disabled unless enable_timing).
  virtual Result<EventHandle> create_event(int index, EventOptions options) noexcept;
  virtual Status destroy_event(int index, EventHandle event) noexcept;
  // Captures the work queued on `stream` (of the event's device `index`) so far in `event`.
  virtual Status record_event(int index, EventHandle event, StreamHandle stream) noexcept;
  // Makes later work on `stream` (of device `stream_index`) wait for `event`, which may
  // belong to another device. Never blocks the host.
  virtual Status stream_wait_event(int stream_index, StreamHandle stream,
                                   EventHandle event) noexcept;
  // True when the work `event` stands for has completed.
  virtual Result<bool> query_event(int index, EventHandle event) noexcept;
  // Blocks until `event` has completed.
  virtual Status synchronize_event(int index, EventHandle event) noexcept;
  // Milliseconds between two recorded, completed timing events (`start` of device
  // `index`); events of two devices are the driver's error.
  virtual Result<float> event_elapsed_time(int index, EventHandle start,
                                           EventHandle end) noexcept;

  // ---- copies and fills (default: kUnsupported) -----------------------------------------
  // Work queued on `stream` of device `index` (same device rule as streams), ordered after
  // the stream's earlier work (Note [Copy ordering] in accel/copy.h). Pointers are the
  // driver's unified addresses: device memory of any device, pinned host memory, or
  // pageable host memory; the driver classifies them. `bytes` > 0 and both ranges non-null
  // (the core checks). A range the driver knows to be invalid (past the end of a device
  // allocation) is the driver's error. Where the driver reads or writes pageable host
  // memory when the work runs (Level Zero), the backend waits for it before returning, so
  // that on every backend the caller may reuse a pageable buffer once the call returned.

  // Copies `bytes` from `src` to `dst` (CUDA: cuMemcpyAsync; Level Zero:
  // zeCommandListAppendMemoryCopy).
  virtual Status copy_async(int index, StreamHandle stream, void* dst, const void* src,
                            std::size_t bytes) noexcept;
  // Sets `bytes` bytes at `ptr` to `value` (CUDA: cuMemsetD8Async; Level Zero:
  // zeCommandListAppendMemoryFill with a one-byte pattern).
  virtual Status fill_async(int index, StreamHandle stream, void* ptr, unsigned char value,
                            std::size_t bytes) noexcept;

  // ---- graphs (default: kUnsupported) ---------------------------------------------------
  // Same device rule as streams. The core checks PyTorch's rules (accel/graph.h) first.

  // Starts capturing the work queued on `stream` into a graph; kDefault means the
  // backend's default mode (CUDA: global).
  virtual Status begin_capture(int index, StreamHandle stream, CaptureErrorMode mode) noexcept;
  // Ends the capture begun on `stream` and returns the captured graph (kRuntime "Invalid
  // capture." when the driver ended it without one).
  virtual Result<CapturedGraphHandle> end_capture(int index, StreamHandle stream) noexcept;
  // An executable graph from a captured one (which stays valid).
  virtual Result<GraphHandle> instantiate_graph(int index, CapturedGraphHandle graph) noexcept;
  virtual Status launch_graph(int index, GraphHandle graph, StreamHandle stream) noexcept;
  virtual Status destroy_graph(int index, GraphHandle graph) noexcept;
  virtual Status destroy_captured_graph(int index, CapturedGraphHandle graph) noexcept;

  // ---- fork hooks (default: nothing to do) ----------------------------------------------
  // Called from the runtime's pthread_atfork handlers, on the forking thread, for every
  // installed backend, after the core took its own locks (prepare) and before it releases
  // them (parent, child). prepare_fork() may take the backend's locks so that no other
  // thread holds them across fork(); it must not wait for anything that can itself wait
  // for a fork (a lock held across driver initialisation, user callbacks). The child hook
  // runs while only the forking thread exists: release or re-create, nothing else.

  virtual void prepare_fork() noexcept {}
  virtual void after_fork_parent() noexcept {}
  virtual void after_fork_child() noexcept {}

  // ---- diagnostics ----------------------------------------------------------------------

  // What the backend found, for accel info; never initialises the driver and works in a
  // forked child. Fills `available`, `unavailable_reason`, `components`, `count_source`
  // and `device_count`; the core sets `backend` and `compiled_backends`. Default: the
  // fork-safe count and no components.
  virtual BackendReport report() noexcept;

  // ---- peers (default: kUnsupported) ----------------------------------------------------

  // Whether device `index` can access memory of device `peer` directly (both visible
  // indices, already range-checked by the core). False for index == peer, as the CUDA
  // driver answers. Never changes the thread's current device and creates no context.
  virtual Result<bool> can_access_peer(int index, int peer) noexcept;
  // The driver's description of the link from `index` to `peer` (accel/peer_link.h; two
  // distinct visible indices, range-checked by the core). Same context rules.
  virtual Result<PeerLinkInfo> peer_link(int index, int peer) noexcept;

 protected:
  // kUnsupported: "<operation>: the <name> backend does not support <capability>".
  Status unsupported(std::string_view capability, std::string_view operation) const noexcept;
};

}  // namespace accel::detail
