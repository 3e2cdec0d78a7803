// Host waits, queries, random progress and host functions of the stream engine
// (timeline.h; Notes [Scheduler], [Host functions], [Deadlocks]).

#include <pthread.h>

#include <algorithm>
#include <cstdio>

#include "core/engine.h"
#include "core/timeline.h"
#include "core/timeline_state.h"

namespace mockdev::core {
namespace {

using namespace detail;  // NOLINT: the timeline's own helpers

thread_local int t_host_function_depth = 0;
pthread_cond_t g_host_call_done = PTHREAD_COND_INITIALIZER;

std::uint64_t next_random(TimelineState& t) {
  // SplitMix64: small, seedable, and the same everywhere.
  std::uint64_t z = (t.rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Runs the host function of `id` with the lock released, then finishes it. On return the
// lock is held again; references into the op list may have moved (look ops up by id).
void run_host_call(OpId id) MOCKDEV_REQUIRES(g_engine_mutex) {
  TimelineState& t = timeline();
  Op* op = find(t, id);
  op->state = OpState::kRunning;
  op->runner = std::this_thread::get_id();
  const HostCallFn fn = op->action.call;
  const std::uintptr_t a0 = op->action.args[0], a1 = op->action.args[1], a2 = op->action.args[2];
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
  // Eager: what waited only for this host function completes now.
  if (settings().schedule == StreamSettings::Schedule::kEager) drain_ready();
}

void host_learns(TimelineState& t, OpId id) MOCKDEV_REQUIRES(g_engine_mutex) {
  if (id == 0) return;
  t.host_ns = std::max(t.host_ns, end_of(t, id));
  ++t.host_epoch;
  ++t.stats.host_waits;
  for (auto& o : observers()) o->on_host_wait(id, t.host_epoch);
}

}  // namespace

namespace detail {

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

}  // namespace detail

void progress_point() {
  TimelineState& t = timeline();
  ++t.driver_calls;
  if (settings().schedule != StreamSettings::Schedule::kRandom) return;
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

WaitResult wait_for(std::span<const OpId> targets, std::string_view caller, bool tell_observers) {
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

bool in_host_function() noexcept { return t_host_function_depth > 0; }

}  // namespace mockdev::core
