// The end of a process (mockdev/exit.h) over the trace (core/trace_writer.h), the leak report
// (core/leak_report.h) and the race policy's exit hook (core/process_exit.h).

#include <cstdint>
#include <cstdio>

#include "core/engine_lock.h"
#include "core/leak_report.h"
#include "core/process_exit.h"
#include "core/race_log.h"
#include "core/trace_writer.h"
#include "mockdev/exit.h"

namespace mockdev::control {

int finish_process(int status) {
  {
    core::EngineLock lock;
    core::finish_process_trace();
  }
  core::disarm_race_exit_hook();
  core::print_race_summary_once(stderr);  // Note [Race summary] in core/race_log.h
  const std::uint64_t leaks = core::report_leaks_once(stderr);  // Note [Leak report]
  const core::FailingRaces races = core::failing_races();
  if (races.count != 0) {
    std::fputs((core::failing_races_line(races) + "\n").c_str(), stderr);
    std::fflush(stderr);
    return kRaceFailureExitStatus;
  }
  if (leaks == 0) return status;
  std::fputs((core::failing_leaks_line(leaks) + "\n").c_str(), stderr);
  std::fflush(stderr);
  return kLeakFailureExitStatus;
}

std::optional<std::string> trace_error() {
  core::EngineLock lock;
  return core::process_trace_error();
}

}  // namespace mockdev::control
