// cuCtxGetCurrent answered without the engine lock (Note [Unlocked answers] in core/engine.h):
// the answer is the locked call's in every case -- counted, refused by a fault installed at run
// time, inside a host function, on a new machine, and still a progress point of the random
// schedule. (A forked child: core/fork_test.cpp.)

#include <atomic>
#include <thread>
#include <vector>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

using UnlockedContext = StreamTest;

// Asks for the current context once, expecting `expected`: the first call of a thread
// builds its stack under the lock; later ones may answer without it.
void expect_current(CUcontext expected) {
  CUcontext ctx = reinterpret_cast<CUcontext>(0x1);
  EXPECT_EQ(cuda().cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
  EXPECT_EQ(ctx, expected);
}

TEST_F(UnlockedContext, EveryAnswerIsCountedAsALockedCallIs) {
  const CUcontext ctx = start(Schedule::kEager);
  for (int i = 0; i < 6; ++i) expect_current(ctx);
  EXPECT_EQ(control::call_count("cuCtxGetCurrent"), 6u);
  control::reset_call_counts();
  EXPECT_EQ(control::call_counts().count("cuCtxGetCurrent"), 0u);  // a zero is not listed
  expect_current(ctx);
  expect_current(ctx);
  EXPECT_EQ(control::call_counts().at("cuCtxGetCurrent"), 2u);
}

TEST_F(UnlockedContext, AFaultInstalledAfterTheFirstAnswersFiresOnItsCall) {
  const CUcontext ctx = start(Schedule::kEager);
  expect_current(ctx);
  expect_current(ctx);
  control::fail_call("cuCtxGetCurrent", 2, CUDA_ERROR_UNKNOWN);
  CUcontext out = nullptr;
  EXPECT_EQ(cu().cuCtxGetCurrent(&out), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxGetCurrent(&out), CUDA_ERROR_UNKNOWN);
  EXPECT_EQ(cu().cuCtxGetCurrent(&out), CUDA_SUCCESS);
  control::fail_call("cuCtxGetCurrent", 0, CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cu().cuCtxGetCurrent(&out), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cu().cuCtxGetCurrent(&out), CUDA_ERROR_LAUNCH_FAILED);
  control::clear_faults();
  expect_current(ctx);
  EXPECT_EQ(control::call_count("cuCtxGetCurrent"), 8u);
}

void ask_from_host_function(void* result) {
  CUcontext ctx = nullptr;
  *static_cast<CUresult*>(result) = cuda().cuCtxGetCurrent(&ctx);
}

TEST_F(UnlockedContext, InsideAHostFunctionTheCallIsRefused) {
  const CUcontext ctx = start(Schedule::kEager);
  expect_current(ctx);
  expect_current(ctx);
  CUresult inner = CUDA_SUCCESS;
  ASSERT_EQ(cu().cuLaunchHostFunc(make_stream(), ask_from_host_function, &inner), CUDA_SUCCESS);
  EXPECT_EQ(inner, CUDA_ERROR_NOT_PERMITTED);
  expect_current(ctx);
}

TEST_F(UnlockedContext, ANewMachineStartsUninitialisedWithNoCurrentContext) {
  const CUcontext ctx = start(Schedule::kEager);
  expect_current(ctx);
  expect_current(ctx);
  control::reset(load_machine("4xh100"));
  CUcontext out = ctx;
  EXPECT_EQ(cu().cuCtxGetCurrent(&out), CUDA_ERROR_NOT_INITIALIZED);
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  expect_current(nullptr);  // the stack was the previous machine's
  expect_current(nullptr);
}

// Under the random schedule every driver call is a progress point that may complete ready
// operations (Note [Scheduler] in core/timeline.h): cuCtxGetCurrent too, so it takes the lock.
TEST_F(UnlockedContext, UnderTheRandomScheduleEachCallIsAProgressPoint) {
  const CUcontext ctx = start(Schedule::kRandom, 11);
  expect_current(ctx);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(16);
  for (int i = 0; i < 16; ++i) {
    ASSERT_EQ(cu().cuMemsetD8Async(d + static_cast<CUdeviceptr>(i), 1, 1, s), CUDA_SUCCESS);
  }
  const std::size_t before = pending(s);
  ASSERT_GT(before, 0u);
  for (int i = 0; i < 64; ++i) expect_current(ctx);
  EXPECT_EQ(pending(s), 0u);
}

// Threads asking while another installs and clears faults (so calls go with and without the
// lock, counting into the same count): no call is lost.
TEST_F(UnlockedContext, ConcurrentCallsWithAndWithoutTheLockAreAllCounted) {
  const CUcontext ctx = start(Schedule::kEager);
  control::reset_call_counts();
  constexpr int kThreads = 4, kCalls = 2000;
  std::atomic<bool> stop{false};
  std::thread toggler([&] {
    while (!stop.load()) {
      control::fail_call("cuDeviceGetCount", 1, CUDA_ERROR_UNKNOWN);
      control::clear_faults();
    }
  });
  std::vector<std::thread> askers;
  for (int t = 0; t < kThreads; ++t) {
    askers.emplace_back([ctx] {
      ASSERT_EQ(cuda().cuCtxSetCurrent(ctx), CUDA_SUCCESS);
      for (int i = 0; i < kCalls; ++i) {
        CUcontext out = nullptr;
        ASSERT_EQ(cuda().cuCtxGetCurrent(&out), CUDA_SUCCESS);
        ASSERT_EQ(out, ctx);
      }
    });
  }
  for (std::thread& a : askers) a.join();
  stop = true;
  toggler.join();
  EXPECT_EQ(control::call_count("cuCtxGetCurrent"), std::uint64_t{kThreads} * kCalls);
}

}  // namespace
}  // namespace mockdev::testing
