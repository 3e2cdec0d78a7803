// format_memory_summary: torch.cuda.memory_summary()'s table from flat statistics. The golden
// texts were produced by PyTorch's own formatting rules (torch/cuda/memory.py, memory_summary:
// Python's format specs and floor division) run over the same statistics, so a difference in a
// width, a unit step or a rounding shows here character for character.
#include <gtest/gtest.h>

#include "accel/error.h"
#include "accel/memory.h"
#include "allocator/device_stats.h"

namespace accel {
namespace {

// Every key at 0, then values chosen to cross each unit step: 768 KiB-equivalents for sizes
// (B -> KiB -> MiB ..., judged on the "all" row), 750,000 for counts, a pool row shown in
// its "all" row's unit (0 KiB, 0 MiB), a value wider than its column (cudaMalloc retries).
MemoryStats sample_stats() {
  MemoryStats stats = detail::alloc::flatten(detail::alloc::DeviceStats{});
  for (auto& entry : stats) entry.second = 0;
  const std::pair<const char*, long long> values[] = {
      {"allocated_bytes.all.current", 819200LL},
      {"allocated_bytes.small_pool.current", 819200LL},
      {"allocated_bytes.all.peak", 5368709243LL},
      {"allocated_bytes.large_pool.peak", 5368709120LL},
      {"allocated_bytes.small_pool.peak", 123LL},
      {"allocated_bytes.all.allocated", 3377699720527872LL},
      {"allocated_bytes.large_pool.allocated", 3376600208900096LL},
      {"allocated_bytes.small_pool.allocated", 1099511627776LL},
      {"allocated_bytes.all.freed", 785408LL},
      {"allocated_bytes.large_pool.freed", 785408LL},
      {"reserved_bytes.all.current", 786432LL},
      {"reserved_bytes.large_pool.current", 786431LL},
      {"reserved_bytes.small_pool.current", 1LL},
      {"allocation.all.current", 749999LL},
      {"allocation.small_pool.current", 749999LL},
      {"allocation.all.peak", 750000LL},
      {"allocation.large_pool.peak", 1500LL},
      {"allocation.small_pool.peak", 748500LL},
      {"allocation.all.allocated", 2000000000LL},
      {"allocation.large_pool.allocated", 2000000000LL},
      {"allocation.all.freed", 1999250001LL},
      {"allocation.large_pool.freed", 1999250001LL},
      {"num_ooms", 3LL},
      {"num_alloc_retries", 12345678LL},
      {"max_split_size", -1LL},
      {"oversize_allocations.current", 1LL},
      {"oversize_allocations.peak", 2LL},
      {"oversize_allocations.allocated", 750001LL}};
  for (const auto& [key, value] : values) stats.at(key) = value;
  return stats;
}

TEST(MemorySummary, FullTableMatchesPyTorchsFormatting) {
  const std::string expected =
      R"(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 7                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 3            |        cudaMalloc retries: 12345678  |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |    800 KiB |   5120 MiB |   3072 TiB | 785408 B   |
|       from large pool |      0 KiB |   5120 MiB |   3071 TiB | 785408 B   |
|       from small pool |    800 KiB |      0 MiB |      1 TiB |      0 B   |
|---------------------------------------------------------------------------|
| Active memory         |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Requested memory      |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| GPU reserved memory   |    768 KiB |      0 B   |      0 B   |      0 B   |
|       from large pool |    767 KiB |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 KiB |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Non-releasable memory |      0 B   |      0 B   |      0 B   |      0 B   |
|       from large pool |      0 B   |      0 B   |      0 B   |      0 B   |
|       from small pool |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Allocations           |  749999    |     750 K  |    2000 M  |    1999 M  |
|       from large pool |       0    |       1 K  |    2000 M  |    1999 M  |
|       from small pool |  749999    |     748 K  |       0 M  |       0 M  |
|---------------------------------------------------------------------------|
| Active allocs         |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| GPU reserved segments |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Non-releasable allocs |       0    |       0    |       0    |       0    |
|       from large pool |       0    |       0    |       0    |       0    |
|       from small pool |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize allocations  |       1    |       2    |     750 K  |       0    |
|---------------------------------------------------------------------------|
| Oversize GPU segments |       0    |       0    |       0    |       0    |
|===========================================================================|
)";
  EXPECT_EQ(format_memory_summary(sample_stats(), 7, false), expected);
}

TEST(MemorySummary, AbbreviatedTableHasOnlyTheAllRows) {
  const std::string expected =
      R"(|===========================================================================|
|                  PyTorch CUDA memory summary, device ID 7                 |
|---------------------------------------------------------------------------|
|            CUDA OOMs: 3            |        cudaMalloc retries: 12345678  |
|===========================================================================|
|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |
|---------------------------------------------------------------------------|
| Allocated memory      |    800 KiB |   5120 MiB |   3072 TiB | 785408 B   |
|---------------------------------------------------------------------------|
| Active memory         |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Requested memory      |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| GPU reserved memory   |    768 KiB |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Non-releasable memory |      0 B   |      0 B   |      0 B   |      0 B   |
|---------------------------------------------------------------------------|
| Allocations           |  749999    |     750 K  |    2000 M  |    1999 M  |
|---------------------------------------------------------------------------|
| Active allocs         |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| GPU reserved segments |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Non-releasable allocs |       0    |       0    |       0    |       0    |
|---------------------------------------------------------------------------|
| Oversize allocations  |       1    |       2    |     750 K  |       0    |
|---------------------------------------------------------------------------|
| Oversize GPU segments |       0    |       0    |       0    |       0    |
|===========================================================================|
)";
  EXPECT_EQ(format_memory_summary(sample_stats(), 7, true), expected);
}

TEST(MemorySummary, MissingKeyIsAValueErrorNamingIt) {
  MemoryStats stats = sample_stats();
  stats.erase("inactive_split.small_pool.freed");
  try {
    (void)format_memory_summary(stats, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_STREQ(e.what(),
                 "memory_summary: the statistics have no key 'inactive_split.small_pool.freed' "
                 "(expected the 122 keys of memory_stats())");
  }
}

TEST(MemorySummary, EmptyStatisticsNameTheFirstKeyTheTableReads) {
  try {
    (void)format_memory_summary({}, 0);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_STREQ(e.what(),
                 "memory_summary: the statistics have no key 'num_ooms' (expected the 122 keys "
                 "of memory_stats())");
  }
}

}  // namespace
}  // namespace accel
