#pragma once
// Running one scenario in the current process: sets the scenario's environment, installs
// its machine through the control API, starts its threads and runs its steps, checking
// each step's expectations and stopping at the first that does not hold.
//
// The process must be fresh (the runtime never used in it): the runner gives each
// scenario a process of its own (runner.h), so lazy initialisation, fork poisoning and
// the per-thread device cache start from nothing, and a scenario that forks, crashes or
// hangs cannot disturb the next one.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "scenario.h"

namespace accel::scenario {

// At most this many threads besides `main` per scenario: enough for any interleaving a
// scenario needs, and far below what a host lets one process start. The runner refuses a
// file over it before anything runs (preflight.h); execute() checks it too.
inline constexpr std::size_t kMaxScenarioThreads = 64;

// A fault installed when the run starts (fault sweeps, sweep.h).
struct InjectedFault {
  std::string entry_point;  // exported symbol
  std::uint64_t nth = 1;    // the nth call from the start of the run
  int code = 0;
};

struct ExecuteOptions {
  std::uint64_t seed = 0;  // the runner's --seed (the `run_seed` argument of seed steps)
  // Sweep mode: expectations are not checked; instead the run records invariant
  // violations ("VIOLATION: ..." lines) and ends with one "SWEEP-RESULT {json}" line
  // (calls made by the steps, whether the runtime was usable once the fault was cleared).
  bool sweep = false;
  std::optional<InjectedFault> fault;
};

// Runs `scenario` here. Writes the report to `out`: nothing but a summary when every
// step held, else the failing step with what was expected and what happened. Returns
// 0 when every step held (sweep mode: when no invariant was violated), 1 otherwise (also
// when a thread cannot be started, or the trace MOCKDEV_TRACE asks for was not written),
// or mockdev::control::kRaceFailureExitStatus when races were found under the race policy
// `fail`. Ends with mockdev::control::finish_process(), so the caller may leave with _exit().
int execute(const Scenario& scenario, const ExecuteOptions& options, std::ostream& out);

}  // namespace accel::scenario
