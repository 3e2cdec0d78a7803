// What makes a race report actionable (Note [Call sites of operations] in
// core/race_call_site.h, Note [Race summary] in core/race_log.h): the caller captured per
// operation, symbolised as file:line and function; queues named by the program's handle;
// the summary by pair of call sites.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "core/engine_lock.h"
#include "core/race_call_site.h"
#include "core/race_detector.h"
#include "core/race_log.h"
#include "mockdev/races.h"
#include "observer_driver.h"

namespace mockdev::testing {
namespace {

// The return address of a call of this function: an address inside the caller, right
// after the call, as a driver entry point sees its caller's.
[[gnu::noinline]] const void* return_address_here() {
  const void* address = __builtin_return_address(0);
  asm volatile("" ::: "memory");  // not a tail call: the address stays the caller's
  return address;
}

TEST(RaceCallSite, ScopesNestAndRestoreTheCaller) {
  int a = 0, b = 0;
  EXPECT_EQ(core::current_caller(), nullptr);
  {
    const core::CallerScope outer(&a);
    EXPECT_EQ(core::current_caller(), &a);
    {
      const core::CallerScope inner(&b);  // a host function calling the driver
      EXPECT_EQ(core::current_caller(), &b);
    }
    EXPECT_EQ(core::current_caller(), &a);
  }
  EXPECT_EQ(core::current_caller(), nullptr);
}

// Inside a runtime call that queues work (the tool interface's enter/leave, exported by
// libmockdev), driver calls carry the program's address the runtime gave, not their own.
extern "C" void accel_tool_enter_api(const void* caller);
extern "C" void accel_tool_leave_api();

TEST(RaceCallSite, TheRuntimesProgramAddressStandsForTheDrivers) {
  int program = 0, runtime = 0;
  accel_tool_enter_api(&program);
  {
    const core::CallerScope driver_call(&runtime);
    EXPECT_EQ(core::current_caller(), &program);
  }
  accel_tool_leave_api();
  const core::CallerScope driver_call(&runtime);
  EXPECT_EQ(core::current_caller(), &runtime) << "after leave, the driver's own again";
}

TEST(RaceCallSite, AnAddressInNoObjectHasNoText) {
  EXPECT_EQ(core::describe_call_site(nullptr), "");
  EXPECT_EQ(core::describe_call_site(reinterpret_cast<const void*>(std::uintptr_t{16})), "");
}

TEST(RaceCallSite, WithoutDebugInfoItIsTheObjectAndOffset) {
  const void* here = return_address_here();
  const std::string text = core::describe_call_site(here, /*use_addr2line=*/false);
  // The test program exports no symbols: "<program>+0x<offset>", the offset addr2line takes.
  EXPECT_TRUE(std::regex_match(text, std::regex("mockdev_observer_test\\+0x[0-9a-f]+")) ||
              std::regex_match(text, std::regex(".*\\+0x[0-9a-f]+ \\(mockdev_observer_test\\)")))
      << text;
}

bool addr2line_on_path() { return std::system("addr2line --version >/dev/null 2>&1") == 0; }

TEST(RaceCallSite, WithDebugInfoItIsFileLineAndFunction) {
  if (!addr2line_on_path()) GTEST_SKIP() << "addr2line (binutils) is not on PATH";
  const int line = __LINE__ + 1;
  const void* here = return_address_here();
  const std::string text = core::describe_call_site(here);
  const std::string location = "race_call_sites_test.cpp:" + std::to_string(line) + " ";
  ASSERT_NE(text.find(location), std::string::npos) << text;
  EXPECT_NE(text.find("RaceCallSite_WithDebugInfoItIsFileLineAndFunction_Test::TestBody()"),
            std::string::npos)
      << text;
  EXPECT_EQ(core::describe_call_site(here), text);  // cached: the same text
}

// A detector printing into a temporary file, as race_detector_test.cpp's.
class RaceReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = std::tmpfile();
    ASSERT_NE(out_, nullptr);
    core::RaceDetectorOptions options;
    options.out = out_;
    detector_ = core::make_race_detector(options);
    driver_ = std::make_unique<ObserverDriver>(*detector_);
  }
  void TearDown() override { std::fclose(out_); }
  std::string printed() {
    std::fflush(out_);
    std::rewind(out_);
    std::string text;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out_)) > 0;)
      text.append(buffer, n);
    return text;
  }
  std::FILE* out_ = nullptr;
  std::unique_ptr<core::OpObserver> detector_;
  std::unique_ptr<ObserverDriver> driver_;
};

TEST_F(RaceReportTest, BothOperationsHaveTheirCallSiteAndTheirQueuesHandle) {
  ObserverDriver& d = *driver_;
  const auto s1 = d.queue(0, "dev0/stream 1 (non-blocking)", "CUstream 0x5a1");
  const auto s2 = d.queue(0, "dev0/legacy", "CUstream 0 (the legacy default stream)");
  const void* first = return_address_here();
  const void* second = return_address_here();
  d.set_caller(first);
  d.enqueue(s1, {OpKind::kMemset, "cuMemsetD8Async", {}, {dev_range(0, 0, 64)}});
  d.set_caller(second);
  d.enqueue(s2, {OpKind::kMemset, "cuMemsetD8Async", {}, {dev_range(0, 32, 64)}});
  const std::string at_first = core::describe_call_site(first);
  const std::string at_second = core::describe_call_site(second);
  ASSERT_NE(at_first, "");
  ASSERT_NE(at_first, at_second);
  EXPECT_EQ(printed(),
            "==================== mockdev: data race ====================\n"
            "write to device memory [0x100000000020, 0x100000000040) (32 bytes)\n"
            "  by op 2 \"cuMemsetD8Async\" on CUstream 0 (the legacy default stream) (queue "
            "\"dev0/legacy\") at " +
                at_second +
                "\n"
                "conflicts with an earlier write\n"
                "  by op 1 \"cuMemsetD8Async\" on CUstream 0x5a1 (queue \"dev0/stream 1 "
                "(non-blocking)\") at " +
                at_first +
                "\n"
                "Neither is ordered before the other: no stream order, event wait, barrier, "
                "graph launch or host synchronisation joins them.\n"
                "=============================================================\n");
}

control::Race race_between(std::string first, std::string second) {
  control::Race race;
  race.first.call_site = std::move(first);
  race.second.call_site = std::move(second);
  return race;
}

// Runs `body` in a forked child (whose summary starts empty, whatever this process found)
// and returns what it wrote to the pipe.
template <class Body>
std::string in_child(Body body) {
  int fds[2];
  if (::pipe(fds) != 0) return "(no pipe)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const std::string text = body();
    (void)!::write(fds[1], text.data(), text.size());
    std::_Exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    text.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return text;
}

TEST(RaceSummary, RacesAreCountedByPairOfCallSitesMostFrequentFirst) {
  const std::string text = in_child([] {
    core::EngineLock lock;
    core::begin_race_log(RacePolicy::kReport, false);
    core::race_log().on_race(race_between("a.cpp:1 f()", "a.cpp:2 g()"));
    core::race_log().on_race(race_between("", "b.cpp:9 h()"));
    core::race_log().on_race(race_between("", "b.cpp:9 h()"));
    core::begin_race_log(RacePolicy::kFail, false);  // not summarised: `fail` says its own
    core::race_log().on_race(race_between("c.cpp:1 x()", "c.cpp:2 y()"));
    core::begin_race_log(RacePolicy::kReport, false);  // a new machine: the counts go on
    core::race_log().on_race(race_between("a.cpp:1 f()", "a.cpp:2 g()"));
    core::race_log().on_race(race_between("a.cpp:1 f()", "a.cpp:3 g()"));
    return core::race_summary();
  });
  EXPECT_EQ(text,
            "==================== mockdev: race summary ====================\n"
            "5 races found (race policy 'report'), by call sites (earlier operation -> later "
            "one):\n"
            "     2  a.cpp:1 f() -> a.cpp:2 g()\n"
            "     2  (call site unknown) -> b.cpp:9 h()\n"
            "     1  a.cpp:1 f() -> a.cpp:3 g()\n"
            "===============================================================\n");
  EXPECT_EQ(in_child([] { return core::race_summary(); }), "");  // none: nothing printed
}

TEST(RaceSummary, AtMostTwentyPairsAreListed) {
  const std::string text = in_child([] {
    core::EngineLock lock;
    core::begin_race_log(RacePolicy::kReport, false);
    for (int i = 0; i < 22; ++i) {
      core::race_log().on_race(race_between("s" + std::to_string(i), "t"));
    }
    return core::race_summary();
  });
  EXPECT_NE(text.find("     1  s19 -> t\n  ... and 2 more pairs of call sites\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("s20 -> t"), std::string::npos) << text;
}

}  // namespace
}  // namespace mockdev::testing
