// The fork tests are only as good as their child runner: these check that a failed
// expectation, an escaped exception and a hang in a child are all reported to the parent
// (never a silent pass). They do not touch the runtime.

#include "child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace accel::test {
namespace {

TEST(ChildProcessHarness, ReportsSuccess) {
  const ChildStatus status = run_in_child([] {});
  EXPECT_TRUE(status.ok()) << status.describe();
  EXPECT_EQ(status.describe(), "exited with kOk (0)");
}

TEST(ChildProcessHarness, ReportsAFailedExpectation) {
  const ChildStatus status = run_in_child([] {
    std::printf("(an expected failure inside a child follows)\n");
    ADD_FAILURE() << "deliberate failure inside the child";
  });
  EXPECT_TRUE(status.exited);
  EXPECT_EQ(status.exit_code, static_cast<int>(ChildExit::kExpectationFailed)) << status.describe();
}

TEST(ChildProcessHarness, ReportsAnEscapedException) {
  const ChildStatus status = run_in_child([] { throw std::runtime_error("escaped"); });
  EXPECT_EQ(status.exit_code, static_cast<int>(ChildExit::kUnexpectedException))
      << status.describe();
  const ChildStatus unknown = run_in_child([] { throw 7; });
  EXPECT_EQ(unknown.exit_code, static_cast<int>(ChildExit::kUnknownException))
      << unknown.describe();
}

TEST(ChildProcessHarness, ReportsAHangAsATimeout) {
  const ChildStatus status = run_in_child([] { pause(); }, 1);
  EXPECT_TRUE(status.timed_out()) << status.describe();
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace accel::test
