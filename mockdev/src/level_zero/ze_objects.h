#pragma once
// The mock Level Zero driver's objects over the engine core (the Level Zero core API's contexts,
// memory, command lists and queues, events):
// contexts, their allocations (device, host, shared), physical memory and reservations,
// command lists (immediate and regular), command queues, event pools and events.
//
// Ownership: every object here is created with `new` and never freed (Note [Leaky state]
// in core/engine.h). Destroying one removes it from the registry (ze_state.h), so a stale
// handle is rejected with ZE_RESULT_ERROR_INVALID_NULL_HANDLE and never dereferenced; the
// objects of a context go with it. The allocation table lives in the context, so
// memory of context A is unknown to context B.
// Thread safety: every function requires the engine lock (Note [Engine lock]).
//
// Note [Level Zero streams]
// An immediate list and a command queue each own one engine queue (core::create_queue) and
// a Stream: the ordering state the Level Zero specification gives a list. Every command depends on
// the last fence (a barrier or a wait-on-events) and on the signal operations of its wait events; a
// barrier without wait events depends on everything since the last fence; an IN_ORDER list (flag
// 0x2) or a SYNCHRONOUS one also depends on the previous command. Other commands of a
// non-IN_ORDER list are unordered ("spec mode"), so the race detector sees a missing
// dependency. A command whose wait event is neither signalled nor awaited from a command
// cannot start; since commands start in append order, it and everything appended after it
// wait in the stream's `deferred` queue until a host signal or another command's signal
// makes the event reachable. The engine therefore never holds an operation
// that nothing can complete.
//
// Note [Level Zero virtual time]
// Host waits: a wait with timeout t succeeds when the work ends by
// now + t (the host clock moves to its end); otherwise the host clock moves by t (an
// ordering-only "timeout" operation of duration t - launch latency on a queue of its own,
// which the trace shows) and NOT_READY is returned; t = 0 is a query and never moves it.
// UINT64_MAX on work that can never complete (a deferred command, an event nobody will
// signal) is a deadlock: one stderr line "mockdev: deadlock: ..." and
// ZE_RESULT_ERROR_DEVICE_LOST (Intel's code for a detected hang), never a hang.

#include <level_zero/ze_api.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine_lock.h"
#include "core/live_object.h"
#include "core/timeline.h"
#include "level_zero/ze_state.h"

#ifndef MOCKDEV_ZE_LOCKED
#define MOCKDEV_ZE_LOCKED MOCKDEV_REQUIRES(::mockdev::core::g_engine_mutex)
#endif

namespace mockdev::level_zero {

enum class MemKind { kDevice, kHost, kShared };

// One allocation of a context, by the address handed to the caller.
struct ZeAllocation {
  MemKind kind = MemKind::kDevice;
  std::uint64_t bytes = 0;         // as asked for: the bounds
  std::uint64_t id = 0;            // unique per allocation
  ZeDevice* device = nullptr;      // owner; nullptr for host and unassociated shared memory
  std::uint64_t storage = 0;       // device: the core allocation; host/shared: what malloc gave
  std::uint64_t tile_bytes = 0;    // charged to the tile, 0 unless `device` is a tile
  std::uint64_t page_bytes = 0;    // pageSize
  bool module_global = false;      // a module's global (ze_kernels.h): zeMemFree refuses it
  const void* caller = nullptr;    // the program's call that made it (program_call_site)
};

// A reservation's mapped range and its access (zeVirtualMemGetAccessAttribute).
struct ZeMapping {
  std::uint64_t bytes = 0;
  ze_memory_access_attribute_t access = ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
};

// A copy, fill, barrier, ... as appended: replayed by a command queue (regular lists) or
// submitted at once (immediate lists) through submit(). kRegionCopy: a pitched box
// (zeCommandListAppendMemoryCopyRegion); kHint: a prefetch or memory advice (ordering only,
// no accesses: the mock moves no pages); kQueryTimestamps: kernel timestamps of events copied
// to memory (zeCommandListAppendQueryKernelTimestamps).
enum class CommandKind {
  kCopy,
  kFill,
  kBarrier,
  kSignal,
  kWaitEvents,
  kEventReset,
  kTimestamp,
  kRegionCopy,
  kHint,
  kQueryTimestamps,
  kLaunch
};
struct LaunchJob;  // ze_kernels.h
struct Endpoint {
  bool device = false;  // device address (core memory) or host pointer
  bool pinned = false;  // host: inside a host/shared allocation
  std::uint64_t address = 0;
  int card = -1;        // device: physical device
};
// A region copy's box: `depth` slices of `height` rows of `width` bytes; row (z, y) of a side
// starts at its endpoint's address (the box's first row) + z * slice_pitch + y * pitch.
struct RegionBox {
  std::uint64_t width = 0, height = 0, depth = 0;
  std::uint64_t dst_pitch = 0, dst_slice_pitch = 0;
  std::uint64_t src_pitch = 0, src_slice_pitch = 0;
  std::uint64_t bytes() const { return width * height * depth; }
};
// The events a timestamp query reads and where each result goes.
struct TimestampQuery {
  std::vector<_ze_event_handle_t*> events;
  std::vector<Endpoint> destinations;  // one ze_kernel_timestamp_result_t each
};
struct Command {
  CommandKind kind = CommandKind::kBarrier;
  const char* name = "";
  Endpoint dst, src;
  std::uint64_t bytes = 0;
  std::shared_ptr<std::vector<unsigned char>> pattern;  // kFill
  std::vector<_ze_event_handle_t*> waits;
  _ze_event_handle_t* signal = nullptr;  // hSignalEvent (kSignal: the event it signals)
  _ze_event_handle_t* target = nullptr;  // kEventReset: the event it resets
  std::shared_ptr<const RegionBox> region;      // kRegionCopy
  std::shared_ptr<const TimestampQuery> query;  // kQueryTimestamps
  std::shared_ptr<const LaunchJob> launch;      // kLaunch
  // The last command of an execution with a fence: its operation signals `fence` if the
  // fence still waits for execution number `fence_submission` (Note [Level Zero fences]).
  _ze_fence_handle_t* fence = nullptr;
  std::uint64_t fence_submission = 0;
};

// Ordering state of an engine queue (Note [Level Zero streams]).
struct Stream {
  std::uint64_t queue = 0;  // core queue id
  int card = 0;
  ZeDevice* device = nullptr;
  bool in_order = false;
  bool synchronous = false;
  core::OpId fence = 0;
  core::OpId last = 0;
  std::vector<core::OpId> since_fence;
  std::vector<core::OpId> issued;  // possibly pending operations (pruned as they complete)
  std::deque<Command> deferred;
};

}  // namespace mockdev::level_zero

struct _ze_context_handle_t {
  std::map<std::uint64_t, mockdev::level_zero::ZeAllocation> allocations;  // by address
  std::map<std::uint64_t, std::uint64_t> reservations;                     // base -> bytes
  std::map<std::uint64_t, mockdev::level_zero::ZeMapping> mappings;        // base -> mapping
  std::vector<void*> children;  // lists, queues, pools, physical memory: destroyed with it
};

struct _ze_command_list_handle_t {
  _ze_context_handle_t* context = nullptr;
  bool immediate = false;
  std::uint32_t ordinal = 0;
  std::uint64_t fill_pattern_limit = 0;  // the group's maxMemoryFillPatternSize
  bool closed = false;
  bool in_order = false;                                 // regular lists: flag 0x8 (1.7)
  mockdev::level_zero::Stream stream;                    // immediate lists
  std::vector<mockdev::level_zero::Command> recorded;    // regular lists
};

struct _ze_command_queue_handle_t {
  _ze_context_handle_t* context = nullptr;
  std::uint32_t ordinal = 0;
  mockdev::level_zero::Stream stream;
  std::vector<_ze_fence_handle_t*> fences;  // live fences made on it: destroyed with it
};

// Note [Level Zero fences]
// A fence belongs to the queue it was made on. zeCommandQueueExecuteCommandLists with a fence
// starts execution number n of it (not signalled) and hands the fence to the execution's last
// command, the barrier that ends its last list, which depends on everything the queue ran
// before; when that command is enqueued (at once, or later when it was deferred) its operation
// becomes the fence's, and the fence is signalled when that operation completes in virtual
// time. A reset or a later execution makes a pending command of an older execution leave the
// fence alone. Host waits follow Note [Level Zero virtual time]; a fence that no execution
// carries (never submitted, or reset since) answers NOT_READY at once whatever the timeout,
// as Intel's driver does.
struct _ze_fence_handle_t {
  _ze_command_queue_handle_t* queue = nullptr;
  bool signalled = false;        // ZE_FENCE_FLAG_SIGNALED at creation (until a reset)
  std::uint64_t executions = 0;  // executions that carried it, ever (numbers them)
  std::uint64_t awaited = 0;     // the execution it waits for (0: none since create or reset)
  mockdev::core::OpId op = 0;    // that execution's last operation (0: not enqueued yet)
};

struct _ze_event_pool_handle_t {
  _ze_context_handle_t* context = nullptr;
  ze_event_pool_flags_t flags = 0;
  std::vector<_ze_event_handle_t*> slots;  // the live event of each index, or nullptr
  mockdev::level_zero::ZeDevice* device = nullptr;  // whose clock host signals read
};

// An event of a pool: signalled by the host, or by the engine operation of the
// command that signals it once that operation completes.
struct _ze_event_handle_t {
  _ze_event_pool_handle_t* pool = nullptr;
  std::uint32_t index = 0;
  bool host_signalled = false;
  std::uint64_t host_signal_ns = 0;          // host clock at zeEventHostSignal
  mockdev::core::OpId signal_op = 0;         // the signalling command's operation (0: none)
  std::uint64_t signal_duration_ns = 0;      // its duration: start = end - duration
  mockdev::level_zero::ZeDevice* signal_device = nullptr;  // whose ticks it records
  int pending_resets = 0;  // device resets enqueued and not yet run (event reuse checks)
};

struct _ze_physical_mem_handle_t {
  _ze_context_handle_t* context = nullptr;
  std::uint64_t handle = 0;  // core physical handle
  std::uint64_t bytes = 0;
};

namespace mockdev::level_zero {

enum class HandleKind {
  kContext,
  kCommandList,
  kCommandQueue,
  kEventPool,
  kEvent,
  kPhysicalMem,
  kFence,
  kModule,
  kBuildLog,
  kKernel
};

// The objects of the installed machine (reset when the generation changes).
struct ObjectsState {
  std::map<const void*, HandleKind> kinds;  // every live object handle of this part
  std::uint64_t generation = ~std::uint64_t{0};
  std::vector<_ze_context_handle_t*> contexts;      // live, creation order
  std::uint64_t next_allocation_id = 1;
  std::vector<Stream*> stalled;  // streams with deferred commands
  std::vector<std::uint64_t> retired_host;  // freed host blocks kept while work was pending
  // Objects of a destroyed context that Intel's driver still lets the caller destroy (Note
  // [Objects after their context]): out of `kinds`, so every other use is refused.
  std::map<const void*, HandleKind> orphans;
  // The program's call that made each live object, kept while a leak policy is in force
  // (program_call_site; Note [Leak report] in core/leak_report.h).
  std::map<const void*, const void*> callers;
};
ObjectsState& objects() MOCKDEV_ZE_LOCKED;

// The return address in the program of the Level Zero call now running: the first frame of
// the calling thread's stack outside the mock and outside the loader and its layers (files
// named libze_*). Level Zero calls come through the loader's dispatch tables, so the
// CUDA facade's cheap return address would name the loader; this unwinds the stack instead,
// so it is done only while a leak policy is in force (nullptr otherwise, or when no frame
// qualifies). ze_call_site.cpp.
const void* program_call_site();
// Whether a call of `entry_point` enqueues work on a queue (zeCommandListAppend*,
// zeCommandQueueExecuteCommandLists): its operations carry the program's call site.
bool enqueues_work(std::string_view entry_point);
// The same unwinding without the leak-policy gate, for an enqueuing call while observers
// (the race detector, the trace) want call sites: the caller checks that (ze_state.cpp call),
// so a program without observers never pays for it (Note [Call sites of operations] in
// core/race_call_site.h).
const void* enqueue_call_site();

// The Level Zero objects and allocations a program made in this process and has not
// destroyed (the registry row's live_objects hook; Note [Leak report]). ze_call_site.cpp.
void list_live_objects(core::LiveObjects& out) MOCKDEV_ZE_LOCKED;

// The registry (ze_state.h) plus the kind of each object handle.
void add_handle(const void* handle, HandleKind kind) MOCKDEV_ZE_LOCKED;
void remove_handle(const void* handle) MOCKDEV_ZE_LOCKED;
// An object made in `context`: registered as `kind` and listed among the context's children
// (zeContextDestroy drops them); remove_child only takes it off that list.
void add_child(_ze_context_handle_t* context, void* object, HandleKind kind) MOCKDEV_ZE_LOCKED;
void remove_child(_ze_context_handle_t* context, void* object) MOCKDEV_ZE_LOCKED;
// Whether `handle` is a live handle of `kind` (never dereferences it otherwise).
bool is_handle(const void* handle, HandleKind kind) MOCKDEV_ZE_LOCKED;
// Note [Objects after their context]
// zeContextDestroy destroys what was made in the context: its memory is freed, its lists and
// queues take no more work (what they queued still runs), and every later use of those handles
// is ZE_RESULT_ERROR_INVALID_NULL_HANDLE, the specification's one code for a handle that is not
// valid ("handle argument is not valid"; there is no other code for a non-null stale handle).
// Intel's driver frees only the context object itself (ContextImp::destroy), so a program
// that destroys its lists, queues, event pools, events, fences, modules, kernels and build logs
// after the context keeps working there; the mock allows exactly those destroys, once each
// (SUCCESS), and refuses everything else. Physical memory, whose destroy names the context, is
// gone with it.
// Whether `handle` is an orphan of `kind`; if so it is forgotten (its one destroy succeeds).
bool destroy_orphan(const void* handle, HandleKind kind) MOCKDEV_ZE_LOCKED;

// The engine queue of a live immediate list or command queue handle (the program's
// ze_command_list_handle_t or ze_command_queue_handle_t); nullopt for anything else, never
// dereferenced then. The row's queue_of_handle hook (Note [Runtime names] in
// core/runtime_tool.h); ze_command_lists.cpp.
std::optional<std::uint64_t> queue_of_handle(const void* handle) MOCKDEV_ZE_LOCKED;

template <typename T>
T* find_handle(T* handle, HandleKind kind) MOCKDEV_ZE_LOCKED {
  return is_handle(handle, kind) ? handle : nullptr;
}

// A device handle objects may be made on: live and not a Sysman-only card.
inline ZeDevice* core_device(ze_device_handle_t handle) MOCKDEV_ZE_LOCKED {
  ZeDevice* device = find_device(handle);
  return device == nullptr || device->sysman_card ? nullptr : device;
}

// ze_memory.cpp: the allocation of `context` containing [address, address + bytes), or
// nullptr; `*base` gets its address.
const ZeAllocation* containing_allocation(const _ze_context_handle_t& context,
                                          std::uint64_t address, std::uint64_t bytes,
                                          std::uint64_t* base) MOCKDEV_ZE_LOCKED;
// Frees every allocation of `context` (its device memory returns to the device).
void free_context_memory(_ze_context_handle_t& context) MOCKDEV_ZE_LOCKED;
// A module global of `bytes` on `device`, an allocation of `context` (its address), or nullopt
// when the device is full; free_global frees it (nothing when it is gone already).
std::optional<std::uint64_t> allocate_global(_ze_context_handle_t& context, ZeDevice& device,
                                             std::uint64_t bytes) MOCKDEV_ZE_LOCKED;
void free_global(_ze_context_handle_t& context, std::uint64_t address) MOCKDEV_ZE_LOCKED;
// What a copy or fill endpoint names: a device range of `context` (or mapped
// memory), a host or shared allocation, or plain host memory. False for a device-space
// address that is not wholly inside device memory of the context.
bool resolve_endpoint(const _ze_context_handle_t& context, const void* pointer,
                      std::uint64_t bytes, Endpoint* out) MOCKDEV_ZE_LOCKED;

// ze_virtual_memory.cpp: drops the context's reservations, mappings and physical memory.
void free_context_virtual_memory(_ze_context_handle_t& context) MOCKDEV_ZE_LOCKED;

// ze_command_lists.cpp: submits `command` on `stream` (Note [Level Zero streams]): the
// engine operation, or 0 when it was deferred. Sets `*code` on an error.
core::OpId submit(Stream& stream, const Command& command, ze_result_t* code) MOCKDEV_ZE_LOCKED;
// Submits deferred commands whose wait events became reachable (after a host signal or a
// new signalling command), on every stalled stream.
void flush_deferred() MOCKDEV_ZE_LOCKED;
// Removes `stream` from the stalled set (its list or queue is destroyed).
void forget_stream(Stream& stream) MOCKDEV_ZE_LOCKED;
// The core queue's work keeps running; the list or queue takes no more.
void destroy_list(_ze_command_list_handle_t* list) MOCKDEV_ZE_LOCKED;
void destroy_queue(_ze_command_queue_handle_t* queue) MOCKDEV_ZE_LOCKED;

// ze_fences.cpp: the fence is dropped (its queue is destroyed).
void destroy_fence(_ze_fence_handle_t* fence) MOCKDEV_ZE_LOCKED;

// ze_events.cpp
// Whether the event is signalled now (host signal, or its signalling operation completed).
bool is_signalled(const _ze_event_handle_t& event) MOCKDEV_ZE_LOCKED;
// Whether a wait on it can be satisfied by the engine: signalled, or a signalling
// operation exists (Note [Level Zero streams]).
bool is_reachable(const _ze_event_handle_t& event) MOCKDEV_ZE_LOCKED;
// The event is signalled by operation `op` of `duration_ns` on `device` (event reuse checks).
void attach_signal(_ze_event_handle_t& event, core::OpId op, std::uint64_t duration_ns,
                   ZeDevice* device) MOCKDEV_ZE_LOCKED;
// The event goes back to not signalled (host or device reset).
void reset_event(_ze_event_handle_t& event) MOCKDEV_ZE_LOCKED;
// zeEventQueryKernelTimestamp's answer for a signalled event (false: not signalled, or no
// device to read ticks from; `result` untouched).
bool kernel_timestamp(const _ze_event_handle_t& event,
                      ze_kernel_timestamp_result_t* result) MOCKDEV_ZE_LOCKED;
void destroy_pool(_ze_event_pool_handle_t* pool) MOCKDEV_ZE_LOCKED;

// A host wait on `ops` with Level Zero timeout semantics (Note [Level Zero virtual time]).
// `blocked` says the awaited work can never complete by itself; `device` is whose queue
// the timeout operation goes to; `what` names the waited object in a deadlock line.
ze_result_t timed_wait(const std::vector<core::OpId>& ops, bool blocked, std::uint64_t timeout,
                       int card, const char* caller, const std::string& what) MOCKDEV_ZE_LOCKED;

// Device ticks at virtual time `ns`: the machine's start tick plus ns ÷ the
// tick period, masked to `valid_bits` (so values wrap where the machine file puts them).
std::uint64_t device_ticks(int card, std::uint64_t ns, int valid_bits) MOCKDEV_ZE_LOCKED;

// One stderr line "mockdev: level zero: <text>" (event misuse, deadlocks).
void report(const std::string& text);

}  // namespace mockdev::level_zero
