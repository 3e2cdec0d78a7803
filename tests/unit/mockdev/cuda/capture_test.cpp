// Stream capture in the simulated driver, through the facade: begin/end, the gate for
// potentially unsafe calls, host waits, the legacy stream next to a blocking capture,
// fork/join through events, merge and isolation, introspection and the thread's mode.
// Every code is the one docs/HARDWARE.md recorded on an H200, or the mock's [inferred]
// choice named in Note [Capture rules] (mockdev/src/cuda/capture.h).

#include <thread>

#include "mock_test.h"
#include "mockdev/capture.h"

namespace mockdev::testing {
namespace {

CUstream legacy() { return reinterpret_cast<CUstream>(kStreamLegacy); }
CUstream per_thread() { return reinterpret_cast<CUstream>(kStreamPerThread); }
constexpr auto kGlobal = CU_STREAM_CAPTURE_MODE_GLOBAL;
constexpr auto kThreadLocal = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
constexpr auto kRelaxed = CU_STREAM_CAPTURE_MODE_RELAXED;

class Capture : public MockTest {
 protected:
  void SetUp() override {
    MockTest::SetUp();
    ctx_ = init_and_make_current(0);
    ASSERT_EQ(cu().cuStreamCreate(&blocking_, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamCreate(&nonblocking_, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemAlloc_v2(&scratch_, 4096), CUDA_SUCCESS);
  }

  static int status(CUstream s) {
    CUstreamCaptureStatus st = static_cast<CUstreamCaptureStatus>(-1);
    const CUresult rc = cu().cuStreamIsCapturing(s, &st);
    return rc == CUDA_SUCCESS ? static_cast<int>(st) : -static_cast<int>(rc);
  }

  // Ends the capture on `s`; expects `code`, and a graph exactly when it succeeded.
  static void expect_end(CUstream s, CUresult code) {
    CUgraph graph = reinterpret_cast<CUgraph>(0x1);
    EXPECT_EQ(cu().cuStreamEndCapture(s, &graph), code);
    if (code == CUDA_SUCCESS) {
      EXPECT_NE(graph, nullptr);
      EXPECT_EQ(cu().cuGraphDestroy(graph), CUDA_SUCCESS);
    } else {
      EXPECT_EQ(graph, nullptr);
    }
  }

  static CUevent make_event() {
    CUevent e = nullptr;
    EXPECT_EQ(cu().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    return e;
  }

  CUcontext ctx_ = nullptr;
  CUstream blocking_ = nullptr;
  CUstream nonblocking_ = nullptr;
  CUdeviceptr scratch_ = 0;
};

TEST_F(Capture, BeginRules) {
  EXPECT_EQ(cu().cuStreamBeginCapture_v2(nullptr, kGlobal), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cu().cuStreamBeginCapture_v2(legacy(), kGlobal), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, static_cast<CUstreamCaptureMode>(7)),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  expect_end(nonblocking_, CUDA_ERROR_ILLEGAL_STATE);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(control::capture_counts().sequences, 1u);
  expect_end(nonblocking_, CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(control::capture_counts().sequences, 0u);
  EXPECT_EQ(control::capture_counts().graphs, 0u);
}

TEST_F(Capture, PerThreadDefaultStreamCaptures) {
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(per_thread(), kThreadLocal), CUDA_SUCCESS);
  EXPECT_EQ(status(per_thread()), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(per_thread(), CUDA_SUCCESS);
}

TEST_F(Capture, EndOnAStreamNotCapturing) {
  EXPECT_EQ(cu().cuStreamEndCapture(nonblocking_, nullptr), CUDA_ERROR_ILLEGAL_STATE);
  expect_end(nonblocking_, CUDA_ERROR_ILLEGAL_STATE);
  expect_end(reinterpret_cast<CUstream>(0x1234), CUDA_ERROR_INVALID_HANDLE);
}

// Each recorded "900 + invalidation" host wait: the status turns INVALIDATED, End answers
// 901 with no graph, and the stream reads NONE again.
TEST_F(Capture, HostWaitsOnACapturingStreamInvalidate) {
  const std::vector<std::pair<const char*, std::function<CUresult()>>> waits = {
      {"cuStreamSynchronize", [&] { return cu().cuStreamSynchronize(nonblocking_); }},
      {"cuStreamQuery", [&] { return cu().cuStreamQuery(nonblocking_); }},
      {"cuCtxSynchronize", [&] { return cu().cuCtxSynchronize(); }},
      {"cuStreamAddCallback",
       [&] {
         return cu().cuStreamAddCallback(
             nonblocking_, [](CUstream, CUresult, void*) {}, nullptr, 0);
       }},
  };
  for (const auto& [name, wait] : waits) {
    SCOPED_TRACE(name);
    ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
    EXPECT_EQ(wait(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  }
  EXPECT_EQ(cu().cuStreamSynchronize(nonblocking_), CUDA_SUCCESS);
}

// In relaxed mode the gate lets everything through, but a host wait on the capturing
// stream itself still fails: that rule belongs to the stream, not to the mode. A context
// synchronisation waits on it too (Recording 2: 900 from a relaxed thread).
TEST_F(Capture, HostWaitOnTheCapturingStreamFailsEvenWhenRelaxed) {
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kRelaxed), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamSynchronize(blocking_), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  EXPECT_EQ(cu().cuStreamQuery(nonblocking_), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kRelaxed), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(Capture, SynchronousCopyNextToANonBlockingCaptureIsAllowed) {
  int host = 7;
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(scratch_, &host, sizeof host), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  int back = 0;
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(&back, scratch_, sizeof back), CUDA_SUCCESS);
  EXPECT_EQ(back, 7);
}

TEST_F(Capture, LegacyStreamNextToABlockingCaptureIsImplicit) {
  int host = 7;
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(blocking_, kRelaxed), CUDA_SUCCESS);
  // Introspection of the legacy stream: 906, the capture untouched.
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  EXPECT_EQ(cu().cuStreamIsCapturing(legacy(), &st), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  EXPECT_EQ(cu().cuStreamGetCaptureInfo_v3(nullptr, &st, nullptr, nullptr, nullptr, nullptr,
                                           nullptr),
            CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  // A synchronous copy uses the legacy stream: 906 and invalidation, in any mode.
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(scratch_, &host, sizeof host), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(blocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  ASSERT_EQ(cu().cuStreamBeginCapture_v2(blocking_, kRelaxed), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemsetD8Async(scratch_, 1, 16, legacy()), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  expect_end(blocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(cu().cuMemcpyHtoD_v2(scratch_, &host, sizeof host), CUDA_SUCCESS);
}

TEST_F(Capture, MemAllocFollowsTheModes) {
  CUdeviceptr p = 0;
  // Global, same thread: prohibited.
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 1024), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(p, 0u);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  // Relaxed: allowed.
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kRelaxed), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 1024), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);

  const auto alloc_on_other_thread = [&] {
    CUresult rc = CUDA_ERROR_UNKNOWN;
    std::thread([&] {
      cu().cuCtxSetCurrent(ctx_);
      rc = cu().cuMemAlloc_v2(&p, 1024);
    }).join();
    return rc;
  };
  // Thread-local: another thread (in the default global mode) may allocate.
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kThreadLocal), CUDA_SUCCESS);
  EXPECT_EQ(alloc_on_other_thread(), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);
  // Global: another global-mode thread may not.
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  EXPECT_EQ(alloc_on_other_thread(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
}

TEST_F(Capture, ARelaxedThreadIsNeverStoppedByTheGate) {
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  CUresult rc = CUDA_ERROR_UNKNOWN;
  CUdeviceptr p = 0;
  std::thread([&] {
    cu().cuCtxSetCurrent(ctx_);
    CUstreamCaptureMode mode = kRelaxed;
    ASSERT_EQ(cu().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
    rc = cu().cuMemAlloc_v2(&p, 64);
  }).join();
  EXPECT_EQ(rc, CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);
}

// A GLOBAL capture prohibits unsafe calls with any device current, as cuda.h states the rule
// (no device qualifier); the per-device rule is there to be chosen.
TEST_F(Capture, TheGateCoversEveryDeviceUnlessTheRuleSaysPerDevice) {
  CUcontext other = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&other, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(other), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx_), CUDA_SUCCESS);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  control::CaptureRules rules;
  rules.gate_per_device = true;
  control::set_capture_rules(rules);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(other), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx_), CUDA_SUCCESS);
  expect_end(nonblocking_, CUDA_SUCCESS);
}

TEST_F(Capture, LaunchHostFuncIsCapturedAndNotRun) {
  static int calls = 0;
  calls = 0;
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLaunchHostFunc(nonblocking_, [](void*) { ++calls; }, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamSynchronize(nonblocking_), CUDA_SUCCESS);
  EXPECT_EQ(calls, 0);
}

TEST_F(Capture, WaitOnAnEventRecordedOutsideIsIsolation) {
  CUevent outside = make_event();
  CUevent never = make_event();
  ASSERT_EQ(cu().cuEventRecord(outside, blocking_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  // A never-recorded event has nothing to wait for [inferred].
  EXPECT_EQ(cu().cuStreamWaitEvent(nonblocking_, never, 0), CUDA_SUCCESS);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  EXPECT_EQ(cu().cuStreamWaitEvent(nonblocking_, outside, 0), CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  // Every use of a member of an invalidated capture: 901.
  EXPECT_EQ(cu().cuMemsetD8Async(scratch_, 1, 16, nonblocking_),
            CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(cu().cuEventDestroy_v2(outside), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(never), CUDA_SUCCESS);
}

// The probe's sequence (docs/HARDWARE.md): a stream joins through a wait, End on it is 903
// and invalidates, captured events answer 900, End on the origin is 901 and every member
// reads NONE, and a wait on the stale captured event is a no-op.
TEST_F(Capture, JoinedStreamEndIsUnmatchedAndInvalidates) {
  CUevent fork = make_event();
  CUevent captured = make_event();
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(fork, nonblocking_), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamWaitEvent(blocking_, fork, 0), CUDA_SUCCESS);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(blocking_, CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  EXPECT_EQ(cu().cuEventQuery(fork), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(cu().cuEventSynchronize(fork), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUstream third = nullptr;
  ASSERT_EQ(cu().cuStreamCreate(&third, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamWaitEvent(third, fork, 0), CUDA_SUCCESS);  // no join
  EXPECT_EQ(status(third), CU_STREAM_CAPTURE_STATUS_NONE);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(cu().cuStreamWaitEvent(blocking_, fork, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamSynchronize(blocking_), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventQuery(fork), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamDestroy_v2(third), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(fork), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(captured), CUDA_SUCCESS);
}

TEST_F(Capture, CapturedEventQueryFailsInRelaxedModeToo) {
  CUevent e = make_event();
  CUstreamCaptureMode mode = kRelaxed;
  ASSERT_EQ(cu().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kRelaxed), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(e, nonblocking_), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventQuery(e), CUDA_ERROR_CAPTURED_EVENT);  // Recording 2
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  // Without invalidation by rule: the capture survives the failed query.
  control::CaptureRules rules;
  rules.captured_event_wait_invalidates = false;
  control::set_capture_rules(rules);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kRelaxed), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(e, nonblocking_), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventSynchronize(e), CUDA_ERROR_CAPTURED_EVENT);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(e), CUDA_SUCCESS);
}

TEST_F(Capture, ElapsedTimeWithACapturedEventFails) {
  CUevent start = nullptr, stop = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventCreate(&stop, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(start, blocking_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(stop, blocking_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(blocking_), CUDA_SUCCESS);
  float ms = -1;
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, start, stop), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kRelaxed), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(stop, nonblocking_), CUDA_SUCCESS);
  // Recording 2: CUDA_ERROR_INVALID_VALUE, and the capture goes on.
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, start, stop), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_ACTIVE);
  expect_end(nonblocking_, CUDA_SUCCESS);
  // After End the event reads as its last record outside the capture.
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, start, stop), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(start), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(stop), CUDA_SUCCESS);
}

// Releasing the primary context kills its streams: the captures on them end with them, and
// nothing is prohibited on the device afterwards.
TEST_F(Capture, ReleasingTheContextEndsItsCaptures) {
  CUstreamCaptureMode mode = kRelaxed;  // cuDevicePrimaryCtxRelease is potentially unsafe
  ASSERT_EQ(cu().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemFree_v2(scratch_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(control::capture_counts().sequences, 0u);
  EXPECT_EQ(control::capture_counts().graphs, 0u);
  mode = kGlobal;
  ASSERT_EQ(cu().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
  CUdeviceptr p = 0;
  EXPECT_EQ(cu().cuMemAlloc_v2(&p, 64), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuMemFree_v2(p), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamIsCapturing(nonblocking_, nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Capture, ForkNotJoinedBackIsUnjoined) {
  CUevent fork = make_event();
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(fork, nonblocking_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(blocking_, fork, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(scratch_, 1, 16, blocking_), CUDA_SUCCESS);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_UNJOINED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(control::capture_counts().graphs, 0u);
  EXPECT_EQ(cu().cuEventDestroy_v2(fork), CUDA_SUCCESS);
}

TEST_F(Capture, ForkAndJoinBuildTheDependencies) {
  CUevent fork = make_event();
  CUevent join = make_event();
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(scratch_, 1, 16, nonblocking_), CUDA_SUCCESS);  // node 0
  ASSERT_EQ(cu().cuEventRecord(fork, nonblocking_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(blocking_, fork, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(scratch_ + 16, 2, 16, blocking_), CUDA_SUCCESS);     // 1
  ASSERT_EQ(cu().cuMemsetD8Async(scratch_ + 32, 3, 16, nonblocking_), CUDA_SUCCESS);  // 2
  ASSERT_EQ(cu().cuEventRecord(join, blocking_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(nonblocking_, join, 0), CUDA_SUCCESS);

  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0, other_id = 0;
  CUgraph graph = nullptr, joined_graph = nullptr;
  const CUgraphNode* deps = nullptr;
  const CUgraphEdgeData* edges = nullptr;
  std::size_t count = 99;
  ASSERT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, &st, &id, &graph, &deps, &edges, &count),
            CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_ACTIVE);
  EXPECT_NE(id, 0u);
  EXPECT_NE(graph, nullptr);
  ASSERT_EQ(count, 2u);  // the join: its own memset and the forked stream's
  EXPECT_NE(deps[0], deps[1]);
  EXPECT_EQ(edges[0].type, 0);
  EXPECT_EQ(edges[1].from_port, 0);
  ASSERT_EQ(cu().cuStreamGetCaptureInfo_v3(blocking_, &st, &other_id, &joined_graph, &deps, nullptr,
                                           &count),
            CUDA_SUCCESS);
  EXPECT_EQ(other_id, id);
  EXPECT_EQ(joined_graph, graph);
  EXPECT_EQ(count, 1u);
  // The graph being captured into cannot be destroyed (Recording 2: 401).
  EXPECT_EQ(cu().cuGraphDestroy(graph), CUDA_ERROR_ILLEGAL_STATE);

  CUgraph ended = nullptr;
  ASSERT_EQ(cu().cuStreamEndCapture(nonblocking_, &ended), CUDA_SUCCESS);
  EXPECT_EQ(ended, graph);
  EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_NONE);
  // Nothing ran: captured work never reaches the device.
  unsigned char bytes[48] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(bytes, scratch_, sizeof bytes), CUDA_SUCCESS);
  for (unsigned char b : bytes) EXPECT_EQ(b, 0);
  EXPECT_EQ(cu().cuGraphDestroy(ended), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphDestroy(ended), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuEventDestroy_v2(fork), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(join), CUDA_SUCCESS);
}

TEST_F(Capture, CaptureInfoArguments) {
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  const CUgraphNode* deps = nullptr;
  const CUgraphEdgeData* edges = nullptr;
  std::size_t count = 0;
  EXPECT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, nullptr, nullptr, nullptr, nullptr,
                                           nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, &st, nullptr, nullptr, nullptr, &edges,
                                           &count),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, &st, nullptr, nullptr, &deps, nullptr,
                                           nullptr),
            CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, &st, nullptr, nullptr, nullptr, nullptr,
                                           nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  cuuint64_t first = 0, second = 0;
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, &st, &first, nullptr, &deps, &edges,
                                           &count),
            CUDA_SUCCESS);
  EXPECT_EQ(count, 0u);
  expect_end(nonblocking_, CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamGetCaptureInfo_v3(nonblocking_, &st, &second, nullptr, nullptr, nullptr,
                                           nullptr),
            CUDA_SUCCESS);
  EXPECT_GT(second, first);
  expect_end(nonblocking_, CUDA_SUCCESS);
}

// A wait that would merge two captures: 902, both invalidated [inferred], or only the
// waiting one when the rule says so.
TEST_F(Capture, MergingTwoCaptures) {
  for (bool both : {true, false}) {
    SCOPED_TRACE(both ? "both invalidated" : "only the waiter");
    control::CaptureRules rules;
    rules.merge_invalidates_both = both;
    control::set_capture_rules(rules);
    CUevent e = make_event();
    ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamBeginCapture_v2(blocking_, kGlobal), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuEventRecord(e, nonblocking_), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuStreamWaitEvent(blocking_, e, 0), CUDA_ERROR_STREAM_CAPTURE_MERGE);
    EXPECT_EQ(status(blocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    EXPECT_EQ(status(nonblocking_), both ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                                         : CU_STREAM_CAPTURE_STATUS_ACTIVE);
    expect_end(blocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    expect_end(nonblocking_, both ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS);
    EXPECT_EQ(cu().cuEventDestroy_v2(e), CUDA_SUCCESS);
  }
}

TEST_F(Capture, EndFromAnotherThread) {
  for (CUstreamCaptureMode mode : {kGlobal, kThreadLocal, kRelaxed}) {
    SCOPED_TRACE(mode);
    ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, mode), CUDA_SUCCESS);
    CUresult rc = CUDA_ERROR_UNKNOWN;
    CUgraph graph = nullptr;
    std::thread([&] {
      cu().cuCtxSetCurrent(ctx_);
      rc = cu().cuStreamEndCapture(nonblocking_, &graph);
    }).join();
    if (mode == kRelaxed) {
      EXPECT_EQ(rc, CUDA_SUCCESS);
      EXPECT_EQ(cu().cuGraphDestroy(graph), CUDA_SUCCESS);
    } else {
      // Recording 2: 908, and the capture is over.
      EXPECT_EQ(rc, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
      EXPECT_EQ(graph, nullptr);
      EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_NONE);
      expect_end(nonblocking_, CUDA_ERROR_ILLEGAL_STATE);
    }
  }
}

TEST_F(Capture, ExchangeMode) {
  CUstreamCaptureMode mode = kRelaxed;
  EXPECT_EQ(cu().cuThreadExchangeStreamCaptureMode(nullptr), CUDA_ERROR_INVALID_VALUE);
  CUstreamCaptureMode bad = static_cast<CUstreamCaptureMode>(3);
  EXPECT_EQ(cu().cuThreadExchangeStreamCaptureMode(&bad), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(bad, 3);
  ASSERT_EQ(cu().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, kGlobal);
  // Per thread: a new thread starts in global mode.
  CUstreamCaptureMode seen = kRelaxed;
  std::thread([&] {
    CUstreamCaptureMode m = kThreadLocal;
    cu().cuThreadExchangeStreamCaptureMode(&m);
    seen = m;
  }).join();
  EXPECT_EQ(seen, kGlobal);
  mode = kGlobal;
  ASSERT_EQ(cu().cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, kRelaxed);
}

TEST_F(Capture, DestroyingAMemberStreamInvalidates) {
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(nonblocking_, kGlobal), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamDestroy_v2(nonblocking_), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  EXPECT_EQ(status(nonblocking_), CU_STREAM_CAPTURE_STATUS_INVALIDATED);
  expect_end(nonblocking_, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(cu().cuStreamDestroy_v2(nonblocking_), CUDA_SUCCESS);
}

}  // namespace
}  // namespace mockdev::testing
