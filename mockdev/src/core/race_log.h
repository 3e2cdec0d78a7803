#pragma once
// The races of the installed machine, as the control API (mockdev/races.h) reports them: a
// RaceListener that make_observers gives to the race detector, emptied at every machine
// installation. Leaky process state (Note [Leaky state] in core/engine.h) under the engine
// lock; the detector calls it with the lock held, as it is itself called.

#include <cstdint>
#include <vector>

#include "core/engine_lock.h"
#include "core/race_detector.h"

namespace mockdev::core {

RaceListener& race_log() MOCKDEV_REQUIRES(g_engine_mutex);
// The races kept (at most control::kMaxKeptRaces) and the number found.
std::vector<control::Race> logged_races() MOCKDEV_REQUIRES(g_engine_mutex);
std::uint64_t logged_race_count() MOCKDEV_REQUIRES(g_engine_mutex);
void clear_race_log() MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
