// Device memory of the simulated driver: accounting, OOM at capacity, cuMemGetInfo, the
// NVML view of the same accounting, and live-object reports.

#include <atomic>
#include <thread>
#include <vector>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;
constexpr std::size_t kMiB = std::size_t{1} << 20;

using MockMemory = MockTest;

TEST_F(MockMemory, NeedsACurrentContext) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  std::size_t free_bytes = 0, total = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_ERROR_INVALID_CONTEXT);
  // A free names its allocation by address, so it needs no current context (recorded on
  // real hardware, docs/HARDWARE.md): 0 succeeds, an unknown address is an invalid value.
  EXPECT_EQ(cu().cuMemFree_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(0x1000), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MockMemory, FreeWithoutACurrentContextFreesTheAllocation) {
  init_and_make_current(2);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(2), 0u);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MockMemory, AllocateAccountAndFree) {
  init_and_make_current(1);
  CUdeviceptr a = 0, b = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&a, kGiB), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAlloc_v2(&b, 1000), CUDA_SUCCESS);
  EXPECT_NE(a, 0u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a % 512, 0u);
  EXPECT_EQ(b % 512, 0u);
  // Accounted in 2 MiB pages (Note [Allocation granularity]).
  EXPECT_EQ(b % (2 * kMiB), 0u);
  EXPECT_EQ(control::used_bytes(1), kGiB + 2 * kMiB);
  EXPECT_EQ(control::used_bytes(0), 0u);
  EXPECT_EQ(control::used_bytes(99), 0u);

  std::size_t free_bytes = 0, total = 0;
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  EXPECT_EQ(total, 80 * kGiB);
  EXPECT_EQ(free_bytes, 80 * kGiB - kGiB - 2 * kMiB);
  // A null output is skipped (recorded on real hardware, docs/HARDWARE.md).
  std::size_t only_total = 0, only_free = 0;
  EXPECT_EQ(cu().cuMemGetInfo_v2(nullptr, &only_total), CUDA_SUCCESS);
  EXPECT_EQ(only_total, 80 * kGiB);
  EXPECT_EQ(cu().cuMemGetInfo_v2(&only_free, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(only_free, free_bytes);

  control::LiveObjects live = control::live_objects();
  EXPECT_EQ(live.allocations, 2u);
  EXPECT_EQ(live.allocated_bytes, kGiB + 2 * kMiB);  // as accounted
  ASSERT_EQ(live.descriptions.size(), 3u);
  EXPECT_EQ(live.descriptions[0], "ctx dev=1 refs=1");
  EXPECT_EQ(live.descriptions[1].rfind("alloc dev=1 ptr=0x", 0), 0u) << live.descriptions[1];

  EXPECT_EQ(cu().cuMemFree_v2(a), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(a), CUDA_ERROR_INVALID_VALUE);      // already freed
  EXPECT_EQ(cu().cuMemFree_v2(b + 1), CUDA_ERROR_INVALID_VALUE);  // not an allocation start
  EXPECT_EQ(cu().cuMemFree_v2(0), CUDA_SUCCESS);                  // 0: nothing to free
  EXPECT_EQ(control::used_bytes(1), 2 * kMiB);
  EXPECT_EQ(cu().cuMemFree_v2(b), CUDA_SUCCESS);
  EXPECT_EQ(control::live_objects().allocations, 0u);
  EXPECT_EQ(control::used_bytes(1), 0u);
}

TEST_F(MockMemory, ZeroBytesAndNullPointerAreInvalid) {
  init_and_make_current(0);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemAlloc_v2(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MockMemory, OutOfMemoryAtCapacity) {
  init_and_make_current(0);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 80 * kGiB + 1), CUDA_ERROR_OUT_OF_MEMORY);
  // Rounded up to the 2 MiB granularity: 80 GiB - 2 MiB - 512 takes 80 GiB - 2 MiB.
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 80 * kGiB - 2 * kMiB - 512), CUDA_SUCCESS);
  CUdeviceptr q = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&q, 2 * kMiB + 1), CUDA_ERROR_OUT_OF_MEMORY);
  ASSERT_EQ(cu().cuMemAlloc_v2(&q, 1), CUDA_SUCCESS);  // one page: exactly full
  std::size_t free_bytes = 1, total = 0;
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_bytes, &total), CUDA_SUCCESS);
  EXPECT_EQ(free_bytes, 0u);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, kGiB), CUDA_SUCCESS);  // freed memory is available again
}

TEST_F(MockMemory, DevicesHaveSeparateCapacityAndAddressRanges) {
  init_and_make_current(0);
  CUdeviceptr on0 = 0, on1 = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&on0, 80 * kGiB), CUDA_SUCCESS);
  CUcontext ctx1 = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAlloc_v2(&on1, 80 * kGiB), CUDA_SUCCESS);
  EXPECT_NE(on0 >> 44, on1 >> 44);
  // A pointer may be freed from a context of another device, as with the real driver.
  EXPECT_EQ(cu().cuMemFree_v2(on0), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(0), 0u);
  EXPECT_EQ(control::used_bytes(1), 80 * kGiB);
}

TEST_F(MockMemory, ReleasingThePrimaryContextFreesItsMemory) {
  init_and_make_current(2);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(2), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(2), 0u);
  control::LiveObjects live = control::live_objects();
  EXPECT_EQ(live.allocations, 0u);
  EXPECT_EQ(live.primary_contexts_active, 0u);
  EXPECT_TRUE(live.descriptions.empty());
}

TEST_F(MockMemory, VisibleOrdinalsMapToPhysicalDevices) {
  setenv("CUDA_VISIBLE_DEVICES", "3,1", 1);
  init_and_make_current(0);  // ordinal 0 is physical device 3
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 1 << 20), CUDA_SUCCESS);
  EXPECT_EQ(control::used_bytes(3), 2 * kMiB);  // one 2 MiB page
  CUdevice dev = -1;
  EXPECT_EQ(cu().cuCtxGetDevice(&dev), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  EXPECT_EQ(control::live_objects().descriptions[0], "ctx dev=3 refs=1");
}

TEST_F(MockMemory, NvmlReportsTheSameAccounting) {
  init_and_make_current(1);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 3 * kGiB), CUDA_SUCCESS);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t handle = nullptr;
  ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(1, &handle), NVML_SUCCESS);
  nvmlMemory_t memory{};
  ASSERT_EQ(nv().nvmlDeviceGetMemoryInfo(handle, &memory), NVML_SUCCESS);
  EXPECT_EQ(memory.total, 80ULL * kGiB);
  EXPECT_EQ(memory.used, 3ULL * kGiB);
  EXPECT_EQ(memory.free, 77ULL * kGiB);
  EXPECT_EQ(nv().nvmlShutdown(), NVML_SUCCESS);
}

TEST_F(MockMemory, ConcurrentThreadsKeepExactAccounting) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  constexpr int kThreads = 8;
  constexpr int kRounds = 500;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      CUcontext ctx = nullptr;
      if (cu().cuDevicePrimaryCtxRetain(&ctx, t % 4) != CUDA_SUCCESS ||
          cu().cuCtxSetCurrent(ctx) != CUDA_SUCCESS) {
        ++failures;
        return;
      }
      for (int i = 0; i < kRounds; ++i) {
        CUdeviceptr p = 0;
        if (cu().cuMemAlloc_v2(&p, 1000 + static_cast<std::size_t>(i)) != CUDA_SUCCESS) ++failures;
        CUdevice dev = -1;
        if (cu().cuCtxGetDevice(&dev) != CUDA_SUCCESS || dev != t % 4) ++failures;
        if (cu().cuMemFree_v2(p) != CUDA_SUCCESS) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(control::call_count("cuMemAlloc_v2"), std::uint64_t{kThreads * kRounds});
  EXPECT_EQ(control::live_objects().allocations, 0u);
  EXPECT_EQ(control::live_objects().primary_contexts_active, 4u);
  for (int d = 0; d < 4; ++d) EXPECT_EQ(control::used_bytes(d), 0u);
}

}  // namespace
}  // namespace mockdev::testing

namespace mockdev::testing {
namespace {

// Note [Driver call order]: the pointer is an argument, checked (step 5) before a sticky
// error (step 6); a free that fails its argument check never reaches the device, so it does
// not count towards a sticky error's `after_calls`.
TEST_F(MockMemory, InvalidFreeIsAnArgumentErrorBeforeTheStickyError) {
  init_and_make_current(0);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAlloc_v2(&p, 16), CUDA_SUCCESS);
  control::set_sticky_error(0, CUDA_ERROR_ILLEGAL_ADDRESS);
  EXPECT_EQ(cu().cuMemFree_v2(p + 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemFree_v2(0), CUDA_SUCCESS);  // freeing 0 never reaches the device
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_ERROR_ILLEGAL_ADDRESS);  // a valid free meets the error
}

TEST_F(MockMemory, InvalidFreeDoesNotAdvanceTheStickyCounter) {
  use_yaml(
      "name: x\ndevices:\n  - {name: a, memory: 1GiB, compute_capability: '9.0', "
      "multiprocessors: 1}\nfaults:\n  sticky:\n    - {device: 0, code: 700, after_calls: 1}\n");
  init_and_make_current(0);
  EXPECT_EQ(cu().cuMemFree_v2(0x1234), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuMemFree_v2(0x1234), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);  // the first touching call
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}

}  // namespace
}  // namespace mockdev::testing
