// The race detector's interval map (core/shadow_memory.h): cells split and merge exactly,
// reads keep one entry per queue, never per byte.

#include "core/shadow_memory.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace mockdev::core {
namespace {

using Cells =
    std::vector<std::tuple<std::uint64_t, std::uint64_t, OpId, std::vector<ShadowAccess>>>;

Cells cells(const ShadowMemory& m, std::uint64_t begin = 0, std::uint64_t end = ~0ull) {
  Cells out;
  m.visit(begin, end, [&](std::uint64_t b, std::uint64_t e, const ShadowCell& c) {
    out.emplace_back(b, e, c.write.op, c.reads);
  });
  return out;
}

TEST(ShadowMemory, AWriteIsOneCellWhateverWasThere) {
  ShadowMemory m;
  m.record_write(0, 100, {1, 0});
  m.record_read(40, 60, {2, 1});
  EXPECT_EQ(m.cell_count(), 3u);
  m.record_write(10, 90, {3, 2});
  EXPECT_EQ(cells(m), (Cells{{0, 10, 1, {}}, {10, 90, 3, {}}, {90, 100, 1, {}}}));
  m.record_write(0, 100, {4, 0});
  EXPECT_EQ(m.cell_count(), 1u);
  EXPECT_EQ(cells(m), (Cells{{0, 100, 4, {}}}));
}

TEST(ShadowMemory, ReadsSplitFillGapsAndKeepTheLatestPerQueue) {
  ShadowMemory m;
  m.record_write(10, 20, {1, 0});
  m.record_read(0, 30, {2, 1});
  EXPECT_EQ(cells(m), (Cells{{0, 10, 0, {{2, 1}}}, {10, 20, 1, {{2, 1}}}, {20, 30, 0, {{2, 1}}}}));
  m.record_read(0, 30, {5, 1});   // same queue: replaces
  m.record_read(15, 30, {6, 0});  // another queue: sorted by queue
  EXPECT_EQ(cells(m), (Cells{{0, 10, 0, {{5, 1}}},
                             {10, 15, 1, {{5, 1}}},
                             {15, 20, 1, {{6, 0}, {5, 1}}},
                             {20, 30, 0, {{6, 0}, {5, 1}}}}));
}

TEST(ShadowMemory, EqualNeighboursMerge) {
  ShadowMemory m;
  for (std::uint64_t i = 0; i < 100; ++i) m.record_write(i * 8, i * 8 + 8, {1, 0});
  EXPECT_EQ(m.cell_count(), 1u);
  for (std::uint64_t i = 0; i < 100; ++i) m.record_read(i * 8, i * 8 + 8, {2, 1});
  EXPECT_EQ(m.cell_count(), 1u);
  EXPECT_EQ(cells(m), (Cells{{0, 800, 1, {{2, 1}}}}));
}

TEST(ShadowMemory, VisitClipsToTheAskedRange) {
  ShadowMemory m;
  m.record_write(0, 100, {1, 0});
  EXPECT_EQ(cells(m, 40, 50), (Cells{{40, 50, 1, {}}}));
  EXPECT_EQ(cells(m, 100, 200), Cells{});
}

}  // namespace
}  // namespace mockdev::core
