// The virtual-time stream engine (timeline.h): queues, operations, the scheduler, host waits.

#include "core/timeline.h"

#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <thread>

#include "core/engine.h"
#include "core/memory.h"

namespace mockdev::core {
namespace {

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
  TimelineStats stats;
};

thread_local int t_host_function_depth = 0;
pthread_cond_t g_host_call_done = PTHREAD_COND_INITIALIZER;

TimelineState& timeline() MOCKDEV_REQUIRES(g_engine_mutex) {
  static TimelineState* const state = new TimelineState();  // Note [Leaky state]
  const Engine& e = engine();
  if (state->generation != e.generation) {
    *state = TimelineState{};
    state->generation = e.generation;
    state->pid = current_pid();
    state->rng = e.machine.streams.seed;
  } else if (state->pid != current_pid()) {
    // A fork child (Note [Deadlocks]): host functions other threads were running never end.
    state->pid = current_pid();
    for (Op& op : state->ops) {
      if (op.state == OpState::kRunning) op.state = OpState::kCancelled;
    }
  }
  return *state;
}

const StreamSettings& settings() MOCKDEV_REQUIRES(g_engine_mutex) {
  return engine().machine.streams;
}

std::vector<std::unique_ptr<OpObserver>>& observers() MOCKDEV_REQUIRES(g_engine_mutex) {
  return engine().observers;
}

Op* find(TimelineState& t, OpId id) {
  if (id < t.base || id >= t.next_id) return nullptr;
  return &t.ops[static_cast<std::size_t>(id - t.base)];
}

bool complete(TimelineState& t, OpId id) {
  if (id == 0) return true;
  if (id < t.base) return true;  // pruned: only completed ops are pruned
  const Op* op = find(t, id);
  return op != nullptr && op->state == OpState::kComplete;
}

std::uint64_t end_of(TimelineState& t, OpId id) {
  if (const Op* op = find(t, id)) return op->state == OpState::kComplete ? op->end_ns : 0;
  auto it = t.kept.find(id);
  return it == t.kept.end() ? 0 : it->second.end_ns;
}

std::uint64_t next_random(TimelineState& t) {
  // SplitMix64: small, seedable, and the same everywhere.
  std::uint64_t z = (t.rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void prune(TimelineState& t) {
  constexpr std::size_t kKeep = 1024;  // recent ops stay for inspection
  while (t.ops.size() > kKeep && t.ops.front().state == OpState::kComplete) {
    const Op& op = t.ops.front();
    const Queue& q = t.queues[op.queue - 1];
    if (q.tail == op.id) t.kept[op.id].end_ns = op.end_ns;
    auto it = t.kept.find(op.id);
    if (it != t.kept.end()) it->second.end_ns = op.end_ns;
    t.ops.pop_front();
    ++t.base;
  }
}

// Runs a completed op's byte move and tells the observers. The op's dependencies are
// complete; for a host call, the function already ran.
void finish(TimelineState& t, Op& op) MOCKDEV_REQUIRES(g_engine_mutex) {
  std::uint64_t start = op.ready_ns;
  for (OpId d : op.deps) start = std::max(start, end_of(t, d));
  op.start_ns = start;
  op.end_ns = start + op.duration_ns;
  OpAction& a = op.action;
  switch (a.kind) {
    case ActionKind::kFill:
      fill_bytes(a.dst, a.bytes, a.pattern, a.pattern_size);
      break;
    case ActionKind::kCopyDevice:
      copy_bytes(a.dst, a.src, a.bytes);
      break;
    case ActionKind::kHostToDevice:
      write_bytes(a.dst, reinterpret_cast<const void*>(a.src), a.bytes);
      break;
    case ActionKind::kStagedToDevice:
      write_bytes(a.dst, a.staged.get(), a.bytes);
      break;
    case ActionKind::kDeviceToHost:
      read_bytes(a.src, reinterpret_cast<void*>(a.dst), a.bytes);
      break;
    case ActionKind::kLockedCall:
      a.call(a.args[0], a.args[1], a.args[2]);
      break;
    case ActionKind::kNone:
    case ActionKind::kHostCall:
      break;
  }
  a.staged.reset();
  a.keep.reset();
  op.state = OpState::kComplete;
  op.deps.clear();
  op.deps.shrink_to_fit();
  Queue& q = t.queues[op.queue - 1];
  --q.pending;
  --t.stats.pending;
  ++t.stats.completed;
  auto kept = t.kept.find(op.id);
  if (kept != t.kept.end()) kept->second.end_ns = op.end_ns;
  for (auto& o : observers()) o->on_complete(op.id, op.start_ns, op.end_ns);
}

// Runs the host function of `id` with the lock released, then finishes it. On return the
// lock is held again; references into the op list may have moved (look ops up by id).
void run_host_call(OpId id) MOCKDEV_REQUIRES(g_engine_mutex) {
  TimelineState& t = timeline();
  Op* op = find(t, id);
  op->state = OpState::kRunning;
  op->runner = std::this_thread::get_id();
  const HostCallFn fn = op->action.call;
  const std::uintptr_t a0 = op->action.args[0], a1 = op->action.args[1],
                       a2 = op->action.args[2];
  ++t_host_function_depth;
  g_engine_mutex.unlock();
  fn(a0, a1, a2);
  g_engine_mutex.lock();
  --t_host_function_depth;
  TimelineState& after = timeline();
  if (after.generation == t.generation) {
    if (Op* again = find(after, id); again != nullptr && again->state == OpState::kRunning) {
      finish(after, *again);
    }
  }
  pthread_cond_broadcast(&g_host_call_done);
}

bool deps_complete(TimelineState& t, const Op& op) {
  for (OpId d : op.deps) {
    if (!complete(t, d)) return false;
  }
  return true;
}

// Completes op `id` (pending, dependencies complete). May release the lock.
void complete_now(OpId id) MOCKDEV_REQUIRES(g_engine_mutex) {
  TimelineState& t = timeline();
  Op* op = find(t, id);
  if (op->action.kind == ActionKind::kHostCall) {
    run_host_call(id);
  } else {
    finish(t, *op);
  }
}

// Eager mode: completes every pending op whose dependencies are complete, in id order.
void drain_ready() MOCKDEV_REQUIRES(g_engine_mutex) {
  for (bool progressed = true; progressed;) {
    progressed = false;
    TimelineState& t = timeline();
    if (t.stats.pending == 0) return;
    for (OpId id = t.base; id < t.next_id; ++id) {
      Op* op = find(t, id);
      if (op->state != OpState::kPending || !deps_complete(t, *op)) continue;
      complete_now(id);
      progressed = true;
      break;  // the op list may have changed while a host function ran
    }
  }
}

void announce(TimelineState& t, const Op& op, const OpDesc& desc, std::span<const OpId> deps)
    MOCKDEV_REQUIRES(g_engine_mutex) {
  OpRecord r;
  r.id = op.id;
  r.queue = op.queue;
  r.kind = op.kind;
  r.name = desc.name;
  if (desc.read.bytes != 0) r.reads.push_back(desc.read);
  r.reads.insert(r.reads.end(), desc.more_reads.begin(), desc.more_reads.end());
  if (desc.write.bytes != 0) r.writes.push_back(desc.write);
  r.writes.insert(r.writes.end(), desc.more_writes.begin(), desc.more_writes.end());
  r.unknown_accesses = desc.unknown_accesses;
  r.deps.assign(deps.begin(), deps.end());
  r.host_epoch = t.host_epoch;
  for (auto& o : observers()) o->on_enqueue(r);
}

void host_learns(TimelineState& t, OpId id) MOCKDEV_REQUIRES(g_engine_mutex) {
  if (id == 0) return;
  t.host_ns = std::max(t.host_ns, end_of(t, id));
  ++t.host_epoch;
  ++t.stats.host_waits;
  for (auto& o : observers()) o->on_host_wait(id, t.host_epoch);
}

}  // namespace

std::uint64_t transfer_ns(std::uint64_t bytes, double gb_per_s) {
  const double ns = static_cast<double>(bytes) / gb_per_s;  // bytes / (GB/s) = ns
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(ns)));
}

std::uint64_t create_queue(int device, std::string label) {
  TimelineState& t = timeline();
  const std::uint64_t id = t.queues.size() + 1;
  t.queues.push_back(Queue{id, device, std::move(label), 0, true, 0});
  ++t.stats.queues;
  const QueueInfo info{id, device, t.queues.back().label};
  for (auto& o : observers()) o->on_queue_created(info);
  return id;
}

void destroy_queue(std::uint64_t queue) {
  TimelineState& t = timeline();
  if (queue == 0 || queue > t.queues.size() || !t.queues[queue - 1].alive) return;
  t.queues[queue - 1].alive = false;
  for (auto& o : observers()) o->on_queue_destroyed(queue);
}

void cancel_queue(std::uint64_t queue) {
  TimelineState& t = timeline();
  if (queue == 0 || queue > t.queues.size()) return;
  for (Op& op : t.ops) {
    if (op.queue == queue && op.state == OpState::kPending) {
      op.state = OpState::kCancelled;
      op.action.staged.reset();
      op.action.keep.reset();
      --t.queues[queue - 1].pending;
      --t.stats.pending;
    }
  }
  destroy_queue(queue);
}

OpId queue_tail(std::uint64_t queue) {
  TimelineState& t = timeline();
  if (queue == 0 || queue > t.queues.size()) return 0;
  return t.queues[queue - 1].tail;
}

OpId enqueue(std::uint64_t queue, OpDesc&& desc, std::span<const OpId> deps) {
  TimelineState& t = timeline();
  const StreamSettings& s = settings();
  const OpId id = t.next_id++;
  Op& op = t.ops.emplace_back();
  op.id = id;
  op.queue = queue;
  op.kind = desc.kind;
  op.ready_ns = t.host_ns + s.timing.launch_latency_ns;
  op.duration_ns = desc.duration_ns;
  bool ready = true;
  for (OpId d : deps) {
    if (d == 0 || std::find(op.deps.begin(), op.deps.end(), d) != op.deps.end()) continue;
    op.deps.push_back(d);
    if (!complete(t, d)) ready = false;
  }
  op.action = std::move(desc.action);
  Queue& q = t.queues[queue - 1];
  if (q.tail != 0) {
    auto it = t.kept.find(q.tail);
    if (it != t.kept.end() && !it->second.pinned) t.kept.erase(it);
  }
  q.tail = id;
  ++q.pending;
  ++t.stats.pending;
  ++t.stats.enqueued;
  if (!observers().empty()) {
    announce(t, op, desc, op.deps);
    if (desc.event_record != 0) {
      for (auto& o : observers()) o->on_event_flow(desc.event_record, id);
    }
  }

  switch (s.schedule) {
    case StreamSettings::Schedule::kEager:
      if (ready) {
        complete_now(id);
      } else {
        drain_ready();
      }
      break;
    case StreamSettings::Schedule::kRandom:
      progress_point();
      break;
    case StreamSettings::Schedule::kAdversarial:
      break;
  }
  prune(timeline());
  return id;
}

bool is_complete(OpId op) { return complete(timeline(), op); }

void progress_point() {
  if (settings().schedule != StreamSettings::Schedule::kRandom) return;
  TimelineState& t = timeline();
  if (t.stats.pending == 0) return;
  // One pass in id order; an op made ready by an earlier completion in this pass may go too.
  for (OpId id = t.base; id < timeline().next_id; ++id) {
    TimelineState& now = timeline();
    Op* op = find(now, id);
    if (op == nullptr || op->state != OpState::kPending || !deps_complete(now, *op)) continue;
    if ((next_random(now) & 1u) == 0) continue;
    complete_now(id);
  }
}

bool query(std::span<const OpId> ops) {
  progress_point();
  TimelineState& t = timeline();
  for (OpId id : ops) {
    if (!complete(t, id)) return false;
  }
  for (OpId id : ops) host_learns(t, id);
  return true;
}

WaitResult wait_for(std::span<const OpId> targets, std::string_view caller,
                    bool tell_observers) {
  for (;;) {
    TimelineState& t = timeline();
    // Every incomplete ancestor of the targets, in id order (dependencies come first).
    std::vector<OpId> needed;
    std::vector<OpId> stack;
    std::vector<bool> seen(static_cast<std::size_t>(t.next_id - t.base));
    for (OpId id : targets) {
      if (!complete(t, id)) stack.push_back(id);
    }
    while (!stack.empty()) {
      const OpId id = stack.back();
      stack.pop_back();
      if (id < t.base || id >= t.next_id || seen[id - t.base]) continue;
      seen[id - t.base] = true;
      needed.push_back(id);
      const Op* op = find(t, id);
      if (op == nullptr || op->state != OpState::kPending) continue;
      for (OpId d : op->deps) {
        if (!complete(t, d)) stack.push_back(d);
      }
    }
    if (needed.empty()) break;
    std::sort(needed.begin(), needed.end());
    bool restart = false;
    for (OpId id : needed) {
      TimelineState& now = timeline();
      Op* op = find(now, id);
      if (op == nullptr || op->state == OpState::kComplete) continue;
      if (op->state == OpState::kCancelled) {
        const Op* target = nullptr;
        for (OpId tid : targets) {
          if (!complete(now, tid)) target = find(now, tid);
        }
        const Queue& blocked = now.queues[(target != nullptr ? target->queue : op->queue) - 1];
        std::fprintf(stderr,
                     "mockdev: deadlock: %.*s waits for operation %llu on queue '%s', which "
                     "can never complete: it needs operation %llu on queue '%s', cancelled "
                     "when that queue's context was released\n",
                     static_cast<int>(caller.size()), caller.data(),
                     static_cast<unsigned long long>(target != nullptr ? target->id : id),
                     blocked.label.c_str(), static_cast<unsigned long long>(id),
                     now.queues[op->queue - 1].label.c_str());
        return WaitResult::kDeadlock;
      }
      if (op->state == OpState::kRunning) {
        g_engine_mutex.wait(&g_host_call_done);  // another thread runs its host function
        restart = true;
        break;
      }
      // Pending, and (id order) its dependencies are complete or running elsewhere.
      if (!deps_complete(now, *op)) {
        g_engine_mutex.wait(&g_host_call_done);
        restart = true;
        break;
      }
      const bool host_call = op->action.kind == ActionKind::kHostCall;
      complete_now(id);
      if (host_call) {
        restart = true;  // the lock was released: look again
        break;
      }
    }
    if (!restart) break;
  }
  TimelineState& t = timeline();
  for (OpId id : targets) {
    if (!complete(t, id)) return WaitResult::kDone;  // a new machine replaced this one
  }
  if (tell_observers) {
    for (OpId id : targets) host_learns(t, id);
  }
  if (settings().schedule == StreamSettings::Schedule::kEager) drain_ready();
  return WaitResult::kDone;
}

std::uint64_t end_time(OpId op) { return end_of(timeline(), op); }

void keep_end_time(OpId op) {
  TimelineState& t = timeline();
  Kept& k = t.kept[op];
  k.pinned = true;
  if (const Op* o = find(t, op); o != nullptr && o->state == OpState::kComplete) {
    k.end_ns = o->end_ns;
  }
}

void forget_end_time(OpId op) {
  TimelineState& t = timeline();
  auto it = t.kept.find(op);
  if (it == t.kept.end()) return;
  bool is_tail = false;
  for (const Queue& q : t.queues) is_tail = is_tail || q.tail == op;
  if (is_tail) {
    it->second.pinned = false;
  } else {
    t.kept.erase(it);
  }
}

std::uint64_t host_time_ns() { return timeline().host_ns; }

void note_event_flow(OpId record, OpId wait) {
  for (auto& o : observers()) o->on_event_flow(record, wait);
}

bool in_host_function() noexcept { return t_host_function_depth > 0; }

TimelineStats timeline_stats() { return timeline().stats; }

std::vector<OpId> pending_ops(std::uint64_t queue) {
  TimelineState& t = timeline();
  std::vector<OpId> ids;
  for (const Op& op : t.ops) {
    if (op.queue == queue && (op.state == OpState::kPending || op.state == OpState::kRunning)) {
      ids.push_back(op.id);
    }
  }
  return ids;
}

}  // namespace mockdev::core
