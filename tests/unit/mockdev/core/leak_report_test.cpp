// The leak report at exit (Note [Leak report] in core/leak_report.h): what each API lists as
// live, grouped by kind, device and call site; MOCKDEV_LEAKS=report keeps the program's exit
// status, `fail` exits 87 after the program's own exit work, races under `fail` come first;
// a forked child reports its own objects only; control::finish_process does it once.
// The exit cases run in a child (EXPECT_EXIT), since they change how the process ends.

#include "core/leak_report.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/engine_lock.h"
#include "core/race_call_site.h"
#include "mockdev/exit.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {

using core::LeakPolicy;
using core::LiveObject;

bool addr2line_on_path() { return std::system("addr2line --version >/dev/null 2>&1") == 0; }

core::LiveObjects live_now() {
  core::EngineLock lock;
  return core::live_objects();
}

TEST(LeakPolicy, ParsesTheThreeValuesAndNamesAMisspeltOne) {
  EXPECT_EQ(core::parse_leak_policy("report"), LeakPolicy::kReport);
  EXPECT_EQ(core::parse_leak_policy("fail"), LeakPolicy::kFail);
  EXPECT_EQ(core::parse_leak_policy("off"), LeakPolicy::kOff);
  EXPECT_EQ(core::parse_leak_policy("Report"), std::nullopt);
  setenv("MOCKDEV_LEAKS", "fial", 1);
  EXPECT_EQ(core::leak_policy_environment_error(),
            "MOCKDEV_LEAKS='fial': expected report, fail or off (closest: fail)");
  setenv("MOCKDEV_LEAKS", "", 1);  // empty: unset
  EXPECT_EQ(core::leak_policy_environment_error(), std::nullopt);
  unsetenv("MOCKDEV_LEAKS");
}

TEST(LeakReportText, GroupsByKindPlaceAndCallSiteMostFirst) {
  const core::LiveObjects objects = {
      {"CUDA stream", "device 1", 0, nullptr},
      {"CUDA device memory", "device 0", 4096, nullptr},
      {"CUDA device memory", "device 0", 512, nullptr},
      {"CUDA device memory", "device 1", 64, nullptr},
      {"Level Zero context", "", 0, nullptr},
  };
  EXPECT_EQ(core::leak_report_text(objects, LeakPolicy::kReport),
            "===================== mockdev: leak report =====================\n"
            "5 driver objects live at exit (MOCKDEV_LEAKS=report), by kind and call site:\n"
            "     2  CUDA device memory on device 0, 4608 bytes: (call site unknown)\n"
            "     1  CUDA device memory on device 1, 64 bytes: (call site unknown)\n"
            "     1  CUDA stream on device 1: (call site unknown)\n"
            "     1  Level Zero context: (call site unknown)\n"
            "================================================================\n");
}

TEST(LeakReportText, NothingLiveIsOneLineNamingTheSetting) {
  EXPECT_EQ(core::leak_report_text({}, LeakPolicy::kFail),
            "mockdev: leak report: no driver object is live at exit (MOCKDEV_LEAKS=fail)\n");
  EXPECT_EQ(core::failing_leaks_line(1),
            "mockdev: 1 driver object live at exit (MOCKDEV_LEAKS=fail): exit status 87");
}

TEST(LeakReportText, ManyGroupsAreCutWithACount) {
  core::LiveObjects objects;
  for (int i = 0; i < 33; ++i)
    objects.push_back({"CUDA stream", "device " + std::to_string(i), 0, nullptr});
  const std::string text = core::leak_report_text(objects, LeakPolicy::kReport);
  EXPECT_NE(text.find("\n  ... and 3 more lines\n"), std::string::npos) << text;
  // Equal counts keep the key's order ("device 10" before "device 2"): 7, 8 and 9 are cut.
  EXPECT_NE(text.find("on device 6:"), std::string::npos) << text;
  EXPECT_EQ(text.find("on device 7:"), std::string::npos) << text;
}

// The driver objects a process reports are the ones it made after initialising the driver
// itself (a forked child reports none of its parent's), so the exit cases run as
// "threadsafe" death tests: the child runs the test from its start, cuInit included.
class LeakReport : public StreamTest {
 protected:
  void SetUp() override {
    ::testing::GTEST_FLAG(death_test_style) = "threadsafe";
    StreamTest::SetUp();
  }
};

TEST_F(LeakReport, CudaListsMemoryContextsStreamsAndEventsWithTheirCallSites) {
  start(Schedule::kEager);
  CUdeviceptr kept[2] = {0, 0};
  CUstream stream = nullptr;
  CUevent event = nullptr;
  void* pinned = nullptr;
  const int line = __LINE__ + 1;
  for (CUdeviceptr& d : kept) ASSERT_EQ(cu().cuMemAlloc_v2(&d, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventCreate(&event, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAllocHost_v2(&pinned, 100), CUDA_SUCCESS);
  // Destroyed objects and the driver's own (the primary context, the legacy stream, which
  // the synchronous copy below uses) are not listed.
  CUdeviceptr freed = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&freed, 64), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFree_v2(freed), CUDA_SUCCESS);
  CUstream destroyed = make_stream();
  ASSERT_EQ(cu().cuStreamDestroy_v2(destroyed), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(kept[0]), 0);
  CUcontext created = nullptr;
  const int context_line = __LINE__ + 1;
  ASSERT_EQ(cu().cuCtxCreate_v2(&created, 0, 1), CUDA_SUCCESS);

  core::LiveObjects objects = live_now();
  ASSERT_EQ(objects.size(), 6u);
  std::string kinds;
  for (const LiveObject& o : objects)
    kinds += o.kind + " | " + o.where + " | " + std::to_string(o.bytes) + "\n";
  EXPECT_EQ(kinds,
            "CUDA device memory | device 0 | 4096\n"
            "CUDA device memory | device 0 | 4096\n"
            "CUDA page-locked host memory |  | 100\n"
            "CUDA context (cuCtxCreate) | device 1 | 0\n"
            "CUDA stream | device 0 | 0\n"
            "CUDA event | device 0 | 0\n");
  if (addr2line_on_path()) {
    const int lines[] = {line, line, line + 3, context_line, line + 1, line + 2};
    for (std::size_t i = 0; i < objects.size(); ++i) {
      const std::string site = core::describe_call_site(objects[i].caller);
      EXPECT_NE(site.find("leak_report_test.cpp:" + std::to_string(lines[i]) + " "),
                std::string::npos)
          << objects[i].kind << ": " << site;
    }
  }
  ASSERT_EQ(cu().cuCtxDestroy_v2(created), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventDestroy_v2(event), CUDA_SUCCESS);
  EXPECT_EQ(live_now().size(), 4u);
}

TEST_F(LeakReport, ReportPrintsAtExitAndKeepsTheExitStatus) {
  start(Schedule::kEager);
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_LEAKS", "report", 1);
        CUstream s = nullptr;
        cu().cuStreamCreate(&s, 0);
        std::fputs("the program's own exit work\n", stderr);
        std::exit(3);
      },
      ::testing::ExitedWithCode(3),
      "the program's own exit work\n=+ mockdev: leak report =+\n1 driver object live at exit "
      "\\(MOCKDEV_LEAKS=report\\), by kind and call site:\n     1  CUDA stream on device 0: "
      "[^\n]+\n=+\n$");
}

TEST_F(LeakReport, FailExitsWith87AfterTheReport) {
  start(Schedule::kEager);
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_LEAKS", "fail", 1);
        CUdeviceptr d = 0;
        for (std::size_t bytes : {1000u, 24u}) cu().cuMemAlloc_v2(&d, bytes);  // one call site
        std::exit(0);
      },
      ::testing::ExitedWithCode(control::kLeakFailureExitStatus),
      "2 driver objects live at exit \\(MOCKDEV_LEAKS=fail\\)[^\n]*\n     2  CUDA device memory on "
      "device 0, 1024 bytes: [^\n]+\n=+\nmockdev: 2 driver objects live at exit "
      "\\(MOCKDEV_LEAKS=fail\\): exit status 87\n$");
}

TEST_F(LeakReport, FailWithNothingLiveSaysSoAndKeepsTheStatus) {
  start(Schedule::kEager);
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_LEAKS", "fail", 1);
        CUstream s = nullptr;
        cu().cuStreamCreate(&s, 0);
        cu().cuStreamDestroy_v2(s);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "^mockdev: leak report: no driver object is live at exit \\(MOCKDEV_LEAKS=fail\\)\n$");
}

TEST_F(LeakReport, AForkedChildReportsOnlyItsOwnObjects) {
  start(Schedule::kEager);
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_LEAKS", "report", 1);
        CUstream s = nullptr;
        cu().cuStreamCreate(&s, 0);
        const pid_t child = fork();
        if (child == 0) std::exit(0);  // the parent's driver is not the child's: no report
        int status = -1;
        waitpid(child, &status, 0);
        std::fprintf(stderr, "child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0),
      "^child exited 0\n=+ mockdev: leak report =+\n1 driver object live");
}

TEST_F(LeakReport, FinishProcessReportsOnceAndReturns87) {
  start(Schedule::kEager);
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_LEAKS", "fail", 1);
        CUevent e = nullptr;
        cu().cuEventCreate(&e, 0);
        std::fprintf(stderr, "finish_process returned %d\n", control::finish_process(0));
        std::exit(0);  // the exit hook does nothing more
      },
      ::testing::ExitedWithCode(0),
      "     1  CUDA event on device 0: [^\n]+\n=+\nmockdev: 1 driver object live at exit "
      "\\(MOCKDEV_LEAKS=fail\\): exit status 87\nfinish_process returned 87\n$");
}

TEST_F(LeakReport, FailingRacesComeFirst) {
  start(Schedule::kEager);
  EXPECT_EXIT(
      {
        unsetenv("MOCKDEV_TRACE");
        setenv("MOCKDEV_LEAKS", "fail", 1);
        setenv("MOCKDEV_RACES", "fail", 1);
        control::reset(load_machine("4xh100"));  // the race policy is read at installation
        init_and_make_current(0);
        CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
        CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
        const CUdeviceptr d = alloc(64);
        cu().cuMemsetD8Async(d, 1, 64, a);
        cu().cuMemsetD8Async(d, 2, 64, b);
        std::exit(0);
      },
      ::testing::ExitedWithCode(control::kRaceFailureExitStatus),
      "3 driver objects live at exit \\(MOCKDEV_LEAKS=fail\\)[^\n]*\n.*=+\nmockdev: 1 race "
      "reported \\(MOCKDEV_RACES=fail\\): exit status 86\n$");
}

}  // namespace
}  // namespace mockdev::testing
