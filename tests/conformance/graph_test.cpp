// Conformance: graphs through the whole stack, once per backend profile: the captured work
// runs again at each replay; PyTorch's rules; a call that capture forbids invalidates it.
// On the cuda_mock profile this runs on the simulated driver's stream capture.
#include <gtest/gtest.h>

#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "driver_calls.h"
#include "error_check.h"

namespace accel::test {
namespace {

using Graphs = ConformanceTest;

TEST_P(Graphs, ReplayRepeatsTheCapturedWork) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    const DriverCalls driver = prepare_driver_work(p, {});
    DeviceBuffer buffer(driver, 256);
    ASSERT_EQ(driver.cuMemsetD8_v2(buffer.ptr, 0, 256), CUDA_SUCCESS);
    const Stream side(0);
    Graph graph;
    {
      StreamGuard guard(side);
      graph.capture_begin();
      ASSERT_EQ(driver.cuMemsetD8Async(buffer.ptr, 5, 256, as_cu_stream(side.native_handle())),
                CUDA_SUCCESS);
      graph.capture_end();
    }
    side.synchronize();
    EXPECT_EQ(buffer.read(256), std::vector<unsigned char>(256, 0)) << "capture ran the work";
    for (int round = 0; round < 2; ++round) {
      graph.replay();  // on device 0's current stream: the default stream
      synchronize(0);
      EXPECT_EQ(buffer.read(256), std::vector<unsigned char>(256, 5));
      ASSERT_EQ(driver.cuMemsetD8_v2(buffer.ptr, 0, 256), CUDA_SUCCESS);
    }
    EXPECT_NE(graph.pool().first, 0u);
  });
}

TEST_P(Graphs, KeepGraphInstantiatesOnFirstReplay) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    const DriverCalls driver = prepare_driver_work(p, {});
    DeviceBuffer buffer(driver, 64);
    ASSERT_EQ(driver.cuMemsetD8_v2(buffer.ptr, 0, 64), CUDA_SUCCESS);
    const Stream side(0, -1);
    StreamGuard guard(side);
    Graph graph(/*keep_graph=*/true);
    graph.capture_begin(generate_graph_pool_handle(), CaptureErrorMode::kThreadLocal);
    ASSERT_EQ(driver.cuMemsetD8Async(buffer.ptr, 8, 64, as_cu_stream(side.native_handle())),
              CUDA_SUCCESS);
    graph.capture_end();
    graph.replay();
    side.synchronize();
    EXPECT_EQ(buffer.read(64), std::vector<unsigned char>(64, 8));
    graph.reset();
    EXPECT_TRUE(is_error(catch_error([&] { graph.replay(); }), ErrorKind::kRuntime,
                         "Called CUDAGraph::replay without a preceding successful capture."));
  });
}

TEST_P(Graphs, PyTorchsErrors) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    Graph graph;
    EXPECT_TRUE(is_error(catch_error([&] { graph.capture_begin(); }), ErrorKind::kRuntime,
                         "CUDA graphs must be captured on a non-default stream. (However, after "
                         "capture, it's ok to replay them on the default stream.)"));
    EXPECT_TRUE(is_error(catch_error([&] { graph.pool(); }), ErrorKind::kRuntime,
                         "Called CUDAGraph::pool() without a preceding successful capture."));
    EXPECT_TRUE(is_error(catch_error([&] { graph.capture_end(); }), ErrorKind::kRuntime,
                         "capture_end() called before capture_begin()."));
  });
}

TEST_P(Graphs, SynchronisingDuringCaptureInvalidatesIt) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_GRAPHS();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream side(0);
    StreamGuard guard(side);
    Graph graph;
    graph.capture_begin();
    const CaughtError sync = catch_error([&] { side.synchronize(); });
    EXPECT_TRUE(is_error_containing(sync, ErrorKind::kDriver,
                                    "driver=CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)"))
        << sync.describe();
    const CaughtError end = catch_error([&] { graph.capture_end(); });
    EXPECT_TRUE(is_error_containing(end, ErrorKind::kDriver,
                                    "end_capture: cuStreamEndCapture: CUDA error: "))
        << end.describe();
    EXPECT_TRUE(is_error_containing(end, ErrorKind::kDriver,
                                    "driver=CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)"))
        << end.describe();
    // Capture mode is over: the stream works again and the graph can capture anew.
    side.synchronize();
    graph.capture_begin();
    graph.capture_end();
    graph.replay();
    side.synchronize();
  });
}

// The other side of has_graphs (Note [Backend branches]): a backend without capture refuses
// it with a clear kUnsupported error naming itself, before touching any stream.
TEST_P(Graphs, CaptureIsRefusedWhereTheBackendHasNoGraphs) {
  const BackendProfile& p = profile();
  if (p.has_graphs) {
    GTEST_SKIP() << "SKIPPED on profile " << p.name
                 << ": has_graphs = true: the capture tests above cover it";
  }
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream side(0);
    StreamGuard guard(side);
    Graph graph;
    const CaughtError caught = catch_error([&graph] { graph.capture_begin(); });
    EXPECT_TRUE(is_error_containing(caught, ErrorKind::kUnsupported,
                                    "the " + p.device_type_name +
                                        " backend does not support graphs"))
        << caught.describe();
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Graphs);

}  // namespace
}  // namespace accel::test
