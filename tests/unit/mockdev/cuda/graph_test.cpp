// Graphs of the simulated driver: instantiate, launch, destroy, and the promise that
// matters most, that a replayed capture leaves memory exactly as running the same work
// eagerly does (copies from and to pinned memory, memsets, device-to-device copies, host
// functions, a fork/join across two streams), under every schedule: eager, adversarial
// (nothing completes until a host wait needs it) and random with several seeds, where a
// node that ran before its captured dependencies would leave different bytes.

#include <array>
#include <cstring>
#include <vector>

#include "mock_test.h"
#include "mockdev/capture.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"


namespace mockdev::testing {
namespace {

constexpr std::size_t kBytes = 256;

struct Schedule {
  StreamSettings::Schedule mode;
  std::uint64_t seed;
};

void PrintTo(const Schedule& s, std::ostream* os) {
  *os << "schedule " << static_cast<int>(s.mode) << " seed " << s.seed;
}

class Graph : public MockTest, public ::testing::WithParamInterface<Schedule> {
 public:
  void SetUp() override {
    MockTest::SetUp();
    MachineSpec m = load_machine("4xh100");
    m.streams.schedule = GetParam().mode;
    m.streams.seed = GetParam().seed;
    control::reset(m);
    init_and_make_current(0);
    ASSERT_EQ(cu().cuStreamCreate(&s_, CU_STREAM_DEFAULT), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamCreate(&side_, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemAlloc_v2(&a_, kBytes), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemAlloc_v2(&b_, kBytes), CUDA_SUCCESS);
    void* in = nullptr;
    void* out = nullptr;
    ASSERT_EQ(cu().cuMemAllocHost_v2(&in, kBytes), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemAllocHost_v2(&out, kBytes), CUDA_SUCCESS);
    in_ = static_cast<unsigned char*>(in);
    out_ = static_cast<unsigned char*>(out);
    ASSERT_EQ(cu().cuEventCreate(&fork_, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuEventCreate(&join_, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    clear();
  }

  void TearDown() override {
    EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuMemFreeHost(in_), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuMemFreeHost(out_), CUDA_SUCCESS);
    MockTest::TearDown();
  }

  // Everything the programs touch, back to zero.
  void clear() {
    ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemsetD8_v2(a_, 0, kBytes), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemsetD8_v2(b_, 0, kBytes), CUDA_SUCCESS);
    for (std::size_t i = 0; i < kBytes; ++i) in_[i] = static_cast<unsigned char>(i * 7 + 1);
    std::memset(out_, 0, kBytes);
    host_calls_ = 0;
  }

  struct Snapshot {
    std::array<unsigned char, kBytes> a{}, b{}, out{};
    int host_calls = 0;
    bool operator==(const Snapshot&) const = default;
  };
  Snapshot snapshot() {
    Snapshot s;
    EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuMemcpyDtoH_v2(s.a.data(), a_, kBytes), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuMemcpyDtoH_v2(s.b.data(), b_, kBytes), CUDA_SUCCESS);
    std::memcpy(s.out.data(), out_, kBytes);
    s.host_calls = host_calls_;
    return s;
  }

  static void count_call(void* self) { ++static_cast<Graph*>(self)->host_calls_; }

  // One stream: pinned HtoD, memset, DtoD, a host function, DtoH into pinned memory, and
  // an HtoD copy from pageable memory (consumed at the call, so captured as staged bytes).
  void linear_program(CUstream s) {
    ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(a_, in_, kBytes, s), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(b_ + 64, pageable_.data(), pageable_.size(), s),
              CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemsetD8Async(b_, 0x5a, 64, s), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemcpyDtoDAsync_v2(b_ + 128, a_, 128, s), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuLaunchHostFunc(s, count_call, this), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(out_, b_, kBytes, s), CUDA_SUCCESS);
  }

  // Two streams: the side stream forks from s, both write halves of b, s joins and reads.
  void fork_join_program(CUstream s) {
    ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(a_, in_, kBytes, s), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuEventRecord(fork_, s), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamWaitEvent(side_, fork_, 0), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemcpyDtoDAsync_v2(b_ + 128, a_, 128, side_), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuLaunchHostFunc(side_, count_call, this), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemsetD32Async(b_, 0x01020304, 32, s), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuEventRecord(join_, side_), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamWaitEvent(s, join_, 0), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuMemcpyDtoHAsync_v2(out_, b_, kBytes, s), CUDA_SUCCESS);
  }

  CUgraphExec capture(void (Graph::*program)(CUstream)) {
    EXPECT_EQ(cu().cuStreamBeginCapture_v2(s_, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    (this->*program)(s_);
    CUgraph graph = nullptr;
    EXPECT_EQ(cu().cuStreamEndCapture(s_, &graph), CUDA_SUCCESS);
    CUgraphExec exec = nullptr;
    EXPECT_EQ(cu().cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
    // The exec is a snapshot: the graph may go at once (PyTorch does this).
    EXPECT_EQ(cu().cuGraphDestroy(graph), CUDA_SUCCESS);
    return exec;
  }

  void expect_replay_equals_eager(void (Graph::*program)(CUstream)) {
    (this->*program)(s_);
    const Snapshot eager = snapshot();
    EXPECT_EQ(eager.host_calls, 1);
    clear();
    const Snapshot untouched = snapshot();
    CUgraphExec exec = capture(program);
    // Capturing ran nothing.
    EXPECT_EQ(snapshot(), untouched);
    ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamSynchronize(s_), CUDA_SUCCESS);
    EXPECT_EQ(snapshot(), eager);
    // A second replay of the same exec does it all again.
    clear();
    ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
    ASSERT_EQ(cu().cuStreamSynchronize(s_), CUDA_SUCCESS);
    EXPECT_EQ(snapshot(), eager);
    EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
    EXPECT_EQ(control::capture_counts().execs, 0u);
    EXPECT_EQ(control::capture_counts().graphs, 0u);
  }

  CUstream s_ = nullptr;
  CUstream side_ = nullptr;
  CUdeviceptr a_ = 0, b_ = 0;
  unsigned char* in_ = nullptr;
  unsigned char* out_ = nullptr;
  CUevent fork_ = nullptr, join_ = nullptr;
  int host_calls_ = 0;
  std::array<unsigned char, 16> pageable_{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
};

TEST_P(Graph, LinearReplayEqualsEagerExecution) { expect_replay_equals_eager(&Graph::linear_program); }

TEST_P(Graph, ForkJoinReplayEqualsEagerExecution) {
  expect_replay_equals_eager(&Graph::fork_join_program);
}

// Pinned memory is read when the copy node executes, at every replay.
TEST_P(Graph, ReplayReadsPinnedSourcesAtExecution) {
  CUgraphExec exec = capture(&Graph::linear_program);
  in_[0] = 0xee;
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(s_), CUDA_SUCCESS);
  EXPECT_EQ(out_[128], 0xee);
  in_[0] = 0x11;
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(s_), CUDA_SUCCESS);
  EXPECT_EQ(out_[128], 0x11);
  EXPECT_EQ(host_calls_, 2);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

// A launch follows the earlier work of its stream.
TEST_P(Graph, LaunchFollowsEarlierWorkOfItsStream) {
  CUgraphExec exec = capture(&Graph::linear_program);
  clear();
  ASSERT_EQ(cu().cuMemsetD8Async(b_, 0x77, kBytes, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(s_), CUDA_SUCCESS);
  // The graph writes b[0, 64) (memset), b[64, 80) (pageable copy) and b[128, 256) (device
  // copy): b[80, 128) keeps the 0x77 written before the launch.
  EXPECT_EQ(out_[0], 0x5a);
  EXPECT_EQ(out_[64], 3);
  EXPECT_EQ(out_[79], 3);
  EXPECT_EQ(out_[80], 0x77);
  EXPECT_EQ(out_[127], 0x77);
  EXPECT_EQ(out_[128], in_[0]);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

// Destroying an exec whose launch is still in flight cancels nothing.
TEST_P(Graph, ExecDestroyedInFlightStillCompletes) {
  CUgraphExec exec = capture(&Graph::linear_program);
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cu().cuStreamSynchronize(s_), CUDA_SUCCESS);
  EXPECT_EQ(out_[128], in_[0]);
  EXPECT_EQ(host_calls_, 1);
}

TEST_P(Graph, InstantiateArguments) {
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(s_, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(a_, 1, 16, s_), CUDA_SUCCESS);
  CUgraph building = nullptr;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
  ASSERT_EQ(cu().cuStreamGetCaptureInfo_v3(s_, &st, nullptr, &building, nullptr, nullptr, nullptr),
            CUDA_SUCCESS);
  CUgraphExec exec = nullptr;
  // Instantiated as it is now, while the capture goes on (Recording 2).
  ASSERT_EQ(cu().cuGraphInstantiateWithFlags(&exec, building, 0), CUDA_SUCCESS);
  EXPECT_NE(exec, nullptr);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
  exec = nullptr;
  CUgraph graph = nullptr;
  ASSERT_EQ(cu().cuStreamEndCapture(s_, &graph), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphInstantiateWithFlags(nullptr, graph, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGraphInstantiateWithFlags(&exec, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGraphInstantiateWithFlags(&exec, graph, 0x10), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGraphInstantiateWithFlags(&exec, graph, 0x5), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(exec, nullptr);
  ASSERT_EQ(cu().cuGraphInstantiateWithFlags(&exec, graph, 0x1), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphLaunch(exec, reinterpret_cast<CUstream>(0x1234)), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuGraphLaunch(nullptr, s_), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphDestroy(graph), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphDestroy(nullptr), CUDA_ERROR_INVALID_VALUE);
}

// A graph launched into a capturing stream is not captured as a child graph by the mock:
// the launch is refused [inferred], so nothing runs behind the capture's back.
TEST_P(Graph, LaunchIntoACapturingStreamIsRefused) {
  CUgraphExec exec = capture(&Graph::linear_program);
  clear();
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(side_, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuGraphLaunch(exec, side_), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
  CUgraph graph = nullptr;
  EXPECT_EQ(cu().cuStreamEndCapture(side_, &graph), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
  EXPECT_EQ(host_calls_, 0);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

// The previous launch of the same exec comes first, even from another stream: after
// synchronising only the second stream, the first launch has completed too.
TEST_P(Graph, ALaunchFollowsThePreviousLaunchOfTheSameExec) {
  CUgraphExec exec = capture(&Graph::linear_program);
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuGraphLaunch(exec, side_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(side_), CUDA_SUCCESS);
  const std::optional<std::uint64_t> queue = streams::cuda_stream_queue(s_);
  ASSERT_TRUE(queue.has_value());
  EXPECT_EQ(streams::pending_operations(*queue).size(), 0u);
  EXPECT_EQ(host_calls_, 2);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

// Note [Graph launch]: the nodes are operations of their own, so the race detector sees a
// replayed node's accesses: a node racing with another stream's work is reported with the
// node's name and stream; a correctly synchronised replay reports nothing.
TEST_P(Graph, TheRaceDetectorSeesReplayedNodes) {
  ASSERT_EQ(cu().cuStreamBeginCapture_v2(s_, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(b_, 1, 64, s_), CUDA_SUCCESS);
  CUgraph graph = nullptr;
  ASSERT_EQ(cu().cuStreamEndCapture(s_, &graph), CUDA_SUCCESS);
  CUgraphExec exec = nullptr;
  ASSERT_EQ(cu().cuGraphInstantiateWithFlags(&exec, graph, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuGraphDestroy(graph), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  control::clear_races();
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 0u);
  // The non-blocking side stream is not ordered after the launch.
  ASSERT_EQ(cu().cuMemsetD8Async(b_ + 32, 2, 64, side_), CUDA_SUCCESS);
  ASSERT_EQ(control::race_count(), 1u);
  const control::Race race = control::races().at(0);
  EXPECT_EQ(race.first.name, "cuMemsetD8Async");
  EXPECT_EQ(race.first.queue, "dev0/stream 1");
  EXPECT_EQ(race.second.queue, "dev0/stream 2 (non-blocking)");
  EXPECT_EQ(race.begin, b_ + 32);
  EXPECT_EQ(race.bytes, 32u);
  // Ordered through an event after the launch: no race.
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  control::clear_races();
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(join_, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(side_, join_, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(b_ + 32, 2, 64, side_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 0u);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

TEST_P(Graph, CorrectlySynchronisedReplaysReportNoRace) {
  control::clear_races();
  expect_replay_equals_eager(&Graph::fork_join_program);
  clear();
  expect_replay_equals_eager(&Graph::linear_program);
  CUgraphExec exec = capture(&Graph::linear_program);
  ASSERT_EQ(cu().cuGraphLaunch(exec, s_), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuGraphLaunch(exec, side_), CUDA_SUCCESS);  // after the previous launch
  ASSERT_EQ(cu().cuStreamSynchronize(side_), CUDA_SUCCESS);
  EXPECT_EQ(control::race_count(), 0u);
  EXPECT_EQ(cu().cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

std::string schedule_name(const ::testing::TestParamInfo<Schedule>& info) {
  switch (info.param.mode) {
    case StreamSettings::Schedule::kEager:
      return "eager";
    case StreamSettings::Schedule::kAdversarial:
      return "adversarial";
    case StreamSettings::Schedule::kRandom:
      return "random_seed" + std::to_string(info.param.seed);
  }
  return "unknown";
}

INSTANTIATE_TEST_SUITE_P(Schedules, Graph,
                         ::testing::Values(Schedule{StreamSettings::Schedule::kEager, 0},
                                           Schedule{StreamSettings::Schedule::kAdversarial, 0},
                                           Schedule{StreamSettings::Schedule::kRandom, 1},
                                           Schedule{StreamSettings::Schedule::kRandom, 2},
                                           Schedule{StreamSettings::Schedule::kRandom, 3},
                                           Schedule{StreamSettings::Schedule::kRandom, 4},
                                           Schedule{StreamSettings::Schedule::kRandom, 5}),
                         schedule_name);

}  // namespace
}  // namespace mockdev::testing
