#pragma once
// A fixture for the stream simulation's tests: the 4xh100 machine with a chosen schedule,
// the driver initialised and device 0's primary context current.

#include <cstdio>
#include <string>

#include "mock_test.h"
#include "mockdev/streams.h"

namespace mockdev::testing {

class StreamTest : public MockTest {
 protected:
  using Schedule = StreamSettings::Schedule;

  // Power-cycles to 4xh100 with `schedule` (and `seed`), then cuInit + device 0 current.
  CUcontext start(Schedule schedule, std::uint64_t seed = 0) {
    MachineSpec m = load_machine("4xh100");
    m.streams.schedule = schedule;
    m.streams.seed = seed;
    control::reset(m);
    return init_and_make_current(0);
  }

  static CUstream make_stream(unsigned flags = 0) {
    CUstream s = nullptr;
    EXPECT_EQ(cu().cuStreamCreate(&s, flags), CUDA_SUCCESS);
    return s;
  }
  static CUdeviceptr alloc(std::size_t bytes) {
    CUdeviceptr d = 0;
    EXPECT_EQ(cu().cuMemAlloc_v2(&d, bytes), CUDA_SUCCESS);
    return d;
  }
  // The first byte at device address `d` (through a synchronous DtoH copy, which waits).
  static int byte_at(CUdeviceptr d) {
    unsigned char b = 0xEE;
    EXPECT_EQ(cu().cuMemcpyDtoH_v2(&b, d, 1), CUDA_SUCCESS);
    return b;
  }
  static std::size_t pending(CUstream s) {
    auto q = streams::cuda_stream_queue(s);
    EXPECT_TRUE(q.has_value());
    return q ? streams::pending_operations(*q).size() : 999;
  }
};

// How reports and traces name a created stream: "CUstream 0x55d0c0a1b2c0".
inline std::string handle_of(CUstream stream) {
  char text[48];
  std::snprintf(text, sizeof text, "CUstream %p", static_cast<void*>(stream));
  return text;
}

}  // namespace mockdev::testing
