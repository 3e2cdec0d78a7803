// The exit hook of the race policy `fail`: Note [Failing on races] in core/process_exit.h.

#include "core/process_exit.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <iostream>

#include "mockdev/races.h"

namespace mockdev::core {
namespace {

std::atomic<bool> g_disarmed{false};

// Runs from _dl_fini at process exit (libmockdev is never unloaded: -z nodelete).
__attribute__((destructor)) void fail_exit_on_races() {
  if (g_disarmed.load()) return;
  const FailingRaces races = failing_races();
  if (races.count == 0) return;
  try {
    std::cout.flush();
    std::cerr.flush();
    std::fputs((failing_races_line(races) + "\n").c_str(), stderr);
  } catch (...) {
    std::fputs("mockdev: races reported under the race policy 'fail'\n", stderr);
  }
  std::fflush(nullptr);
  _exit(control::kRaceFailureExitStatus);
}

}  // namespace

std::string failing_races_line(const FailingRaces& races) {
  return "mockdev: " + std::to_string(races.count) + (races.count == 1 ? " race" : " races") +
         " reported (" + (races.set_by_variable ? "MOCKDEV_RACES=fail" : "streams.races: fail") +
         "): exit status " + std::to_string(control::kRaceFailureExitStatus);
}

void disarm_race_exit_hook() noexcept { g_disarmed.store(true); }

}  // namespace mockdev::core
