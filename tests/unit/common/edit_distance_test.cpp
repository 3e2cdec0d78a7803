// accel_common/edit_distance.h: the distances behind every "closest:" suggestion.
#include "accel_common/edit_distance.h"

#include <gtest/gtest.h>

namespace accel::common {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("memory", ""), 6u);
  EXPECT_EQ(edit_distance("", "memory"), 6u);
  EXPECT_EQ(edit_distance("memory", "memroy"), 2u);
  EXPECT_EQ(edit_distance("expandable_segment", "expandable_segments"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(EditDistance, IgnoresCase) {
  EXPECT_EQ(edit_distance("cuMemAlloc", "CUMEMALLOC"), 0u);
  EXPECT_EQ(edit_distance("Compute_Capability", "compute_capabilty"), 1u);
}

TEST(EditDistance, CloseLimitIsTwoOrAThirdOfTheName) {
  EXPECT_EQ(close_distance_limit("mem"), 2u);
  EXPECT_EQ(close_distance_limit("multiprocessors"), 5u);
}

}  // namespace
}  // namespace accel::common
