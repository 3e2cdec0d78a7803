#pragma once
// The timeline's internal state and the helpers its two files share (timeline.cpp: queues,
// enqueue, completion; host_wait.cpp: queries, host waits, host functions, random
// progress). Not for use outside core/timeline*.cpp and core/host_wait.cpp; the contract is
// timeline.h. Everything here requires the engine lock.

#include <pthread.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/timeline.h"

namespace mockdev::core::detail {

enum class OpState : std::uint8_t { kPending, kRunning, kComplete, kCancelled };

struct Op {
  OpId id = 0;
  std::uint64_t queue = 0;
  OpKind kind = OpKind::kBarrier;
  OpState state = OpState::kPending;
  std::uint64_t ready_ns = 0;  // host time + launch latency at enqueue
  std::uint64_t duration_ns = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
  std::vector<OpId> deps;  // kept only while pending (Note [Op path cost])
  OpAction action;
  std::thread::id runner;  // kRunning: the thread running its host function
};

struct Queue {
  std::uint64_t id = 0;
  int device = 0;
  std::string label;
  OpId tail = 0;
  bool alive = true;
  std::uint64_t pending = 0;
};

struct Kept {
  std::uint64_t end_ns = 0;
  bool pinned = false;  // kept by keep_end_time, not only as a queue tail
};

struct TimelineState {
  std::uint64_t generation = 0;
  pid_t pid = 0;
  std::deque<Op> ops;  // ops[id - base]
  OpId base = 1;
  OpId next_id = 1;
  std::vector<Queue> queues;  // queues[id - 1]
  std::map<OpId, Kept> kept;  // end times that outlive pruning
  std::uint64_t host_ns = 0;
  std::uint64_t host_epoch = 0;
  std::uint64_t rng = 0;
  std::uint64_t driver_calls = 0;  // progress_point calls: Note [Progress guarantee]
  TimelineStats stats;
};

// The state for the installed machine (reset with the generation; after a fork, host
// functions other threads were running are cancelled: Note [Deadlocks]).
TimelineState& timeline() MOCKDEV_REQUIRES(g_engine_mutex);
const StreamSettings& settings() MOCKDEV_REQUIRES(g_engine_mutex);
std::vector<std::unique_ptr<OpObserver>>& observers() MOCKDEV_REQUIRES(g_engine_mutex);
// The op with `id` if it is still in the list (not pruned), else nullptr.
Op* find(TimelineState& t, OpId id);
// Whether `id` completed (0 and pruned ids count as complete).
bool complete(TimelineState& t, OpId id);
bool deps_complete(TimelineState& t, const Op& op);
// The end time of a completed op, also after pruning when it was kept; else 0.
std::uint64_t end_of(TimelineState& t, OpId id);
// Completes a pending op whose dependencies are complete: moves its bytes, tells the
// observers. For a host call use complete_now, which runs the function first.
void finish(TimelineState& t, Op& op) MOCKDEV_REQUIRES(g_engine_mutex);
// Completes op `id` (pending, dependencies complete); a host call runs with the lock
// released (Note [Host functions]). May release the lock.
void complete_now(OpId id) MOCKDEV_REQUIRES(g_engine_mutex);
// Eager: completes every pending op whose dependencies are complete, in id order.
void drain_ready() MOCKDEV_REQUIRES(g_engine_mutex);
// Note [Progress guarantee] (progress.cpp): a host function was enqueued under a schedule
// that completes work only when asked; starts this process's progress thread if it has none.
void ensure_progress_thread() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core::detail
