// The size policy (PyTorch's round_size, pool choice, segment size, should_split),
// format_size and the OOM message text.
#include "allocator/size_policy.h"

#include <gtest/gtest.h>

#include "allocator/oom_message.h"
#include "fake_device_provider.h"

namespace accel::detail::alloc::testing {
namespace {

TEST(SizePolicy, RoundsToMultiplesOf512WithA512Minimum) {
  AllocatorConfig c;
  EXPECT_EQ(round_size(1, c), 512u);
  EXPECT_EQ(round_size(512, c), 512u);
  EXPECT_EQ(round_size(513, c), 1024u);
  EXPECT_EQ(round_size(1200, c), 1536u);
  EXPECT_EQ(round_size(5000, c), 5120u);
}

TEST(SizePolicy, PowerOfTwoDivisionsAboveTheirGuard) {
  AllocatorConfig c;
  c.roundup_power2_divisions.fill(4);
  EXPECT_EQ(round_size(1200, c), 1536u);  // 1200 <= 512 * 4: plain 512 rounding
  EXPECT_EQ(round_size(5000, c), 5120u);  // (4096, 8192] in steps of 1024
  EXPECT_EQ(round_size(4097, c), 5120u);
  EXPECT_EQ(round_size(8192, c), 8192u);
  EXPECT_EQ(round_size(5 * kMiB + 1, c), 6 * kMiB);
  EXPECT_EQ(round_size(7 * kMiB - 1, c), 7 * kMiB);
  EXPECT_EQ(round_size(7 * kMiB + 1, c), 8 * kMiB);
}

TEST(SizePolicy, PoolsAndSegmentSizes) {
  EXPECT_TRUE(is_small(kMiB));
  EXPECT_FALSE(is_small(kMiB + 512));
  EXPECT_EQ(allocation_size(512), 2 * kMiB);
  EXPECT_EQ(allocation_size(kMiB), 2 * kMiB);
  EXPECT_EQ(allocation_size(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(allocation_size(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(allocation_size(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(allocation_size(10 * kMiB + 512), 12 * kMiB);
}

TEST(SizePolicy, SplitRules) {
  std::size_t unlimited = static_cast<std::size_t>(-1);
  EXPECT_TRUE(should_split(2 * kMiB, 2 * kMiB - 512, true, false, unlimited));
  EXPECT_FALSE(should_split(2 * kMiB, 2 * kMiB - 511, true, false, unlimited));
  EXPECT_TRUE(should_split(20 * kMiB, 19 * kMiB - 512, false, false, unlimited));
  EXPECT_FALSE(should_split(20 * kMiB, 19 * kMiB, false, false, unlimited));  // exactly 1 MiB
  EXPECT_FALSE(should_split(40 * kMiB, 25 * kMiB, false, false, 21 * kMiB));  // oversize
  EXPECT_TRUE(should_split(40 * kMiB, 40 * kMiB - 512, false, true, unlimited));  // expandable
}

TEST(SizePolicy, FormatSizeMatchesPyTorch) {
  EXPECT_EQ(format_size(0), "0 bytes");
  EXPECT_EQ(format_size(1024), "1024 bytes");
  EXPECT_EQ(format_size(1025), "1.00 KiB");
  EXPECT_EQ(format_size(kMiB), "1024.00 KiB");
  EXPECT_EQ(format_size(kMiB + 1), "1.00 MiB");
  EXPECT_EQ(format_size(20 * kMiB), "20.00 MiB");
  EXPECT_EQ(format_size(kGiB + kGiB / 2), "1.50 GiB");
}

TEST(OomMessage, PyTorchTextWithOptionalParts) {
  OomFigures f;
  f.device = 1;
  f.allocation_bytes = 20 * kMiB;
  f.total_bytes = 64 * kMiB;
  f.free_bytes = 4 * kMiB;
  f.allocated_bytes = 30 * kMiB;
  f.reserved_bytes = 40 * kMiB;
  const std::string tail =
      " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
      "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
      "documentation for Memory Management  "
      "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
  EXPECT_EQ(oom_message(f),
            "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of 64.00 "
            "MiB of which 4.00 MiB is free. Of the allocated memory 30.00 MiB is allocated by "
            "PyTorch, and 10.00 MiB" + tail);
  f.allowed_bytes = 32 * kMiB;
  f.in_private_pools = 2 * kMiB;
  EXPECT_EQ(oom_message(f),
            "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total capacity of 64.00 "
            "MiB of which 4.00 MiB is free. 32.00 MiB allowed; Of the allocated memory 32.00 MiB "
            "is allocated by PyTorch, with 2.00 MiB allocated in private pools (e.g., CUDA "
            "Graphs), and 8.00 MiB" + tail);
}

}  // namespace
}  // namespace accel::detail::alloc::testing
