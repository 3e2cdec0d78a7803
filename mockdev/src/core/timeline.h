#pragma once
// The virtual-time stream engine, vendor-neutral: ordered queues of operations with
// dependencies, a virtual clock, and the scheduler that decides when operations complete.
// API adapters (cuda/) turn their stream calls into operations (OpDesc) and enqueue them
// here; observers (core/op_observer.h) see every enqueue, completion and host wait.
//
// Ownership: one timeline per installed machine (reset with core::Engine::generation),
// never destroyed (Note [Leaky state]). Thread safety: every function requires the engine
// lock; those marked "may release the lock" run host functions with the lock released and
// hold it again on return, so a caller must not keep pointers into adapter state across
// them (it re-validates handles after).
//
// Note [Scheduler]
// When an operation completes is decided by StreamSettings::schedule. eager: at enqueue, as
// soon as every dependency has completed (the behaviour every test before streams saw).
// random: at each driver call (cuda/driver_call.cpp) and after each enqueue, every
// operation whose dependencies are complete completes with probability 1/2, drawn from a
// SplitMix64 stream seeded by StreamSettings::seed, visiting operations in id order.
// adversarial: nothing completes until a host wait needs it; a query never forces
// progress. Decisions use only op ids, the seed and the call sequence: no wall clock, no
// addresses, no unordered iteration, so the same program with the same seed runs the same,
// bit for bit.
//
// Note [Virtual time]
// Times are virtual nanoseconds since the machine was installed. An operation enqueued when
// the host clock reads H may start at H + launch_latency_ns, and not before every
// dependency ended; it lasts its duration from the timing model. The host clock moves only
// at host waits, to the end of what was waited for. So times depend on the program, never
// on the schedule.
//
// Note [Host functions]
// A kHostCall action runs the user's function with the engine lock RELEASED (it may block,
// or call into the driver, which refuses with NOT_PERMITTED: in_host_function()), on the
// thread whose call made it due: the enqueueing thread in eager mode, the thread whose
// stream call drew it in random mode, the waiting thread in a host wait. While it runs its
// operation is "running"; another thread that needs it waits on a condition variable.
//
// Note [Progress guarantee]
// A real driver runs stream callbacks and host functions on a thread of its own, so a
// program may wait for one on its own condition variable, making no driver call. Under the
// random and adversarial schedules such a wait would never end: nothing completes without a
// driver call or a host wait. So adversarial stays adversarial while the program keeps
// calling the driver, and gives way when it stops: once a host function is enqueued under
// those schedules, the process has a progress thread, and when no driver call (on any
// thread) has begun for kProgressIdleMs of real time while host functions are pending, it
// completes every pending host function and what each needs, in id order, as a host wait
// would but without telling the observers (it is no synchronisation the program made, so
// the race detector still reports accesses the program did not order). It checks every
// kProgressIdleMs / 4. Other work is never completed this way: a copy the program never
// waits for stays incomplete, so missing synchronisation is still caught. The bound is real
// time, so only programs that idle see it; a program that keeps calling the driver runs
// exactly as the schedule and seed decide.
inline constexpr unsigned kProgressIdleMs = 200;

// Note [Deadlocks]
// A wait that needs an operation that can never complete returns kDeadlock and prints one
// line on stderr naming the queues, instead of hanging. What makes an operation unable to
// complete: depending on an operation that was cancelled because its queue's context died
// (cancel_queue), or on a host function left running by a thread that no longer exists
// (a fork child). A host function that blocks forever in user code is not detected.
//
// Note [Freed memory]
// Device memory freed while work on it is still pending (a context released or reset, a
// mapping unmapped, a stream-ordered free; cuMemFree itself waits first, Note [Freeing
// synchronises] in cuda/driver_memory.cpp): when such an operation completes, a device range
// that is no longer inside a live allocation makes it move nothing, so freed memory is
// never written back to life and a host destination keeps its bytes.
//
// Note [Op path cost]
// The benchmark goal is 5 M simple operations per second in the engine alone: an op that
// completes at enqueue never stores its dependencies, observers' records are built only
// when there are observers, completed operations are pruned from the front of the op
// list, and only end times that later lookups can need (queue tails, event records) outlive
// pruning.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine_lock.h"
#include "core/op_action.h"
#include "core/op_observer.h"

namespace mockdev::core {

// One operation as an adapter describes it.
struct OpDesc {
  OpKind kind = OpKind::kBarrier;
  const char* name = "";                // static text: "cuMemsetD8Async"
  AccessRange read;                     // bytes == 0: none
  AccessRange write;                    // bytes == 0: none
  std::vector<AccessRange> more_reads;  // kernels and host functions with several ranges
  std::vector<AccessRange> more_writes;
  bool unknown_accesses = false;
  std::uint64_t duration_ns = 0;
  OpId event_record = 0;  // kEventWait: the record it waits for (on_event_flow)
  OpAction action;
};

enum class WaitResult { kDone, kDeadlock };

// A new queue on physical `device`; its id (1, 2, ...; never reused). `handle`: how the
// program names it (QueueInfo::handle), for reports and the trace.
std::uint64_t create_queue(int device, std::string label, std::string handle = {})
    MOCKDEV_REQUIRES(g_engine_mutex);
// The queue's work still runs; the queue takes no more.
void destroy_queue(std::uint64_t queue) MOCKDEV_REQUIRES(g_engine_mutex);
// Its pending operations will never complete (Note [Deadlocks]); the queue is destroyed.
void cancel_queue(std::uint64_t queue) MOCKDEV_REQUIRES(g_engine_mutex);
// The last operation enqueued on `queue` (0: none).
OpId queue_tail(std::uint64_t queue) MOCKDEV_REQUIRES(g_engine_mutex);

// Enqueues `desc` on `queue` after `deps` (ids of earlier operations; 0 and duplicates are
// ignored; the queue's own tail must be among them for program order). May complete it and
// others (Note [Scheduler]); may release the lock (Note [Host functions]).
OpId enqueue(std::uint64_t queue, OpDesc&& desc, std::span<const OpId> deps)
    MOCKDEV_REQUIRES(g_engine_mutex);

bool is_complete(OpId op) MOCKDEV_REQUIRES(g_engine_mutex);
// A query: random progress, then whether every op in `ops` completed; when they have, the
// host learns it (on_host_wait). Never forces progress. May release the lock.
bool query(std::span<const OpId> ops) MOCKDEV_REQUIRES(g_engine_mutex);
// A host wait: forces exactly the operations `ops` need, in id order, then tells the
// observers (unless `tell_observers` is false: an implicit synchronisation, spec
// cuda_streams section 3.3, which is no happens-before edge). `caller` names the wait in a
// deadlock report. May release the lock.
WaitResult wait_for(std::span<const OpId> ops, std::string_view caller, bool tell_observers = true)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Random progress at a driver call (nothing in the other modes): the adapters call it as
// each call begins, before its body holds any state. May release the lock.
void progress_point() MOCKDEV_REQUIRES(g_engine_mutex);

// The virtual end time of a completed operation (0 if unknown or not complete).
std::uint64_t end_time(OpId op) MOCKDEV_REQUIRES(g_engine_mutex);
// Keeps `op`'s end time across pruning until forget_end_time (an event's record).
void keep_end_time(OpId op) MOCKDEV_REQUIRES(g_engine_mutex);
void forget_end_time(OpId op) MOCKDEV_REQUIRES(g_engine_mutex);
// The host clock (Note [Virtual time]).
std::uint64_t host_time_ns() MOCKDEV_REQUIRES(g_engine_mutex);
// Tells the observers that `wait` waits for the event recorded by `record`.
void note_event_flow(OpId record, OpId wait) MOCKDEV_REQUIRES(g_engine_mutex);

// True on a thread that is running a host function (Note [Host functions]). Lock-free.
bool in_host_function() noexcept;

// For tests and the control API.
struct TimelineStats {
  std::uint64_t enqueued = 0;
  std::uint64_t completed = 0;
  std::uint64_t pending = 0;  // neither complete nor cancelled
  std::uint64_t host_waits = 0;
  std::uint64_t queues = 0;  // created since the machine was installed
};
TimelineStats timeline_stats() MOCKDEV_REQUIRES(g_engine_mutex);
// Ids of the incomplete operations of `queue`, in order.
std::vector<OpId> pending_ops(std::uint64_t queue) MOCKDEV_REQUIRES(g_engine_mutex);

// Virtual duration of moving `bytes` at `gb_per_s` (1 GB = 1e9 bytes), at least 1 ns.
std::uint64_t transfer_ns(std::uint64_t bytes, double gb_per_s);

}  // namespace mockdev::core
