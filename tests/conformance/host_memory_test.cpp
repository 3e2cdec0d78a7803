// Conformance: the pinned host caching allocator through the whole stack (public API ->
// HostCachingAllocator -> the CUDA backend's cuMemHostAlloc(PORTABLE)/cuMemFreeHost, and
// events on the runtime's streams). Restates test_cuda's test_host_memory_stats,
// test_caching_pinned_memory and test_accelerator's test_empty_host_cache
// (PyTorch test/test_cuda.py, test/test_accelerator.py).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "accel/accel.h"
#include "accel/memory.h"
#include "conformance_test.h"
#include "error_check.h"
#include "mockdev/control.h"
#include "runtime_work.h"

namespace accel::test {
namespace {

using HostMemory = ConformanceTest;

TEST_P(HostMemory, EmptyHostCacheBeforeAnythingIsANoOp) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    empty_host_cache();
    reset_peak_host_memory_stats();
    reset_accumulated_host_memory_stats();
    EXPECT_EQ(host_memory_stats(), MemoryStats{});
    EXPECT_FALSE(is_initialized());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
    }
  });
}

// test_host_memory_stats: sizes round up to a power of two; a freed block stays cached
// (allocated) until empty_host_cache; the counters follow.
TEST_P(HostMemory, HostMemoryStatsArithmetic) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    HostPtr a = allocate_host(1000);
    ASSERT_TRUE(a);
    std::memset(a.get(), 7, 1000);  // page-locked host memory is ordinary host memory
    HostPtr b = allocate_host(3000);
    MemoryStats stats = host_memory_stats();
    EXPECT_EQ(stats.at("allocations.current"), 2);
    EXPECT_EQ(stats.at("allocated_bytes.current"), 1024 + 4096);
    EXPECT_EQ(stats.at("active_requests.current"), 2);
    EXPECT_EQ(stats.at("active_bytes.current"), 1024 + 4096);
    EXPECT_EQ(stats.at("num_host_alloc"), 2);
    b.reset();
    stats = host_memory_stats();
    EXPECT_EQ(stats.at("active_requests.current"), 1);
    EXPECT_EQ(stats.at("active_bytes.current"), 1024);
    EXPECT_EQ(stats.at("allocated_bytes.current"), 1024 + 4096) << "cached, not released";
    HostPtr c = allocate_host(2049);
    EXPECT_EQ(host_memory_stats().at("num_host_alloc"), 2) << "the cached 4096 block was reused";
    c.reset();
    a.reset();
    empty_host_cache();
    stats = host_memory_stats();
    EXPECT_EQ(stats.at("allocations.current"), 0);
    EXPECT_EQ(stats.at("allocated_bytes.current"), 0);
    EXPECT_EQ(stats.at("num_host_free"), 2);
    EXPECT_EQ(stats.at("allocated_bytes.peak"), 1024 + 4096);
    reset_peak_host_memory_stats();
    EXPECT_EQ(host_memory_stats().at("allocated_bytes.peak"), 0);
    reset_accumulated_host_memory_stats();
    EXPECT_EQ(host_memory_stats().at("num_host_alloc"), 0);
    EXPECT_EQ(host_memory_stats().at("allocations.allocated"), 0);
  });
}

// test_caching_pinned_memory: a block used by a stream is not handed out again until that
// stream's work has completed; then it is.
TEST_P(HostMemory, PinnedBlockIsReusedOnlyAfterItsStreamsWork) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the stream's work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream side(0);
        void* first = raw_host_alloc(4);
        DeviceMemory buffer(4, side);
        fill_async(buffer.ptr, 3, 4, side);
        record_host_use(first, side);
        raw_host_delete(first);
        void* second = raw_host_alloc(4);
        EXPECT_NE(second, first) << "reused while the stream's work may still read it";
        side.synchronize();
        void* third = raw_host_alloc(4);
        EXPECT_EQ(third, first);
        raw_host_delete(second);
        raw_host_delete(third);
        empty_host_cache();
        EXPECT_EQ(host_memory_stats().at("allocated_bytes.current"), 0);
      },
      kAdversarial);
}

TEST_P(HostMemory, BadPointersNameTheValue) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    int local = 0;
    char text[32];
    std::snprintf(text, sizeof text, "%p", static_cast<void*>(&local));
    EXPECT_TRUE(is_error(catch_error([&] { raw_host_delete(&local); }), ErrorKind::kValue,
                         "raw_host_delete: pointer " + std::string(text) +
                             " is not a pinned block (the runtime is not initialised)"));
    void* block = raw_host_alloc(64);
    EXPECT_TRUE(is_error_containing(catch_error([&] { raw_host_delete(&local); }),
                                    ErrorKind::kValue, "is not a pinned block"));
    raw_host_delete(block);
    EXPECT_TRUE(is_error_containing(catch_error([&] { raw_host_delete(block); }),
                                    ErrorKind::kValue, "was already freed"));
    EXPECT_TRUE(is_error_containing(catch_error([&] { record_host_use(&local, Stream(0)); }),
                                    ErrorKind::kValue, "is not in a live pinned block"));
    empty_host_cache();
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(HostMemory);

}  // namespace
}  // namespace accel::test
