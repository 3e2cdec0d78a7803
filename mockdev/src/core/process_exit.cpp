// The exit hook of the race policy `fail`: Note [Failing on races] in core/process_exit.h.

#include "core/process_exit.h"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>

#include "core/leak_report.h"
#include "mockdev/exit.h"
#include "mockdev/races.h"

namespace mockdev::core {
namespace {

std::atomic<bool> g_disarmed{false};

// Runs from _dl_fini at process exit (libmockdev is never unloaded: -z nodelete).
// Also the leak report's (Note [Leak report] in core/leak_report.h): one hook, so the report
// is printed before a failing status ends the process, whatever order the C library runs
// destructor functions in.
__attribute__((destructor)) void fail_exit_on_races() {
  if (g_disarmed.load()) return;
  try {
    std::cout.flush();
    std::cerr.flush();
  } catch (...) {
  }
  const std::uint64_t leaks = report_leaks_once(stderr);
  const FailingRaces races = failing_races();
  if (races.count == 0 && leaks == 0) return;
  try {
    const std::string line =
        races.count != 0 ? failing_races_line(races) : failing_leaks_line(leaks);
    std::fputs((line + "\n").c_str(), stderr);
  } catch (...) {
    std::fputs("mockdev: the run failed under MOCKDEV_RACES=fail or MOCKDEV_LEAKS=fail\n", stderr);
  }
  std::fflush(nullptr);
  _exit(races.count != 0 ? control::kRaceFailureExitStatus : control::kLeakFailureExitStatus);
}

}  // namespace

std::string failing_races_line(const FailingRaces& races) {
  return "mockdev: " + std::to_string(races.count) + (races.count == 1 ? " race" : " races") +
         " reported (" + (races.set_by_variable ? "MOCKDEV_RACES=fail" : "streams.races: fail") +
         "): exit status " + std::to_string(control::kRaceFailureExitStatus);
}

void disarm_race_exit_hook() noexcept { g_disarmed.store(true); }

}  // namespace mockdev::core
