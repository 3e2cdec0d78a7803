// Property: random multi-stream programs on the simulated driver behave as the
// happens-before model predicts (stream_program_model.h), under every scheduler mode:
//  * the race detector flags exactly the programs the model says are racy;
//  * a race-free program leaves every buffer with the predicted bytes;
//  * at every checkpoint the pinned host buffers and the host-function log show exactly what
//    the schedule allows (adversarial: only work ordered before the host; eager: everything;
//    random: anything in between);
//  * host functions run in an order that respects happens-before, and all have run once every
//    device is synchronised.
// The programs drive the mock libcuda through its exported entry points, as a client would.
// At least RC_PARAMS' max_success programs run per schedule; a failure prints rapidcheck's
// reproduce string and the program.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <unistd.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "driver_loader.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"
#include "stream_program_model.h"

namespace accel::test::stream_model {
namespace {

using namespace accel::cuda_abi;  // NOLINT: the vendor's names read best here
using mockdev::testing::cuda;

// The host-function log: ids in the order the functions ran.
std::mutex g_log_mutex;
std::vector<int> g_log;
std::vector<int> g_ids;  // stable storage for the user-data pointers

void log_host_function(void* user_data) {
  std::lock_guard lock(g_log_mutex);
  g_log.push_back(*static_cast<int*>(user_data));
}

std::vector<int> host_function_log() {
  std::lock_guard lock(g_log_mutex);
  return g_log;
}

// Racy programs are the point of the property, and the simulation prints each race it finds on
// stderr; while a program runs, stderr goes to /dev/null (the model's verdict and the control
// API's race list are what the property compares).
class QuietStderr {
 public:
  QuietStderr() {
    std::fflush(stderr);
    saved_ = ::dup(2);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
      ::dup2(null, 2);
      ::close(null);
    }
  }
  ~QuietStderr() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, 2);
      ::close(saved_);
    }
  }
  QuietStderr(const QuietStderr&) = delete;
  QuietStderr& operator=(const QuietStderr&) = delete;

 private:
  int saved_ = -1;
};

#define CU_OK(call) RC_ASSERT((call) == CUDA_SUCCESS)

struct Coverage {
  std::size_t programs = 0;
  std::size_t racy = 0;
  std::size_t commands = 0;
  std::size_t checkpoints = 0;
};

// The driver objects of one program.
class Machine {
 public:
  explicit Machine(Schedule schedule, std::uint64_t seed) {
    mockdev::MachineSpec spec = mockdev::load_machine("4xh100");
    spec.streams.schedule = to_settings(schedule);
    spec.streams.seed = seed;
    spec.streams.races = mockdev::RacePolicy::kReport;
    mockdev::control::reset(spec);
    {
      std::lock_guard lock(g_log_mutex);
      g_log.clear();
    }
    CU_OK(cuda().cuInit(0));
    for (int d = 0; d < kDevices; ++d) {
      CU_OK(cuda().cuDevicePrimaryCtxRetain(&contexts_[d], d));
      CU_OK(cuda().cuCtxSetCurrent(contexts_[d]));
      for (int s = 0; s < kStreamsPerDevice; ++s) {
        const int stream = d * kStreamsPerDevice + s;
        if (is_legacy(stream)) {
          streams_[stream] = reinterpret_cast<CUstream>(kStreamLegacy);
        } else {
          CU_OK(cuda().cuStreamCreate(&streams_[stream],
                                      is_blocking(stream) ? CU_STREAM_DEFAULT
                                                          : CU_STREAM_NON_BLOCKING));
        }
      }
      for (int b = 0; b < kDeviceBuffersPerDevice; ++b) {
        CUdeviceptr p = 0;
        CU_OK(cuda().cuMemAlloc_v2(&p, kBufferBytes));
        CU_OK(cuda().cuMemsetD8_v2(p, initial_value(d * kDeviceBuffersPerDevice + b),
                                   kBufferBytes));
        device_buffers_[d * kDeviceBuffersPerDevice + b] = p;
      }
      for (int e = 0; e < kEventsPerDevice; ++e) {
        CU_OK(cuda().cuEventCreate(&events_[d * kEventsPerDevice + e], CU_EVENT_DISABLE_TIMING));
      }
      CU_OK(cuda().cuCtxSynchronize());
    }
    CU_OK(cuda().cuCtxSetCurrent(contexts_[0]));
    for (int h = 0; h < kHostBuffers; ++h) {
      void* p = nullptr;
      CU_OK(cuda().cuMemAllocHost_v2(&p, kBufferBytes));
      std::memset(p, initial_value(kDeviceBuffers + h), kBufferBytes);
      host_buffers_[h] = static_cast<std::uint8_t*>(p);
    }
    // Everything above is ordered before the program: every device is idle.
    for (int d = 0; d < kDevices; ++d) {
      CU_OK(cuda().cuCtxSetCurrent(contexts_[d]));
      CU_OK(cuda().cuCtxSynchronize());
    }
    mockdev::control::clear_races();
  }

  ~Machine() {
    // Best effort: the next program power-cycles the machine anyway.
    for (std::uint8_t* h : host_buffers_) {
      if (h != nullptr) cuda().cuMemFreeHost(h);
    }
  }

  static mockdev::StreamSettings::Schedule to_settings(Schedule s) {
    switch (s) {
      case Schedule::kEager:
        return mockdev::StreamSettings::Schedule::kEager;
      case Schedule::kRandom:
        return mockdev::StreamSettings::Schedule::kRandom;
      case Schedule::kAdversarial:
        return mockdev::StreamSettings::Schedule::kAdversarial;
    }
    return mockdev::StreamSettings::Schedule::kEager;
  }

  void use_device(int device) { CU_OK(cuda().cuCtxSetCurrent(contexts_[device])); }

  void run(const Command& c, std::vector<int>& ids) {
    switch (c.kind) {
      case Kind::kMemset: {
        use_device(device_of_stream(c.stream));
        CU_OK(cuda().cuMemsetD8Async(address(c.dst, c.first_chunk), c.value, bytes(c),
                                     streams_[c.stream]));
        return;
      }
      case Kind::kCopy:
        copy(c);
        return;
      case Kind::kHostFunction:
        use_device(device_of_stream(c.stream));
        CU_OK(cuda().cuLaunchHostFunc(streams_[c.stream], log_host_function, &ids[c.id]));
        return;
      case Kind::kRecord:
        use_device(device_of_stream(c.stream));
        CU_OK(cuda().cuEventRecord(events_[c.event], streams_[c.stream]));
        return;
      case Kind::kWait:
        use_device(device_of_stream(c.stream));
        CU_OK(cuda().cuStreamWaitEvent(streams_[c.stream], events_[c.event], 0));
        return;
      case Kind::kStreamSync:
        use_device(device_of_stream(c.stream));
        CU_OK(cuda().cuStreamSynchronize(streams_[c.stream]));
        return;
      case Kind::kEventSync:
        CU_OK(cuda().cuEventSynchronize(events_[c.event]));
        return;
      case Kind::kDeviceSync:
        use_device(c.device);
        CU_OK(cuda().cuCtxSynchronize());
        return;
      case Kind::kCheckpoint:
        return;  // the caller reads the host buffers
    }
  }

  std::uint8_t host_chunk(int host_buffer, int chunk, bool& uniform) const {
    const std::uint8_t* p = host_buffers_[host_buffer] + chunk * kChunkBytes;
    uniform = std::all_of(p, p + kChunkBytes, [&](std::uint8_t b) { return b == p[0]; });
    return p[0];
  }

  // Synchronises every device, then reads every buffer's chunks.
  std::array<std::array<std::uint8_t, kChunks>, kBuffers> final_contents() {
    std::array<std::array<std::uint8_t, kChunks>, kBuffers> out{};
    for (int d = 0; d < kDevices; ++d) {
      use_device(d);
      CU_OK(cuda().cuCtxSynchronize());
    }
    std::vector<std::uint8_t> bytes_read(kBufferBytes);
    for (int b = 0; b < kBuffers; ++b) {
      const std::uint8_t* p = nullptr;
      if (is_host_buffer(b)) {
        p = host_buffers_[b - kDeviceBuffers];
      } else {
        use_device(device_of_buffer(b));
        CU_OK(cuda().cuMemcpyDtoH_v2(bytes_read.data(), device_buffers_[b], kBufferBytes));
        p = bytes_read.data();
      }
      for (int k = 0; k < kChunks; ++k) {
        const std::uint8_t* chunk = p + k * kChunkBytes;
        RC_ASSERT(std::all_of(chunk, chunk + kChunkBytes,
                              [&](std::uint8_t v) { return v == chunk[0]; }));
        out[b][k] = chunk[0];
      }
    }
    return out;
  }

 private:
  static std::size_t bytes(const Command& c) {
    return static_cast<std::size_t>(c.last_chunk - c.first_chunk) * kChunkBytes;
  }
  CUdeviceptr address(int device_buffer, int chunk) const {
    return device_buffers_[device_buffer] + static_cast<CUdeviceptr>(chunk) * kChunkBytes;
  }
  std::uint8_t* host_address(int buffer, int chunk) const {
    return host_buffers_[buffer - kDeviceBuffers] + chunk * kChunkBytes;
  }

  void copy(const Command& c) {
    const int stream_device = device_of_stream(c.stream);
    use_device(stream_device);
    CUstream s = streams_[c.stream];
    if (is_host_buffer(c.src)) {
      CU_OK(cuda().cuMemcpyHtoDAsync_v2(address(c.dst, c.first_chunk),
                                        host_address(c.src, c.first_chunk), bytes(c), s));
    } else if (is_host_buffer(c.dst)) {
      CU_OK(cuda().cuMemcpyDtoHAsync_v2(host_address(c.dst, c.first_chunk),
                                        address(c.src, c.first_chunk), bytes(c), s));
    } else if (device_of_buffer(c.src) == device_of_buffer(c.dst)) {
      CU_OK(cuda().cuMemcpyDtoDAsync_v2(address(c.dst, c.first_chunk),
                                        address(c.src, c.first_chunk), bytes(c), s));
    } else {
      CU_OK(cuda().cuMemcpyPeerAsync(address(c.dst, c.first_chunk),
                                     contexts_[device_of_buffer(c.dst)],
                                     address(c.src, c.first_chunk),
                                     contexts_[device_of_buffer(c.src)], bytes(c), s));
    }
  }

  std::array<CUcontext, kDevices> contexts_{};
  std::array<CUstream, kDevices * kStreamsPerDevice> streams_{};
  std::array<CUevent, kDevices * kEventsPerDevice> events_{};
  std::array<CUdeviceptr, kDeviceBuffers> device_buffers_{};
  std::array<std::uint8_t*, kHostBuffers> host_buffers_{};
};

std::string set_text(const std::set<std::uint8_t>& values) {
  std::string t;
  for (std::uint8_t v : values) t += (t.empty() ? "" : ",") + std::to_string(v);
  return "{" + t + "}";
}

void check_program(Schedule schedule, const Program& program, std::uint64_t seed,
                   Coverage& coverage) {
  RC_TAG(program.size() / 10 * 10);
  const Prediction prediction = predict(program, schedule);
  RC_LOG() << describe(program);
  for (const std::string& r : prediction.races) RC_LOG() << "model race: " << r << "\n";

  int host_functions = 0;
  for (const Command& c : program) host_functions += c.kind == Kind::kHostFunction ? 1 : 0;
  std::vector<int> ids(static_cast<std::size_t>(host_functions));
  for (int i = 0; i < host_functions; ++i) ids[static_cast<std::size_t>(i)] = i;

  QuietStderr quiet;
  Machine machine(schedule, seed);
  std::size_t checkpoint = 0;
  for (const Command& c : program) {
    machine.run(c, ids);
    if (c.kind != Kind::kCheckpoint) continue;
    const CheckpointExpectation& e = prediction.checkpoints[checkpoint++];
    const std::vector<int> log = host_function_log();
    const std::set<int> ran(log.begin(), log.end());
    RC_ASSERT(ran.size() == log.size());  // no host function ran twice
    for (int id : e.host_functions_required) {
      if (!ran.contains(id)) RC_FAIL("checkpoint " + std::to_string(checkpoint) +
                                     ": host function #" + std::to_string(id) + " has not run");
    }
    for (int id : ran) {
      if (!e.host_functions_allowed.contains(id)) {
        RC_FAIL("checkpoint " + std::to_string(checkpoint) + ": host function #" +
                std::to_string(id) + " ran before anything waited for it");
      }
    }
    if (prediction.racy) continue;
    for (int h = 0; h < kHostBuffers; ++h) {
      for (int k = 0; k < kChunks; ++k) {
        bool uniform = false;
        const std::uint8_t v = machine.host_chunk(h, k, uniform);
        RC_ASSERT(uniform);
        if (!e.allowed[h][k].contains(v)) {
          RC_FAIL("checkpoint " + std::to_string(checkpoint) + ": host buffer " +
                  std::to_string(h) + " chunk " + std::to_string(k) + " holds " +
                  std::to_string(v) + ", allowed " + set_text(e.allowed[h][k]));
        }
      }
    }
  }
  const auto contents = machine.final_contents();
  const std::vector<int> log = host_function_log();
  RC_ASSERT(log.size() == static_cast<std::size_t>(host_functions));
  for (const auto& [before, after] : prediction.host_function_order) {
    const auto a = std::find(log.begin(), log.end(), before);
    const auto b = std::find(log.begin(), log.end(), after);
    if (!(a < b)) {
      RC_FAIL("host function #" + std::to_string(before) + " must run before #" +
              std::to_string(after));
    }
  }
  const std::uint64_t detected = mockdev::control::race_count();
  if (prediction.racy) {
    ++coverage.racy;
    if (detected == 0) RC_FAIL("the model finds a race the detector missed");
  } else {
    if (detected != 0) {
      RC_FAIL("the detector reports a race in a race-free program: " +
              mockdev::control::races().front().text);
    }
    for (int b = 0; b < kBuffers; ++b) {
      for (int k = 0; k < kChunks; ++k) {
        if (contents[b][k] != prediction.final_contents[b][k]) {
          RC_FAIL("buffer " + std::to_string(b) + " chunk " + std::to_string(k) + " holds " +
                  std::to_string(contents[b][k]) + ", the model says " +
                  std::to_string(prediction.final_contents[b][k]));
        }
      }
    }
  }
  ++coverage.programs;
  coverage.commands += program.size();
  coverage.checkpoints += checkpoint;
}

void run_property(Schedule schedule, const char* name) {
  Coverage coverage;
  const bool ok = rc::check(std::string("stream programs, ") + name + " schedule", [&] {
    const Program program = *gen_program(40);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    check_program(schedule, program, seed, coverage);
  });
  std::cout << "[ property ] stream programs (" << name << " schedule): " << coverage.programs
            << " programs, " << coverage.commands << " commands, " << coverage.checkpoints
            << " checkpoints, " << coverage.racy << " racy (all detected)" << std::endl;
  EXPECT_TRUE(ok);
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted));
}

TEST(StreamPrograms, EagerSchedule) { run_property(Schedule::kEager, "eager"); }
TEST(StreamPrograms, RandomSchedule) { run_property(Schedule::kRandom, "random"); }
TEST(StreamPrograms, AdversarialSchedule) { run_property(Schedule::kAdversarial, "adversarial"); }

}  // namespace
}  // namespace accel::test::stream_model
