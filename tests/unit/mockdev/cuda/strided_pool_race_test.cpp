// The simulated driver's 2D operations and memory pools under the race detector and the
// schedules: a pitched operation declares exactly its rows' bytes (strided_ops.h), and pool
// memory changes hands in stream order (Note [Pool reuse] in pool_model.h).

#include <limits>

#include "mockdev/races.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

cuuint64_t reserved(CUmemoryPool pool) {
  cuuint64_t v = 0;
  EXPECT_EQ(cuda().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v),
            CUDA_SUCCESS);
  return v;
}

// A 2D memset's pitch gaps are not its bytes: another stream may write them freely; a byte
// of a row races, reported with that byte's range.
TEST_F(StreamTest, A2DMemsetRacesOnItsRowsOnly) {
  start(Schedule::kAdversarial);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr d = alloc(64);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(cu().cuMemsetD2D8Async(d, 16, 1, 4, 4, a), CUDA_SUCCESS);  // rows [16y, 16y + 4)
  ASSERT_EQ(cu().cuMemsetD8Async(d + 4, 2, 12, b), CUDA_SUCCESS);      // row 0's gap
  ASSERT_EQ(cu().cuMemsetD8Async(d + 52, 2, 12, b), CUDA_SUCCESS);     // row 3's gap
  EXPECT_EQ(control::race_count(), 0u);
  ASSERT_EQ(cu().cuMemsetD8Async(d + 31, 3, 2, b), CUDA_SUCCESS);  // gap byte 31, row byte 32
  ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].first.name, "cuMemsetD2D8Async");
  EXPECT_EQ(races[0].begin, d + 32);
  EXPECT_EQ(races[0].bytes, 1u);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

// A 2D copy reads only its source rows and writes only its destination rows.
TEST_F(StreamTest, A2DCopyDeclaresItsSourceAndDestinationRows) {
  start(Schedule::kAdversarial);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  const CUdeviceptr src = alloc(64), dst = alloc(64);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c.srcDevice = src;
  c.srcPitch = 32;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = dst;
  c.dstPitch = 16;
  c.WidthInBytes = 8;
  c.Height = 2;  // reads [src, +8) and [src + 32, +8); writes [dst, +8) and [dst + 16, +8)
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(cu().cuMemcpy2DAsync_v2(&c, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(src + 8, 1, 24, b), CUDA_SUCCESS);  // the source's gap
  ASSERT_EQ(cu().cuMemsetD8Async(dst + 8, 1, 8, b), CUDA_SUCCESS);   // the destination's gap
  ASSERT_EQ(cu().cuMemsetD8Async(dst + 24, 1, 40, b), CUDA_SUCCESS);  // after the last row
  EXPECT_EQ(control::race_count(), 0u);
  ASSERT_EQ(cu().cuMemsetD8Async(src + 39, 1, 1, b), CUDA_SUCCESS);  // a source row's byte
  ::testing::internal::GetCapturedStderr();
  const std::vector<control::Race> races = control::races();
  ASSERT_EQ(races.size(), 1u);
  EXPECT_EQ(races[0].first.name, "cuMemcpy2DAsync_v2");
  EXPECT_EQ(races[0].begin, src + 39);
  EXPECT_EQ(races[0].bytes, 1u);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

// Adversarial schedule (nothing completes before a host wait): a freed chunk is reused at
// once in stream order on its own stream, never by another stream while its free is
// pending; the host synchronisation releases it (threshold 0).
TEST_F(StreamTest, PoolReuseFollowsStreamOrderUnderTheAdversarialSchedule) {
  start(Schedule::kAdversarial);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  CUmemoryPool pool = nullptr;
  ASSERT_EQ(cu().cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
  CUdeviceptr first = 0, other = 0, again = 0;
  ASSERT_EQ(cu().cuMemAllocAsync(&first, 2 * kMiB, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(first, 1, 2 * kMiB, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFreeAsync(first, a), CUDA_SUCCESS);
  EXPECT_EQ(pending(a), 2u);
  ASSERT_EQ(cu().cuMemAllocAsync(&other, 2 * kMiB, b), CUDA_SUCCESS);
  EXPECT_NE(other, first);  // the free on `a` has not run: `b` may not have its memory
  ASSERT_EQ(cu().cuMemAllocAsync(&again, 2 * kMiB, a), CUDA_SUCCESS);
  EXPECT_EQ(again, first);  // on `a` itself the free comes first in stream order
  ASSERT_EQ(cu().cuMemsetD8Async(again, 2, 2 * kMiB, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(other, 3, 2 * kMiB, b), CUDA_SUCCESS);
  EXPECT_EQ(other, first + 2 * kMiB);    // the chunk's never-used rest is anyone's
  EXPECT_EQ(reserved(pool), 32 * kMiB);  // one chunk (Note [Pool accounting])
  ASSERT_EQ(cu().cuMemFreeAsync(again, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFreeAsync(other, b), CUDA_SUCCESS);
  EXPECT_EQ(reserved(pool), 32 * kMiB);  // freed, not released before a synchronisation
  ASSERT_EQ(cu().cuStreamSynchronize(a), CUDA_SUCCESS);
  EXPECT_EQ(reserved(pool), 32 * kMiB);  // `b`'s free is still pending: the chunk stays
  ASSERT_EQ(cu().cuStreamSynchronize(b), CUDA_SUCCESS);
  EXPECT_EQ(reserved(pool), 0u);
  EXPECT_EQ(control::race_count(), 0u);
}

// Eager schedule: a free completes at once, so another stream may take its chunk, and its
// work is ordered after the free: no race with the previous owner's work, although the
// host never waited.
TEST_F(StreamTest, PoolMemoryHandedToAnotherStreamIsOrderedAfterTheFree) {
  start(Schedule::kEager);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  CUmemoryPool pool = nullptr;
  ASSERT_EQ(cu().cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
  cuuint64_t keep = std::numeric_limits<cuuint64_t>::max();
  ASSERT_EQ(cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep),
            CUDA_SUCCESS);
  CUdeviceptr first = 0, second = 0;
  ASSERT_EQ(cu().cuMemAllocAsync(&first, 2 * kMiB, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(first, 1, 2 * kMiB, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFreeAsync(first, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemAllocAsync(&second, 2 * kMiB, b), CUDA_SUCCESS);
  EXPECT_EQ(second, first);
  ASSERT_EQ(cu().cuMemsetD8Async(second, 2, 2 * kMiB, b), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 0u);
  for (const control::Race& r : control::races()) ADD_FAILURE() << r.text;
  // With opportunistic reuse off, the chunk stays with its stream.
  int off = 0;
  ASSERT_EQ(cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &off),
            CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFreeAsync(second, b), CUDA_SUCCESS);
  CUdeviceptr third = 0;
  ASSERT_EQ(cu().cuMemAllocAsync(&third, 2 * kMiB, a), CUDA_SUCCESS);
  EXPECT_NE(third, first);
  ASSERT_EQ(cu().cuMemFreeAsync(third, a), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);
  EXPECT_EQ(reserved(pool), 0u);
}

// A pool's chunks are device memory: cuMemGetInfo sees the reserve until it is released.
TEST_F(StreamTest, PoolReservesAreDeviceMemory) {
  start(Schedule::kEager);
  std::size_t free_before = 0, total = 0, free_during = 0, free_after = 0;
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_before, &total), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  ASSERT_EQ(cu().cuMemAllocAsync(&p, 1, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_during, &total), CUDA_SUCCESS);
  EXPECT_EQ(free_before - free_during, 32 * kMiB);  // one chunk (Note [Pool accounting])
  CUmemoryPool pool = nullptr;
  ASSERT_EQ(cu().cuDeviceGetMemPool(&pool, 0), CUDA_SUCCESS);
  cuuint64_t used = 0;
  ASSERT_EQ(cu().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used),
            CUDA_SUCCESS);
  EXPECT_EQ(used, 1u);  // the size asked for (Note [Pool accounting])
  ASSERT_EQ(cu().cuMemFreeAsync(p, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemGetInfo_v2(&free_after, &total), CUDA_SUCCESS);
  EXPECT_EQ(free_after, free_before);
}

}  // namespace
}  // namespace mockdev::testing
