// Graphs over a mocked backend (PyTorch's CUDAGraph, aten/src/ATen/cuda/CUDAGraph.cpp):
// capture/instantiate/replay/reset, keep_graph, pools, capture modes, and every PyTorch
// error with its exact text.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "accel/accelerator.h"
#include "accel/graph.h"
#include "accel/lazy_init.h"
#include "accel/stream_guard.h"
#include "backend_fixture.h"
#include "child_process.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::Return;

using GraphApiTest = BackendTest;

constexpr const char* kReplayFirst =
    "Called CUDAGraph::replay without a preceding successful capture.";
constexpr const char* kPoolFirst =
    "Called CUDAGraph::pool() without a preceding successful capture.";

TEST_F(GraphApiTest, CaptureInstantiateReplayOnASideStream) {
  const Stream side(1);
  StreamGuard guard(side);
  Graph graph;
  EXPECT_FALSE(graph.keep_graph());
  EXPECT_CALL(backend(), begin_capture(1, _, CaptureErrorMode::kDefault)).Times(1);
  graph.capture_begin();
  EXPECT_CALL(backend(), end_capture(1, _)).Times(1);
  EXPECT_CALL(backend(), instantiate_graph(1, _)).Times(1);
  EXPECT_CALL(backend(), destroy_captured_graph(1, _)).Times(1);  // not kept
  graph.capture_end();
  EXPECT_EQ(backend().streams()->live_graphs(), 0);
  EXPECT_EQ(backend().streams()->live_execs(), 1);
  detail::GraphHandle launched;
  EXPECT_CALL(backend(), launch_graph(1, _, _))
      .Times(2)
      .WillRepeatedly([&](int index, detail::GraphHandle g, detail::StreamHandle s) {
        launched = g;
        return backend().streams()->launch_graph(index, g, s);
      });
  graph.replay();
  graph.replay();
  EXPECT_EQ(backend().streams()->launches(launched), 2);
}

TEST_F(GraphApiTest, ReplayRunsOnTheCurrentStreamOfTheCaptureDeviceEvenTheDefault) {
  Graph graph;
  {
    StreamGuard guard(Stream(2));
    graph.capture_begin();
    graph.capture_end();
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_CALL(backend(), launch_graph(2, _, detail::StreamHandle{})).Times(1);
  graph.replay();  // device 2's current stream is its default stream now
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(GraphApiTest, CaptureOnTheDefaultStreamIsRejected) {
  Graph graph;
  EXPECT_CALL(backend(), begin_capture(_, _, _)).Times(0);
  EXPECT_TRUE(is_error(catch_error([&] { graph.capture_begin(); }), ErrorKind::kRuntime,
                       "CUDA graphs must be captured on a non-default stream. (However, after "
                       "capture, it's ok to replay them on the default stream.)"));
}

TEST_F(GraphApiTest, ReplayAndPoolBeforeASuccessfulCaptureAreRejected) {
  Graph graph;
  EXPECT_TRUE(is_error(catch_error([&] { graph.replay(); }), ErrorKind::kRuntime, kReplayFirst));
  EXPECT_TRUE(is_error(catch_error([&] { graph.pool(); }), ErrorKind::kRuntime, kPoolFirst));
  StreamGuard guard(Stream(0));
  graph.capture_begin();
  EXPECT_TRUE(is_error(catch_error([&] { graph.replay(); }), ErrorKind::kRuntime, kReplayFirst));
  EXPECT_TRUE(is_error(catch_error([&] { graph.pool(); }), ErrorKind::kRuntime, kPoolFirst));
}

TEST_F(GraphApiTest, CapturingTwiceIsRejectedUntilReset) {
  StreamGuard guard(Stream(0));
  Graph graph;
  graph.capture_begin();
  const char* kOwns =
      "This CUDAGraph instance already owns a captured graph. To capture a new graph, create a "
      "new instance.";
  EXPECT_TRUE(is_error(catch_error([&] { graph.capture_begin(); }), ErrorKind::kRuntime, kOwns));
  graph.capture_end();
  EXPECT_TRUE(is_error(catch_error([&] { graph.capture_begin(); }), ErrorKind::kRuntime, kOwns));
  graph.reset();
  EXPECT_EQ(backend().streams()->live_execs(), 0);
  graph.capture_begin();
  graph.capture_end();
  graph.replay();
}

TEST_F(GraphApiTest, CaptureEndRules) {
  Graph graph;
  EXPECT_TRUE(is_error(catch_error([&] { graph.capture_end(); }), ErrorKind::kRuntime,
                       "capture_end() called before capture_begin()."));
  const Stream a(1);
  set_stream(a);
  graph.capture_begin();
  set_stream(Stream(1, -1));
  EXPECT_CALL(backend(), end_capture(_, _)).Times(0);
  EXPECT_TRUE(is_error(catch_error([&] { graph.capture_end(); }), ErrorKind::kRuntime,
                       "Capture must end on the same stream it began on."));
  ::testing::Mock::VerifyAndClearExpectations(&backend());
  set_stream(a);
  graph.capture_end();
  EXPECT_EQ(graph.pool().second, 0u);
}

TEST_F(GraphApiTest, InvalidatedCaptureEndsWithTheDriversErrorAndNoGraph) {
  StreamGuard guard(Stream(0));
  Graph graph;
  graph.capture_begin();
  // The driver leaves capture mode and answers 901 with no graph (once; later calls, e.g.
  // from the destructor, take the fake's default).
  EXPECT_CALL(backend(), end_capture(_, _)).Times(::testing::AnyNumber());
  EXPECT_CALL(backend(), end_capture(0, _))
      .WillOnce([this](int index, detail::StreamHandle stream) {
        detail::Result<detail::CapturedGraphHandle> ended =
            backend().streams()->end_capture(index, stream);
        EXPECT_TRUE(backend().streams()->destroy_captured_graph(index, *ended).ok());
        return detail::Result<detail::CapturedGraphHandle>(
            fake_driver_error("end_capture: cuStreamEndCapture", 0,
                              "operation failed due to a previous error during capture",
                              "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", 901));
      })
      .RetiresOnSaturation();
  EXPECT_TRUE(is_error(catch_error([&] { graph.capture_end(); }), ErrorKind::kDriver,
                       "end_capture: cuStreamEndCapture: CUDA error: operation failed due to a "
                       "previous error during capture (device=0, "
                       "driver=CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)"));
  EXPECT_TRUE(is_error(catch_error([&] { graph.replay(); }), ErrorKind::kRuntime, kReplayFirst));
  // The capture is over: the same instance may try again (the destructor ends it).
  graph.capture_begin();
}

TEST_F(GraphApiTest, KeepGraphDefersInstantiationToInstantiateOrTheFirstReplay) {
  StreamGuard guard(Stream(3));
  Graph kept(/*keep_graph=*/true);
  EXPECT_TRUE(kept.keep_graph());
  EXPECT_TRUE(is_error(catch_error([&] { kept.instantiate(); }), ErrorKind::kRuntime,
                       "capture_end() must have been called before calling instantiate"));
  kept.capture_begin();
  EXPECT_CALL(backend(), instantiate_graph(_, _)).Times(0);
  kept.capture_end();
  ::testing::Mock::VerifyAndClearExpectations(&backend());
  EXPECT_EQ(backend().streams()->live_graphs(), 1);
  EXPECT_CALL(backend(), instantiate_graph(3, _)).Times(1);
  kept.replay();  // instantiates first
  ::testing::Mock::VerifyAndClearExpectations(&backend());
  EXPECT_CALL(backend(), destroy_graph(3, _)).Times(1);  // the old executable graph
  EXPECT_CALL(backend(), instantiate_graph(3, _)).Times(1);
  kept.instantiate();
  ::testing::Mock::VerifyAndClearExpectations(&backend());
  EXPECT_EQ(backend().streams()->live_graphs(), 1);
  EXPECT_EQ(backend().streams()->live_execs(), 1);
  Graph once;
  once.capture_begin();
  once.capture_end();
  EXPECT_TRUE(is_error(catch_error([&] { once.instantiate(); }), ErrorKind::kRuntime,
                       "instantiate() is intended to be called by the user only when "
                       "keep_graph=true"));
}

TEST_F(GraphApiTest, PoolsPrivateSharedAndInvalid) {
  StreamGuard guard(Stream(0));
  Graph a;
  a.capture_begin();
  a.capture_end();
  EXPECT_NE(a.pool().first, 0u);
  EXPECT_EQ(a.pool().second, 0u);
  const MempoolId shared = generate_graph_pool_handle();
  EXPECT_EQ(shared.first, 0u);
  EXPECT_NE(shared.second, 0u);
  EXPECT_NE(generate_graph_pool_handle(), shared);
  Graph b;
  b.capture_begin(shared);
  b.capture_end();
  EXPECT_EQ(b.pool(), shared);
  Graph c;
  c.capture_begin(a.pool());
  c.capture_end();
  EXPECT_EQ(c.pool(), a.pool());
  Graph d;
  EXPECT_TRUE(is_error(catch_error([&] {
                         d.capture_begin({3, 4});
                       }),
                       ErrorKind::kRuntime,
                       "INTERNAL ASSERT FAILED: a graph pool id has one non-zero half, got (3, "
                       "4)"));
}

TEST_F(GraphApiTest, CaptureModesReachTheBackend) {
  StreamGuard guard(Stream(0));
  for (CaptureErrorMode mode :
       {CaptureErrorMode::kGlobal, CaptureErrorMode::kThreadLocal, CaptureErrorMode::kRelaxed}) {
    Graph graph;
    EXPECT_CALL(backend(), begin_capture(0, _, mode)).Times(1);
    graph.capture_begin({0, 0}, mode);
    graph.capture_end();
  }
}

TEST_F(GraphApiTest, CaptureModeNamesAndTheUnknownModeMessage) {
  EXPECT_EQ(parse_capture_error_mode("default"), CaptureErrorMode::kDefault);
  EXPECT_EQ(parse_capture_error_mode("global"), CaptureErrorMode::kGlobal);
  EXPECT_EQ(parse_capture_error_mode("thread_local"), CaptureErrorMode::kThreadLocal);
  EXPECT_EQ(parse_capture_error_mode("relaxed"), CaptureErrorMode::kRelaxed);
  EXPECT_TRUE(is_error(catch_error([] { parse_capture_error_mode("Global"); }), ErrorKind::kRuntime,
                       "Unknown capture error mode. Expected `default`, `global`, "
                       "`thread_local`, or `relaxed`, got Global"));
}

TEST_F(GraphApiTest, ResetAndDestructorEndACaptureInProgressAndDestroyEverything) {
  StreamGuard guard(Stream(1));
  {
    Graph graph(/*keep_graph=*/true);
    graph.capture_begin();
    graph.capture_end();
    graph.replay();
    EXPECT_EQ(backend().streams()->live_graphs(), 1);
    EXPECT_EQ(backend().streams()->live_execs(), 1);
  }
  EXPECT_EQ(backend().streams()->live_graphs(), 0);
  EXPECT_EQ(backend().streams()->live_execs(), 0);
  {
    Graph graph;
    graph.capture_begin();
    EXPECT_CALL(backend(), end_capture(1, _)).Times(1);
  }
  EXPECT_EQ(backend().streams()->live_graphs(), 0);
}

TEST_F(GraphApiTest, ResetFailuresAreWarningsNotExceptions) {
  StreamGuard guard(Stream(1));
  Graph graph;
  graph.capture_begin();
  graph.capture_end();
  EXPECT_CALL(backend(), destroy_graph(1, _))
      .WillOnce(
          Return(fake_driver_error("destroy_graph: cuGraphExecDestroy", 1,
                                   "invalid resource handle", "CUDA_ERROR_INVALID_HANDLE", 400)));
  ::testing::internal::CaptureStderr();
  graph.reset();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "accel: warning: Graph::reset: destroy_graph: cuGraphExecDestroy: CUDA error: invalid "
            "resource handle (device=1, driver=CUDA_ERROR_INVALID_HANDLE)\n");
  EXPECT_TRUE(is_error(catch_error([&] { graph.replay(); }), ErrorKind::kRuntime, kReplayFirst));
}

TEST_F(GraphApiTest, EveryCallRaisesForkErrorInAPoisonedChild) {
  StreamGuard guard(Stream(1));
  Graph graph;
  graph.capture_begin();
  graph.capture_end();
  const ChildStatus child = run_in_child(
      [this, &graph] {
        EXPECT_TRUE(is_fork_error(catch_error([&] { graph.replay(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { graph.pool(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { graph.instantiate(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { graph.reset(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { graph.capture_end(); })));
        Graph fresh;
        EXPECT_TRUE(is_fork_error(catch_error([&] { fresh.capture_begin(); })));
        EXPECT_EQ(backend().streams()->live_execs(), 1);
      },
      10);
  EXPECT_TRUE(child.ok()) << child.describe();
  graph.replay();
}

using GraphWithoutAccelerator = NoAcceleratorTest;

TEST_F(GraphWithoutAccelerator, ConstructionThrowsUnavailable) {
  EXPECT_TRUE(is_error(catch_error([] { Graph graph; }), ErrorKind::kUnavailable,
                       "Cannot access accelerator device when none is available."));
}

}  // namespace
}  // namespace accel::test
