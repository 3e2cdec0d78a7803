// The race policy `fail` (Note [Failing on races] in core/process_exit.h): races are
// reported and the program runs on; its process then exits with kRaceFailureExitStatus and
// one last stderr line, after the program's own exit work; a forked child does not inherit
// the count; control::finish_process does the same for a process that leaves with _exit().
// Each case runs in a child (EXPECT_EXIT), since it changes how its process ends.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/engine_lock.h"
#include "core/keep_forever.h"
#include "core/op_observer.h"
#include "mockdev/control.h"
#include "mockdev/exit.h"
#include "mockdev/races.h"
#include "observer_driver.h"

namespace mockdev::testing {
namespace {

// Installs observers for `machine` as the engine does (make_observers: the race log takes
// the policy in force) and makes `n` races between two queues of device 0.
void make_races(const MachineSpec& machine, int n) {
  core::EngineLock lock;
  // Leaked, as the engine leaks its observers (Note [Leaky state]).
  auto* observers = new std::vector<std::unique_ptr<core::OpObserver>>(core::make_observers(machine));
  core::keep_forever(observers);  // kept on purpose: a leak checker must not report it
  ObserverDriver d(*observers->back());  // the race detector comes last
  const auto s1 = d.queue(0, "s1");
  const auto s2 = d.queue(0, "s2");
  for (int i = 0; i < n; ++i) {
    d.kernel(s1, {}, {dev_range(0, static_cast<std::uint64_t>(i) * 64, 8)});
    d.kernel(s2, {}, {dev_range(0, static_cast<std::uint64_t>(i) * 64, 8)});
  }
}

MachineSpec machine_with(RacePolicy policy) {
  MachineSpec machine = load_machine("1xa100");
  machine.streams.races = policy;
  return machine;
}

void own_exit_work() { std::fputs("the program's own exit work\n", stderr); }

TEST(RaceFailPolicy, TheProcessExitsWith86AfterItsOwnExitWork) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_RACES", "fail", 1);
        std::atexit(own_exit_work);  // registered before the races: still runs, first
        make_races(machine_with(RacePolicy::kReport), 3);
        std::fprintf(stderr, "the program ran on after %llu races\n",
                     static_cast<unsigned long long>(control::failing_race_count()));
        std::exit(0);
      },
      ::testing::ExitedWithCode(86),
      "the program ran on after 3 races\nthe program's own exit work\nmockdev: 3 races "
      "reported \\(MOCKDEV_RACES=fail\\): exit status 86\n$");
}

TEST(RaceFailPolicy, TheMachineFilesPolicyIsNamedAsItsKey) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        unsetenv("MOCKDEV_RACES");
        make_races(machine_with(RacePolicy::kFail), 1);
        std::exit(3);  // the program's own status gives way to the race failure
      },
      ::testing::ExitedWithCode(control::kRaceFailureExitStatus),
      "\nmockdev: 1 race reported \\(streams.races: fail\\): exit status 86\n$");
}

TEST(RaceFailPolicy, ReportKeepsTheProgramsExitStatus) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_RACES", "report", 1);
        make_races(machine_with(RacePolicy::kFail), 2);  // the variable overrides the file
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "mockdev: data race");
}

TEST(RaceFailPolicy, ResetAndClearRacesDoNotForgetFailingRaces) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        unsetenv("MOCKDEV_RACES");
        make_races(machine_with(RacePolicy::kFail), 1);
        control::clear_races();
        make_races(machine_with(RacePolicy::kReport), 2);  // not counted: report
        std::fprintf(stderr, "log %llu, failing %llu\n",
                     static_cast<unsigned long long>(control::race_count()),
                     static_cast<unsigned long long>(control::failing_race_count()));
        std::exit(0);
      },
      ::testing::ExitedWithCode(86),
      "log 2, failing 1\nmockdev: 1 race reported \\(streams.races: fail\\): exit status 86\n$");
}

TEST(RaceFailPolicy, AForkedChildDoesNotInheritItsParentsRaces) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_RACES", "fail", 1);
        make_races(machine_with(RacePolicy::kReport), 1);
        const pid_t child = fork();
        if (child == 0) {
          std::fprintf(stderr, "child counts %llu\n",
                       static_cast<unsigned long long>(control::failing_race_count()));
          std::exit(0);
        }
        int status = -1;
        waitpid(child, &status, 0);
        std::fprintf(stderr, "child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        std::exit(0);
      },
      ::testing::ExitedWithCode(86),
      "child counts 0\nchild exited 0\nmockdev: 1 race reported \\(MOCKDEV_RACES=fail\\): "
      "exit status 86\n$");
}

TEST(RaceFailPolicy, FinishProcessDoesTheExitWorkNowAndOnce) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_RACES", "fail", 1);
        make_races(machine_with(RacePolicy::kReport), 2);
        const int status = control::finish_process(0);
        std::fprintf(stderr, "finish_process returned %d\n", status);
        std::exit(0);  // the exit hook does nothing more
      },
      ::testing::ExitedWithCode(0),
      "\nmockdev: 2 races reported \\(MOCKDEV_RACES=fail\\): exit status 86\nfinish_process "
      "returned 86\n$");
}

TEST(RaceFailPolicy, FinishProcessWithoutFailingRacesKeepsTheStatus) {
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_RACES", "report", 1);
        make_races(machine_with(RacePolicy::kReport), 1);
        std::fprintf(stderr, "finish_process returned %d\n", control::finish_process(5));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "\nfinish_process returned 5\n$");
}

}  // namespace
}  // namespace mockdev::testing
