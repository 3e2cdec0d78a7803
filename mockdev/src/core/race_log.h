#pragma once
// The races of the installed machine, as the control API (mockdev/races.h) reports them: a
// RaceListener that make_observers gives to the race detector, started afresh at every
// machine installation. Leaky process state (Note [Leaky state] in core/engine.h) under the
// engine lock; the detector calls it with the lock held, as it is itself called.
// Also the process's count of races found under RacePolicy::kFail (Note [Failing on
// races] in core/process_exit.h), which outlives machine installations and clear_races().

#include <cstdint>
#include <vector>

#include "core/engine_lock.h"
#include "core/race_detector.h"

namespace mockdev::core {

RaceListener& race_log() MOCKDEV_REQUIRES(g_engine_mutex);
// Empties the log for a new machine and records its policy: races found while `policy` is
// RacePolicy::kFail also count for failing_races(); `set_by_variable` says whether
// MOCKDEV_RACES chose it (for the message at exit).
void begin_race_log(RacePolicy policy, bool set_by_variable) MOCKDEV_REQUIRES(g_engine_mutex);
// The races kept (at most control::kMaxKeptRaces) and the number found.
std::vector<control::Race> logged_races() MOCKDEV_REQUIRES(g_engine_mutex);
std::uint64_t logged_race_count() MOCKDEV_REQUIRES(g_engine_mutex);
// Empties the log (control::clear_races); failing_races() keeps its count.
void clear_race_log() MOCKDEV_REQUIRES(g_engine_mutex);

// The races found under RacePolicy::kFail by this process, over every machine it installed;
// a forked child starts from none (they are its parent's). Lock-free: the exit hook reads it
// whatever thread holds the engine lock.
struct FailingRaces {
  std::uint64_t count = 0;
  bool set_by_variable = false;  // MOCKDEV_RACES=fail chose the policy of the latest one
};
FailingRaces failing_races() noexcept;

}  // namespace mockdev::core
