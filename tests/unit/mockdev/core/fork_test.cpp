// Fork and the simulated drivers, with real fork(): the pid gate in a child of an
// initialised parent, NVML in the child after its own nvmlInit, and the atfork lock
// handling under a thread hammering the driver while the main thread forks.
// Children report through named exit codes and always leave with _exit.

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <functional>
#include <thread>

#include "child_process.h"
#include "mock_test.h"

namespace mockdev::testing {
namespace {

// What a child reports; the parent asserts kChildOk.
enum ChildExit : int {
  kChildOk = 0,
  kChildCudaNotGated = 10,
  kChildCuInitNotGated = 11,
  kChildFlagWrong = 12,
  kChildNvmlWrong = 13,
  kChildCudaWrong = 14,
};

const char* exit_name(int code) {
  switch (code) {
    case kChildOk:
      return "ok";
    case kChildCudaNotGated:
      return "a CUDA entry point did not return CUDA_ERROR_NOT_INITIALIZED";
    case kChildCuInitNotGated:
      return "cuInit did not return CUDA_ERROR_NOT_INITIALIZED";
    case kChildFlagWrong:
      return "forked_after_init()/driver_initialized() wrong";
    case kChildNvmlWrong:
      return "NVML misbehaved in the child";
    case kChildCudaWrong:
      return "the CUDA driver misbehaved in a child of an uninitialised parent";
  }
  return "unexpected exit code";
}

// Runs `body` in a forked child (tests/support/child_process.h, under alarm(`seconds`));
// the child leaves with the code the body returns.
accel::test::ChildStatus run_child(const std::function<int()>& body, unsigned seconds = 10) {
  return accel::test::run_in_child([&body] { _exit(body()); }, seconds);
}

void expect_child_ok(const accel::test::ChildStatus& status) {
  ASSERT_TRUE(status.exited) << "child " << status.describe();
  EXPECT_EQ(status.exit_code, kChildOk) << exit_name(status.exit_code);
}

using MockFork = MockTest;

// Every entry point but cuDriverGetVersion (trait kAnswersAfterFork: it needs no
// initialisation, and the real driver answers it in such a child, docs/HARDWARE.md).
TEST_F(MockFork, ChildOfAnInitialisedParentGetsNotInitializedFromEveryOtherEntryPoint) {
  CUcontext ctx = init_and_make_current(1);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 4096), CUDA_SUCCESS);
  // The forking thread has asked for its current context, so in the parent its next asks are
  // answered without the lock (Note [Unlocked answers] in core/engine.h); the child's must not be.
  for (int i = 0; i < 2; ++i) {
    CUcontext current = nullptr;
    ASSERT_EQ(cu().cuCtxGetCurrent(&current), CUDA_SUCCESS);
    ASSERT_EQ(current, ctx);
  }
  const accel::test::ChildStatus status = run_child([&] {
    if (!control::forked_after_init() || control::driver_initialized()) return int{kChildFlagWrong};
    if (cu().cuInit(0) != CUDA_ERROR_NOT_INITIALIZED) return int{kChildCuInitNotGated};
    int v = 0;
    CUdevice dev = 0;
    char name[64];
    std::size_t a = 0, b = 0;
    CUuuid uuid;
    CUcontext c = nullptr;
    unsigned flags = 0;
    CUdeviceptr q = 0;
    const char* s = nullptr;
    void* pfn = nullptr;
    CUdriverProcAddressQueryResult st{};
    if (cu().cuDriverGetVersion(&v) != CUDA_SUCCESS || v != 13000) return int{kChildCudaNotGated};
    const CUresult results[] = {
        cu().cuGetErrorName(CUDA_ERROR_UNKNOWN, &s),
        cu().cuGetErrorString(CUDA_ERROR_UNKNOWN, &s),
        cu().cuDeviceGetCount(&v),
        cu().cuDeviceGet(&dev, 0),
        cu().cuDeviceGetName(name, 64, 0),
        cu().cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0),
        cu().cuDeviceTotalMem_v2(&a, 0),
        cu().cuDeviceGetUuid_v2(&uuid, 0),
        cu().cuDevicePrimaryCtxRetain(&c, 0),
        cu().cuDevicePrimaryCtxRelease_v2(1),
        cu().cuDevicePrimaryCtxGetState(0, &flags, &v),
        cu().cuCtxSetCurrent(ctx),
        cu().cuCtxGetCurrent(&c),
        cu().cuCtxGetDevice(&dev),
        cu().cuCtxSynchronize(),
        cu().cuMemGetInfo_v2(&a, &b),
        cu().cuMemAlloc_v2(&q, 16),
        cu().cuMemFree_v2(p),
        cu().cuGetProcAddress_v2("cuInit", &pfn, 2000, 0, &st),
        cu().cuGetProcAddress("cuInit", &pfn, 2000, 0),
    };
    for (CUresult rc : results) {
      if (rc != CUDA_ERROR_NOT_INITIALIZED) return int{kChildCudaNotGated};
    }
    return int{kChildOk};
  });
  expect_child_ok(status);
  // The parent is untouched.
  EXPECT_FALSE(control::forked_after_init());
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);
  CUdevice dev = -1;
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_SUCCESS);
  EXPECT_EQ(dev, 1);
}

TEST_F(MockFork, ChildOfAnUninitialisedParentInitialisesFine) {
  const accel::test::ChildStatus status = run_child([] {
    if (control::forked_after_init()) return int{kChildFlagWrong};
    if (cuda().cuInit(0) != CUDA_SUCCESS) return int{kChildCudaWrong};
    int count = 0;
    if (cuda().cuDeviceGetCount(&count) != CUDA_SUCCESS || count != 4) return int{kChildCudaWrong};
    if (!control::driver_initialized()) return int{kChildFlagWrong};
    return int{kChildOk};
  });
  expect_child_ok(status);
  EXPECT_FALSE(control::driver_initialized());  // the child's cuInit is its own
}

TEST_F(MockFork, NvmlWorksInTheChildAfterItsOwnInit) {
  init_and_make_current(0);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  const std::string uuid2 = control::machine().devices[2].uuid;
  const accel::test::ChildStatus status = run_child([&] {
    unsigned n = 0;
    if (nvml().nvmlDeviceGetCount_v2(&n) != NVML_ERROR_UNINITIALIZED) return int{kChildNvmlWrong};
    if (nvml().nvmlInit() != NVML_SUCCESS) return int{kChildNvmlWrong};
    if (nvml().nvmlDeviceGetCount_v2(&n) != NVML_SUCCESS || n != 4) return int{kChildNvmlWrong};
    nvmlDevice_t h = nullptr;
    char text[96];
    if (nvml().nvmlDeviceGetHandleByIndex_v2(2, &h) != NVML_SUCCESS) return int{kChildNvmlWrong};
    if (nvml().nvmlDeviceGetUUID(h, text, sizeof text) != NVML_SUCCESS || uuid2 != text) {
      return int{kChildNvmlWrong};
    }
    if (cuda().cuInit(0) != CUDA_ERROR_NOT_INITIALIZED) return int{kChildCuInitNotGated};
    return int{kChildOk};
  });
  expect_child_ok(status);
  unsigned n = 0;
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);  // the parent's NVML still works
}

TEST_F(MockFork, NoChildHangsWhileAnotherThreadHammersTheDriver) {
  init_and_make_current(0);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> hammer_calls{0};
  std::thread hammer([&] {
    CUcontext ctx = nullptr;
    cuda().cuDevicePrimaryCtxRetain(&ctx, 1);
    cuda().cuCtxSetCurrent(ctx);
    while (!stop.load(std::memory_order_relaxed)) {
      CUdeviceptr p = 0;
      int count = 0;
      unsigned n = 0;
      if (cuda().cuMemAlloc_v2(&p, 4096) == CUDA_SUCCESS) cuda().cuMemFree_v2(p);
      cuda().cuDeviceGetCount(&count);
      nvml().nvmlDeviceGetCount_v2(&n);
      (void)control::live_objects();
      hammer_calls.fetch_add(1, std::memory_order_relaxed);
    }
  });
  constexpr int kForks = 200;
  int hung = 0, failed = 0;
  for (int i = 0; i < kForks; ++i) {
    const accel::test::ChildStatus status = run_child(
        [] {
          int count = 0;
          if (cuda().cuDeviceGetCount(&count) != CUDA_ERROR_NOT_INITIALIZED)
            return int{kChildCudaNotGated};
          if (nvml().nvmlInit_v2() != NVML_SUCCESS) return int{kChildNvmlWrong};
          if (!control::forked_after_init()) return int{kChildFlagWrong};
          return int{kChildOk};
        },
        2);
    if (status.timed_out()) {
      ++hung;
    } else if (!status.exited || status.exit_code != kChildOk) {
      ++failed;
    }
  }
  stop = true;
  hammer.join();
  EXPECT_EQ(hung, 0) << "children deadlocked on the engine lock";
  EXPECT_EQ(failed, 0);
  EXPECT_GT(hammer_calls.load(), 0u);
}

}  // namespace
}  // namespace mockdev::testing
