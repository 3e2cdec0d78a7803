// Property: replaying a captured program leaves device and host memory exactly as running
// the same program eagerly does. Programs are generated: memsets (8 and 32 bit), device
// copies, copies from pinned and from pageable host memory, host functions that log their
// order, and forks and joins between an origin stream and a side stream through events.
// Both runs use the eager schedule, where the order of completion is the program's, so even
// a program whose two streams race must give the same bytes; the schedule-dependent cases
// are in graph_test.cpp. A failing program is printed by rapidcheck with its seed.

#include <rapidcheck.h>

#include <array>
#include <cstring>
#include <iostream>
#include <vector>

#include "mock_test.h"
#include "mockdev/capture.h"

namespace mockdev::testing {
namespace {

constexpr std::size_t kBytes = 512;

struct Step {
  int kind;     // 0 memset8, 1 memset32, 2 dtod, 3 htod pinned, 4 htod pageable, 5 host fn,
                // 6 fork (side waits on origin), 7 join (origin waits on side)
  int stream;   // 0 origin, 1 side
  int buffer;   // 0 a, 1 b
  int offset;   // in 4-byte units
  int length;   // in 4-byte units
  int value;
};

struct World {
  CUstream origin = nullptr, side = nullptr;
  CUdeviceptr buffers[2] = {0, 0};
  unsigned char* pinned_in = nullptr;
  std::array<unsigned char, kBytes> pageable_in{};
  std::vector<CUevent> events;
  std::vector<int> host_log;
};

struct HostCall {
  World* world;
  int tag;
};

void log_call(void* p) {
  auto* call = static_cast<HostCall*>(p);
  call->world->host_log.push_back(call->tag);
}

// Runs `program` on the world's streams; returns false on any driver error.
bool run(World& w, const std::vector<Step>& program, std::vector<HostCall>& calls) {
  const CudaDriver& cu = cuda();
  std::size_t event = 0;
  std::size_t call = 0;
  for (const Step& s : program) {
    CUstream st = s.stream == 0 ? w.origin : w.side;
    const std::size_t off = static_cast<std::size_t>(s.offset) * 4;
    const std::size_t len =
        std::min<std::size_t>(static_cast<std::size_t>(s.length) * 4, kBytes - off);
    const CUdeviceptr buf = w.buffers[s.buffer];
    CUresult rc = CUDA_SUCCESS;
    switch (s.kind) {
      case 0:
        rc = cu.cuMemsetD8Async(buf + off, static_cast<unsigned char>(s.value), len, st);
        break;
      case 1:
        // Four different bytes, so a pattern replayed with the wrong width shows.
        rc = cu.cuMemsetD32Async(buf + off, 0x04030201u + static_cast<unsigned>(s.value), len / 4,
                                 st);
        break;
      case 2:
        rc = cu.cuMemcpyDtoDAsync_v2(w.buffers[1 - s.buffer] + (kBytes - off - len), buf + off,
                                     len, st);
        break;
      case 3:
        rc = cu.cuMemcpyHtoDAsync_v2(buf + off, w.pinned_in + off, len, st);
        break;
      case 4:
        rc = cu.cuMemcpyHtoDAsync_v2(buf + off, w.pageable_in.data() + off, len, st);
        break;
      case 5:
        calls[call] = HostCall{&w, s.value};
        rc = cu.cuLaunchHostFunc(st, log_call, &calls[call]);
        ++call;
        break;
      case 6:
      case 7: {
        CUevent e = w.events[event++];
        CUstream from = s.kind == 6 ? w.origin : w.side;
        CUstream to = s.kind == 6 ? w.side : w.origin;
        rc = cu.cuEventRecord(e, from);
        if (rc == CUDA_SUCCESS) rc = cu.cuStreamWaitEvent(to, e, 0);
        break;
      }
      default:
        return false;
    }
    if (rc != CUDA_SUCCESS) {
      std::cout << "step kind " << s.kind << " failed with " << rc << std::endl;
      return false;
    }
  }
  return true;
}

struct Result {
  std::array<unsigned char, kBytes> a{}, b{};
  std::vector<int> host_log;
  bool operator==(const Result&) const = default;
};

Result read_back(World& w) {
  Result r;
  EXPECT_EQ(cuda().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(cuda().cuMemcpyDtoH_v2(r.a.data(), w.buffers[0], kBytes), CUDA_SUCCESS);
  EXPECT_EQ(cuda().cuMemcpyDtoH_v2(r.b.data(), w.buffers[1], kBytes), CUDA_SUCCESS);
  r.host_log = w.host_log;
  return r;
}

void clear(World& w) {
  ASSERT_EQ(cuda().cuCtxSynchronize(), CUDA_SUCCESS);
  for (CUdeviceptr b : w.buffers) ASSERT_EQ(cuda().cuMemsetD8_v2(b, 0, kBytes), CUDA_SUCCESS);
  ASSERT_EQ(cuda().cuCtxSynchronize(), CUDA_SUCCESS);
  w.host_log.clear();
}

rc::Gen<Step> step() {
  return rc::gen::build<Step>(
      rc::gen::set(&Step::kind, rc::gen::inRange(0, 8)),
      rc::gen::set(&Step::stream, rc::gen::inRange(0, 2)),
      rc::gen::set(&Step::buffer, rc::gen::inRange(0, 2)),
      rc::gen::set(&Step::offset, rc::gen::inRange(0, static_cast<int>(kBytes / 4))),
      rc::gen::set(&Step::length, rc::gen::inRange(1, 48)),
      rc::gen::set(&Step::value, rc::gen::inRange(0, 256)));
}

TEST(GraphReplayProperty, ReplayEqualsEagerExecution) {
  std::size_t programs = 0, steps = 0, nodes_max = 0;
  const bool ok = rc::check("graph replay leaves memory as eager execution does", [&] {
    std::vector<Step> body = *rc::gen::container<std::vector<Step>>(step());
    // The side stream works only inside the capture: it joins first and rejoins last.
    std::vector<Step> program;
    program.push_back(Step{6, 0, 0, 0, 1, 0});
    program.insert(program.end(), body.begin(), body.end());
    program.push_back(Step{7, 0, 0, 0, 1, 0});

    control::reset(load_machine("4xh100"));
    const CudaDriver& cu = cuda();
    RC_ASSERT(cu.cuInit(0) == CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    RC_ASSERT(cu.cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
    RC_ASSERT(cu.cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    World w;
    RC_ASSERT(cu.cuStreamCreate(&w.origin, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    RC_ASSERT(cu.cuStreamCreate(&w.side, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    for (CUdeviceptr& b : w.buffers) RC_ASSERT(cu.cuMemAlloc_v2(&b, kBytes) == CUDA_SUCCESS);
    void* pinned = nullptr;
    RC_ASSERT(cu.cuMemAllocHost_v2(&pinned, kBytes) == CUDA_SUCCESS);
    w.pinned_in = static_cast<unsigned char*>(pinned);
    for (std::size_t i = 0; i < kBytes; ++i) {
      w.pinned_in[i] = static_cast<unsigned char>(i * 13 + 5);
      w.pageable_in[i] = static_cast<unsigned char>(i * 7 + 3);
    }
    w.events.resize(program.size());
    for (CUevent& e : w.events) RC_ASSERT(cu.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING) == 0);
    std::vector<HostCall> calls(program.size());

    clear(w);
    RC_ASSERT(run(w, program, calls));
    const Result eager = read_back(w);

    clear(w);
    const Result untouched = read_back(w);
    RC_ASSERT(cu.cuStreamBeginCapture_v2(w.origin, CU_STREAM_CAPTURE_MODE_GLOBAL) ==
              CUDA_SUCCESS);
    RC_ASSERT(run(w, program, calls));
    CUgraph graph = nullptr;
    RC_ASSERT(cu.cuStreamEndCapture(w.origin, &graph) == CUDA_SUCCESS);
    RC_ASSERT(read_back(w) == untouched);  // capturing ran nothing
    CUgraphExec exec = nullptr;
    RC_ASSERT(cu.cuGraphInstantiateWithFlags(&exec, graph, 0) == CUDA_SUCCESS);
    RC_ASSERT(cu.cuGraphDestroy(graph) == CUDA_SUCCESS);
    RC_ASSERT(cu.cuGraphLaunch(exec, w.origin) == CUDA_SUCCESS);
    RC_ASSERT(cu.cuStreamSynchronize(w.origin) == CUDA_SUCCESS);
    RC_ASSERT(read_back(w) == eager);
    RC_ASSERT(cu.cuGraphExecDestroy(exec) == CUDA_SUCCESS);
    RC_ASSERT(cu.cuMemFreeHost(pinned) == CUDA_SUCCESS);
    ++programs;
    steps += program.size();
    nodes_max = std::max(nodes_max, program.size());
  });
  EXPECT_TRUE(ok);
  std::cout << "[ property ] graph replay: " << programs << " programs, " << steps
            << " steps (longest " << nodes_max << ")" << std::endl;
  EXPECT_GE(programs, static_cast<std::size_t>(rc::detail::configuration().testParams.maxSuccess));
}

}  // namespace
}  // namespace mockdev::testing
