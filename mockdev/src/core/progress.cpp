// The progress thread of the random and adversarial schedules (Note [Progress guarantee] in
// core/timeline.h).

#include <chrono>
#include <cstdio>
#include <set>
#include <system_error>
#include <thread>
#include <vector>

#include "core/engine.h"
#include "core/timeline.h"
#include "core/timeline_state.h"

namespace mockdev::core::detail {
namespace {

// The process whose progress thread is running (0: none); a forked child starts its own.
pid_t g_progress_pid = 0;

// Pending host functions, in id order, but for those that can never run (`stuck`).
std::vector<OpId> pending_host_calls(TimelineState& t, const std::set<OpId>& stuck)
    MOCKDEV_REQUIRES(g_engine_mutex) {
  std::vector<OpId> ids;
  for (OpId id = t.base; id < t.next_id; ++id) {
    const Op* op = find(t, id);
    if (op != nullptr && op->state == OpState::kPending &&
        op->action.kind == ActionKind::kHostCall && stuck.count(id) == 0) {
      ids.push_back(id);
    }
  }
  return ids;
}

[[noreturn]] void progress_loop() {
  constexpr auto kTick = std::chrono::milliseconds(kProgressIdleMs / 4);
  std::uint64_t seen_generation = 0, seen_calls = 0;
  unsigned idle_ticks = 0;
  std::set<OpId> stuck;  // needs cancelled work (Note [Deadlocks]): reported once, not retried
  for (;;) {
    std::this_thread::sleep_for(kTick);
    EngineLock lock;
    TimelineState& t = timeline();
    if (settings().schedule == StreamSettings::Schedule::kEager || t.stats.pending == 0 ||
        t.generation != seen_generation || t.driver_calls != seen_calls) {
      if (t.generation != seen_generation) stuck.clear();
      seen_generation = t.generation;
      seen_calls = t.driver_calls;
      idle_ticks = 0;
      continue;
    }
    if (++idle_ticks < 4) continue;
    idle_ticks = 0;
    for (OpId id : pending_host_calls(t, stuck)) {
      const OpId one[] = {id};
      if (wait_for(one, "the progress thread", /*tell_observers=*/false) == WaitResult::kDeadlock) {
        stuck.insert(id);
      }
    }
    seen_calls = timeline().driver_calls;
  }
}

}  // namespace

void ensure_progress_thread() {
  const pid_t pid = current_pid();
  if (g_progress_pid == pid) return;
  g_progress_pid = pid;
  try {
    std::thread(progress_loop).detach();
  } catch (const std::system_error& e) {
    std::fprintf(stderr,
                 "mockdev: no progress thread (%s): a program that waits for a stream callback "
                 "without a driver call will wait until it makes one\n",
                 e.what());
  }
}

}  // namespace mockdev::core::detail
