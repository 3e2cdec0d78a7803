// Stream-ordered allocation and memory pools (CUDA Driver API, "Stream Ordered Memory
// Allocator"; cuda.h's CUmemPool_attribute comments). Sizes are multiples of 2 MiB so that
// no rounding the documentation leaves open enters the exact values.

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "driver_test.h"

namespace accel::driver_test {
namespace {

using Pools = DriverTest;

constexpr std::size_t kMiB = std::size_t{1} << 20;

cuuint64_t attribute(const test::CudaEntryPoints& cu, CUmemoryPool pool, CUmemPool_attribute a) {
  cuuint64_t v = 0;
  EXPECT_EQ(cu.cuMemPoolGetAttribute(pool, a, &v), CUDA_SUCCESS);
  return v;
}

CUmemPoolProps device_props(CUdevice dev) {
  CUmemPoolProps props{};
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = dev;
  return props;
}

TEST_F(Pools, DevicesReportMemoryPoolSupport) {
  int supported = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetAttribute(
                                    &supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device));
  EXPECT_EQ(supported, 1);
}

// The default pool is one object per device, and the current pool until another is set.
TEST_F(Pools, TheDefaultPoolIsTheCurrentPoolAndStable) {
  ACCEL_REQUIRE_SYMBOLS("cuDeviceGetDefaultMemPool", "cuDeviceGetMemPool");
  CUmemoryPool first = nullptr, second = nullptr, current = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetDefaultMemPool(&first, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetDefaultMemPool(&second, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetMemPool(&current, device));
  EXPECT_NE(first, nullptr);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first, current);
  if (device_count > 1) {
    CUmemoryPool other = nullptr;
    ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetDefaultMemPool(&other, 1));
    EXPECT_NE(other, first);
  }
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cu().cuDeviceGetDefaultMemPool(&first, device_count));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuDeviceGetDefaultMemPool(nullptr, device));
  // [inferred code] the default pool cannot be destroyed.
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemPoolDestroy(first));
}

// cuDeviceSetMemPool makes cuMemAllocAsync allocate from the pool; destroying the current
// pool makes the default pool current again (documented).
TEST_F(Pools, SetMemPoolRoutesAllocAsyncAndDestroyRestoresTheDefault) {
  ACCEL_REQUIRE_SYMBOLS("cuMemPoolCreate", "cuDeviceSetMemPool", "cuMemAllocAsync",
                        "cuMemFreeAsync");
  CUmemoryPool pool = nullptr, current = nullptr, fallback = nullptr;
  const CUmemPoolProps props = device_props(device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolCreate(&pool, &props));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceSetMemPool(device, pool));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetMemPool(&current, device));
  EXPECT_EQ(current, pool);
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocAsync(&p, 2 * kMiB, nullptr));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 2 * kMiB);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(p, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0u);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolDestroy(pool));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetMemPool(&current, device));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetDefaultMemPool(&fallback, device));
  EXPECT_EQ(current, fallback);
}

// The allocator's peaks: reserved and used, current and high, after alloc, free and sync
// with the default release threshold of 0 (freed memory is released at the synchronisation,
// whole 32 MiB reservations only: Recording 2).
TEST_F(Pools, AttributesAreExactThroughAllocFreeAndSync) {
  ACCEL_REQUIRE_SYMBOLS("cuMemPoolCreate", "cuMemAllocFromPoolAsync", "cuMemPoolGetAttribute");
  CUmemoryPool pool = nullptr;
  const CUmemPoolProps props = device_props(device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolCreate(&pool, &props));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), 0u);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);
  CUstream stream = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr a = 0, b = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&a, 4 * kMiB, pool, stream));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&b, 2 * kMiB, pool, stream));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 6 * kMiB);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 32 * kMiB);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(a, stream));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 2 * kMiB);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamSynchronize(stream));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 32 * kMiB);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 32 * kMiB);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 6 * kMiB);
  // A high watermark is reset by setting it to 0, to the current value.
  cuuint64_t zero = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH), 2 * kMiB);
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH), 32 * kMiB);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(b, stream));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamSynchronize(stream));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuStreamDestroy_v2(stream));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemPoolDestroy(pool));
}

// Small allocations share one 32 MiB reservation, and the used bytes are the sizes asked for
// (Recording 2: 1024 + 1000 bytes read 2024, the second right after the first).
TEST_F(Pools, SmallAllocationsShareOneReservation) {
  ACCEL_REQUIRE_SYMBOLS("cuMemPoolCreate", "cuMemAllocFromPoolAsync", "cuMemPoolGetAttribute");
  CUmemoryPool pool = nullptr;
  const CUmemPoolProps props = device_props(device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolCreate(&pool, &props));
  CUdeviceptr a = 0, b = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&a, 1024, pool, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&b, 1000, pool, nullptr));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 32 * kMiB);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 2024u);
  EXPECT_EQ(b, a + 1024);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(a, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(b, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemPoolDestroy(pool));
}

// Above the threshold nothing is released at a sync; cuMemPoolTrimTo releases down to its
// argument at once.
TEST_F(Pools, ThresholdKeepsFreedMemoryAndTrimReleasesIt) {
  ACCEL_REQUIRE_SYMBOLS("cuMemPoolCreate", "cuMemPoolSetAttribute", "cuMemPoolTrimTo");
  CUmemoryPool pool = nullptr;
  const CUmemPoolProps props = device_props(device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolCreate(&pool, &props));
  cuuint64_t keep_all = std::numeric_limits<cuuint64_t>::max();
  ACCEL_ASSERT_CU(CUDA_SUCCESS,
                  cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD), keep_all);
  CUdeviceptr a = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&a, 8 * kMiB, pool, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(a, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 32 * kMiB);
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT), 0u);
  // Freed memory is reused in stream order: the same bytes again, no new reservation.
  CUdeviceptr again = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&again, 8 * kMiB, pool, nullptr));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 32 * kMiB);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(again, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolTrimTo(pool, 0));
  EXPECT_EQ(attribute(cu(), pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), 0u);
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemPoolDestroy(pool));
}

// Attribute rules: CURRENT values are read-only [inferred code]; a HIGH value can only be
// set to 0; the REUSE_* attributes are int and on by default.
TEST_F(Pools, AttributeRules) {
  ACCEL_REQUIRE_SYMBOLS("cuMemPoolSetAttribute", "cuMemPoolGetAttribute");
  CUmemoryPool pool = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceGetDefaultMemPool(&pool, device));
  cuuint64_t value = 5;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &value));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &value));
  for (CUmemPool_attribute a : {CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES,
                                CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
                                CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES}) {
    int on = 0;
    ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolGetAttribute(pool, a, &on));
    EXPECT_EQ(on, 1);
  }
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemPoolGetAttribute(nullptr, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &value));
}

// The pool's own device always has read-write access; another device none until set.
TEST_F(Pools, AccessOwnDeviceReadWritePeersAsSet) {
  ACCEL_REQUIRE_SYMBOLS("cuMemPoolSetAccess", "cuMemPoolGetAccess");
  CUmemoryPool pool = nullptr;
  const CUmemPoolProps props = device_props(device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolCreate(&pool, &props));
  CUmemLocation own{CU_MEM_LOCATION_TYPE_DEVICE, device};
  CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolGetAccess(&flags, pool, &own));
  EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  // The owner's access cannot be taken away (Recording 2: CUDA_ERROR_INVALID_DEVICE).
  const CUmemAccessDesc revoke{own, CU_MEM_ACCESS_FLAGS_PROT_NONE};
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_DEVICE, cu().cuMemPoolSetAccess(pool, &revoke, 1));
  if (device_count > 1) {
    int can = 0;
    ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuDeviceCanAccessPeer(&can, 1, device));
    CUmemLocation peer{CU_MEM_LOCATION_TYPE_DEVICE, 1};
    ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolGetAccess(&flags, pool, &peer));
    EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
    if (can != 0) {
      const CUmemAccessDesc grant{peer, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
      ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolSetAccess(pool, &grant, 1));
      ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolGetAccess(&flags, pool, &peer));
      EXPECT_EQ(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    }
  }
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemPoolDestroy(pool));
}

// Argument errors of the stream-ordered calls; a size of 0 succeeds, and a destroyed pool
// still serves an allocation (both Recording 2).
TEST_F(Pools, AllocAndFreeAsyncArgumentErrors) {
  ACCEL_REQUIRE_SYMBOLS("cuMemAllocAsync", "cuMemFreeAsync", "cuMemAllocFromPoolAsync");
  CUdeviceptr p = 0;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemAllocAsync(nullptr, kMiB, nullptr));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemAllocAsync(&p, 0, nullptr));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE,
                  cu().cuMemAllocFromPoolAsync(&p, kMiB, nullptr, nullptr));
  CUmemoryPool pool = nullptr;
  const CUmemPoolProps props = device_props(device);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolCreate(&pool, &props));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemPoolDestroy(pool));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemAllocFromPoolAsync(&p, kMiB, pool, nullptr));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(p, nullptr));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuCtxSynchronize());
  CUmemPoolProps bad = device_props(device);
  bad.allocType = CU_MEM_ALLOCATION_TYPE_MANAGED;
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemPoolCreate(&pool, &bad));
  ACCEL_EXPECT_CU(CUDA_ERROR_INVALID_VALUE, cu().cuMemPoolCreate(nullptr, &props));
}

// Pool memory holds bytes in stream order: written and read back on the stream that
// allocated it, before the free.
TEST_F(Pools, PoolMemoryHoldsBytesInStreamOrder) {
  ACCEL_REQUIRE_SYMBOLS("cuMemAllocAsync", "cuMemFreeAsync", "cuMemAllocAsync_ptsz");
  CUstream stream = nullptr;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUdeviceptr p = 0;
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocAsync(&p, 4096, stream));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemsetD32Async(p, 0x01020304u, 1024, stream));
  std::vector<std::uint32_t> host(1024, 0);
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemcpyDtoHAsync_v2(host.data(), p, 4096, stream));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync(p, stream));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuStreamSynchronize(stream));
  EXPECT_EQ(host, std::vector<std::uint32_t>(1024, 0x01020304u));
  // The per-thread variant allocates on the thread's default stream.
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemAllocAsync_ptsz(&p, 4096, nullptr));
  ACCEL_ASSERT_CU(CUDA_SUCCESS, cu().cuMemFreeAsync_ptsz(p, nullptr));
  ACCEL_EXPECT_CU(CUDA_SUCCESS, cu().cuStreamDestroy_v2(stream));
}

}  // namespace
}  // namespace accel::driver_test
