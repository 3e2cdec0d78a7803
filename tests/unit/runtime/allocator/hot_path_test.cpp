// The cache-hit path allocates no heap memory (Note [Free set order]): counted by
// replacing the global operator new in this test binary.
#if defined(__GNUC__) && !defined(__clang__)
// The replacement new and delete below are a matched pair (malloc/free) by construction.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "allocator_harness.h"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_news{0};
}  // namespace

void* operator new(std::size_t bytes) {
  if (g_counting.load(std::memory_order_relaxed)) g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace accel::detail::alloc::testing {
namespace {

TEST(HotPath, CacheHitsAllocateNoHeapMemory) {
  AllocatorHarness h;
  // Warm up: segments, blocks, set and map nodes exist after one round.
  std::uint64_t a = h.alloc(4096);
  std::uint64_t b = h.alloc(3 * kMiB);
  h.free(a);
  h.free(b);
  g_news = 0;
  g_counting = true;
  for (int i = 0; i < 1000; ++i) {
    std::uint64_t x = h.alloc(4096);
    std::uint64_t y = h.alloc(3 * kMiB);
    h.free(x);
    h.free(y);
  }
  g_counting = false;
  EXPECT_EQ(g_news.load(), 0);
  EXPECT_EQ(h.fake->count("allocate"), 2u);
}

}  // namespace
}  // namespace accel::detail::alloc::testing
