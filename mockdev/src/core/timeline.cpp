// The virtual-time stream engine (timeline.h): queues, enqueue, completion and its virtual
// times, pruning. Host waits, queries and host functions: host_wait.cpp.

#include "core/timeline.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "core/engine.h"
#include "core/memory.h"
#include "core/race_call_site.h"
#include "core/timeline_state.h"

namespace mockdev::core {
namespace detail {

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
      if (op.state != OpState::kRunning) continue;
      op.state = OpState::kCancelled;
      --state->queues[op.queue - 1].pending;
      --state->stats.pending;
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

bool deps_complete(TimelineState& t, const Op& op) {
  for (OpId d : op.deps) {
    if (!complete(t, d)) return false;
  }
  return true;
}

namespace {

// Whether the device side(s) of a byte move still lie in live allocations.
bool device_ranges_live(const OpAction& a) MOCKDEV_REQUIRES(g_engine_mutex) {
  const auto live = [&](std::uint64_t address) MOCKDEV_NO_THREAD_SAFETY_ANALYSIS {
    return find_containing(address, a.bytes, nullptr).has_value();
  };
  switch (a.kind) {
    case ActionKind::kFill:
    case ActionKind::kHostToDevice:
    case ActionKind::kStagedToDevice:
      return live(a.dst);
    case ActionKind::kCopyDevice:
      return live(a.dst) && live(a.src);
    case ActionKind::kDeviceToHost:
      return live(a.src);
    default:
      return true;
  }
}

}  // namespace

// Runs a completed op's byte move and tells the observers. The op's dependencies are
// complete; for a host call, the function already ran.
void finish(TimelineState& t, Op& op) MOCKDEV_REQUIRES(g_engine_mutex) {
  std::uint64_t start = op.ready_ns;
  for (OpId d : op.deps) start = std::max(start, end_of(t, d));
  op.start_ns = start;
  op.end_ns = start + op.duration_ns;
  OpAction& a = op.action;
  // Note [Freed memory]: an operation whose device range was freed before it ran (memory
  // freed with work still pending on it) moves nothing.
  if (!device_ranges_live(a)) a.kind = ActionKind::kNone;
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

}  // namespace detail

namespace {

using namespace detail;  // NOLINT: the timeline's own helpers

// The calling thread's OS id, cached per thread: a gettid() system call per operation would sit
// on the op path (Note [Op path cost]). Recomputed in a forked child, whose thread has a new id.
std::uint64_t this_thread_id() {
  thread_local pid_t cached_pid = 0;
  thread_local pid_t cached_tid = 0;
  const pid_t pid = current_pid();
  if (cached_pid != pid) {
    cached_pid = pid;
    cached_tid = gettid();
  }
  return static_cast<std::uint64_t>(cached_tid);
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
  r.caller = current_caller();  // only here: no observer, no cost
  r.host_ns = t.host_ns;
  r.host_thread = this_thread_id();
  for (auto& o : observers()) o->on_enqueue(r);
}

}  // namespace

using namespace detail;  // NOLINT

std::uint64_t transfer_ns(std::uint64_t bytes, double gb_per_s) {
  const double ns = static_cast<double>(bytes) / gb_per_s;  // bytes / (GB/s) = ns
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(ns)));
}

std::uint64_t create_queue(int device, std::string label, std::string handle) {
  TimelineState& t = timeline();
  const std::uint64_t id = t.queues.size() + 1;
  t.queues.push_back(Queue{id, device, std::move(label), 0, true, 0});
  ++t.stats.queues;
  const QueueInfo info{id, device, t.queues.back().label, std::move(handle)};
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

  if (s.schedule != StreamSettings::Schedule::kEager && op.action.kind == ActionKind::kHostCall) {
    ensure_progress_thread();
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
