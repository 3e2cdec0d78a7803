// Conformance: graph private pools through the whole stack (accel::Graph -> the caching
// allocator's private pools -> the CUDA backend, whose cuMemAlloc runs in relaxed capture
// mode during capture). PyTorch's graph private pools; Note [Graph private pools]
// in runtime/src/api/graph.cpp.
#include <gtest/gtest.h>

#include <cstdint>

#include "accel/accel.h"
#include "accel/memory.h"
#include "conformance_test.h"
#include "error_check.h"
#include "memory_checks.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

using GraphPools = ConformanceTest;

std::uintptr_t address(const DataPtr& data) { return reinterpret_cast<std::uintptr_t>(data.get()); }

// The snapshot segment that holds `pointer` on device 0 (a default one when none does).
SegmentSnapshot segment_of(std::uintptr_t pointer) {
  for (const SegmentSnapshot& segment : memory_snapshot().segments) {
    if (segment.device == 0 && pointer >= segment.address &&
        pointer < segment.address + segment.total_size) {
      return segment;
    }
  }
  ADD_FAILURE() << "no segment holds 0x" << std::hex << pointer;
  return {};
}

TEST_P(GraphPools, CaptureAllocatesFromThePrivatePoolAndFreesAreNotReusedEagerly) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    set_device_index(0);
    const Stream side(0);
    StreamGuard guard(side);
    DataPtr eager_before = allocate(1024);  // a cached small segment of the side stream
    eager_before.reset();
    Graph graph;
    graph.capture_begin();
    DataPtr inside = allocate(1024);
    const std::uintptr_t inside_address = address(inside);
    DataPtr freed_inside = allocate(2048);
    const std::uintptr_t freed_address = address(freed_inside);
    freed_inside.reset();  // freed during capture: the graph may still use it at replay
    graph.capture_end();
    const MempoolId pool = graph.pool();
    EXPECT_NE(pool.first, 0u);
    EXPECT_EQ(segment_of(inside_address).segment_pool_id, pool) << "from the private pool";
    EXPECT_EQ(memory_stats().at("segment.small_pool.current"), 2)
        << "the capture took its own segment, not the eager one";
    // Eager work on the same stream never gets the pool's blocks.
    DataPtr eager = allocate(2048);
    EXPECT_NE(address(eager), freed_address);
    EXPECT_EQ(segment_of(address(eager)).segment_pool_id, (MempoolId{0, 0}));
    DataPtr eager_default = allocate(2048, Stream::default_stream(0));
    EXPECT_NE(address(eager_default), freed_address);
    EXPECT_TRUE(memory_stats_match_snapshot(0));
    graph.replay();
    side.synchronize();
    eager.reset();
    eager_default.reset();
    inside.reset();
    graph.reset();
    empty_cache();
    EXPECT_EQ(memory_reserved(0), 0);
  });
}

TEST_P(GraphPools, ReleasingTheGraphReleasesThePoolAtTheNextEmptyCache) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    set_device_index(0);
    const Stream side(0);
    StreamGuard guard(side);
    Graph graph;
    graph.capture_begin();
    DataPtr inside = allocate(1024);
    graph.capture_end();
    inside.reset();
    EXPECT_EQ(memory_reserved(0), 2 * kMiB);
    empty_cache();
    EXPECT_EQ(memory_reserved(0), 2 * kMiB) << "the graph still owns its pool";
    graph.reset();
    EXPECT_EQ(memory_reserved(0), 2 * kMiB) << "released at the next empty_cache, not before";
    empty_cache();
    EXPECT_EQ(memory_reserved(0), 0);
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::live_objects().allocations, 0u);
    }
  });
}

TEST_P(GraphPools, GeneratedHandleSharesOnePoolBetweenTwoGraphs) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    set_device_index(0);
    const Stream side(0);
    StreamGuard guard(side);
    const MempoolId shared = generate_graph_pool_handle();
    EXPECT_EQ(shared.first, 0u);
    EXPECT_NE(shared.second, 0u);
    Graph first;
    first.capture_begin(shared);
    DataPtr a = allocate(1024);
    const std::uintptr_t a_address = address(a);
    first.capture_end();
    a.reset();  // back to the shared pool, for the next capture into it
    Graph second;
    second.capture_begin(shared);
    DataPtr b = allocate(1024);
    second.capture_end();
    EXPECT_EQ(address(b), a_address) << "the second graph reused the shared pool's block";
    EXPECT_EQ(first.pool(), shared);
    EXPECT_EQ(second.pool(), shared);
    EXPECT_EQ(segment_of(address(b)).segment_pool_id, shared);
    EXPECT_EQ(memory_stats().at("segment.all.current"), 1);
    b.reset();
    first.reset();
    empty_cache();
    EXPECT_EQ(memory_reserved(0), 2 * kMiB) << "the second graph still uses the pool";
    second.reset();
    empty_cache();
    EXPECT_EQ(memory_reserved(0), 0);
  });
}

TEST_P(GraphPools, DestroyingAGraphReleasesItsPoolToo) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    set_device_index(0);
    const Stream side(0);
    StreamGuard guard(side);
    {
      Graph graph;
      graph.capture_begin();
      DataPtr inside = allocate(4 * kMiB);  // large pool: a 20 MiB segment
      graph.capture_end();
    }
    EXPECT_EQ(memory_reserved(0), 20 * kMiB);
    empty_cache();
    EXPECT_EQ(memory_reserved(0), 0);
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(GraphPools);

}  // namespace
}  // namespace accel::test
