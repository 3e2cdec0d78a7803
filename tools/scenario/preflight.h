#pragma once
// What the runner checks before any scenario runs (docs/SCENARIOS.md, "The runner"): each
// problem is a usage error (exit status 2) with one line naming the setting and its value,
// because a setting that cannot work must fail the run rather than be quietly ignored.
//
// - The simulated hardware's own variables in the runner's environment (MOCKDEV_MACHINE,
//   MOCKDEV_SCHEDULE, MOCKDEV_SEED, MOCKDEV_RACES) would change nothing: every scenario
//   takes its machine and stream settings from its own file. (A host's CUDA_VISIBLE_DEVICES,
//   ACCEL_BACKEND and ACCEL_REQUIRE_DEVICES are its programs' settings, not the runner's:
//   scenarios start with them unset, as documented, and they are not refused.) MOCKDEV_LEAKS
//   is refused too: a scenario process runs the runtime, whose stream pool and cached memory
//   are live at exit by design, so every scenario would report them.
// - MOCKDEV_TRACE names the one file every scenario process writes its trace to, so it must
//   be writable now (accel::common::open_for_writing: a directory or a FIFO nobody reads is
//   refused at once, never a hang), must not be the runner's own report (its stdout or
//   stderr), and may serve one scenario run only: several would replace each other's trace.
//   The runner holds the file open while the scenarios run, so a FIFO's reader sees the
//   trace's end only when the run ends.
// - A scenario may name at most kMaxScenarioThreads threads (executor.h).
//
// Call from the runner's single thread, before any scenario process starts.

#include <optional>
#include <string>
#include <vector>

#include "accel_common/bounded_file.h"
#include "scenario.h"

namespace accel::scenario {

// "MOCKDEV_RACES='fail' is set, but ..." for the first refused variable that is set and
// non-empty; nullopt when none is.
std::optional<std::string> refused_environment();

// The MOCKDEV_TRACE target, checked and held open for the run.
struct TraceTarget {
  std::string path;              // "" when MOCKDEV_TRACE is unset or empty
  accel::common::UniqueFd fd;    // open while the run lasts
};

// Opens MOCKDEV_TRACE when it is set, for `scenarios` scenarios run once each (`sweep`:
// once per driver call, which is always more than one run). On a problem returns nullopt
// with the message in `error`.
std::optional<TraceTarget> open_trace_target(std::size_t scenarios, bool sweep,
                                             std::string& error);

// "<file>: threads: expected at most 64 thread names, got 10000" for the first scenario
// with too many threads; nullopt when every scenario is within the limit.
std::optional<std::string> thread_limit_error(const std::vector<Scenario>& scenarios);

}  // namespace accel::scenario
