#pragma once
// The races of the installed machine, as the control API (mockdev/races.h) reports them: a
// RaceListener that make_observers gives to the race detector, started afresh at every
// machine installation. Leaky process state (Note [Leaky state] in core/engine.h) under the
// engine lock; the detector calls it with the lock held, as it is itself called.
// Also the process's count of races found under RacePolicy::kFail (Note [Failing on
// races] in core/process_exit.h), which outlives machine installations and clear_races().

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
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

// Note [Race summary]
// Under RacePolicy::kReport a program runs on after each race block, and a long run can
// print hundreds of blocks for a handful of bugs. So the process keeps a count of its races
// per pair of call sites (the earlier operation's, the later one's: RaceAccess::call_site,
// symbolised) over every machine it installs, and prints them once at exit on stderr,
// most frequent first (at most kSummaryPairs lines):
//   ==================== mockdev: race summary ====================
//   3 races found (race policy 'report'), by call sites (earlier operation -> later one):
//        2  app.cpp:10 main -> app.cpp:12 main
//        1  (call site unknown) -> app.cpp:20 f
//   ===============================================================
// At exit: a destructor function of libmockdev.so (as Note [Failing on races] says, after
// the program's own exit work), or control::finish_process() for a process that leaves
// with _exit(); whichever comes first prints it. A forked child does not print its
// parent's races. Races under `fail` and `abort` are not summarised, and a process that
// found races under `fail` prints no summary at all: it ends with its failing line. The counts have
// a lock of their own, never the engine lock, so exiting while another thread holds the engine lock
// cannot deadlock.
inline constexpr std::size_t kSummaryPairs = 20;

// The summary text above; "" when this process found no race under `report`.
std::string race_summary();
// Prints race_summary() on `out` unless it is empty or was printed already.
void print_race_summary_once(std::FILE* out) noexcept;

}  // namespace mockdev::core
