// Property: under any program of set_stream, set_device_index, StreamGuard enter / leave /
// reset_stream (valid streams and streams of devices that do not exist), and exceptions
// thrown inside a guard's scope, run on 3 long-lived threads, every thread's current device
// and current stream of every device match a model of c10's InlineStreamGuard after every
// step. Run once on the core with a mocked backend and once on the simulated 4xh100 machine
// through the real CUDA backend. rapidcheck prints the seed of a failing program
// ("Falsifiable after ... Some of your RapidCheck properties had failures. To reproduce
// these, run with: RC_PARAMS="reproduce=..."), so a failure can be repeated.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <array>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "accel/accelerator.h"
#include "accel/stream.h"
#include "accel/stream_guard.h"
#include "core/backend_override.h"
#include "fake_machine.h"
#include "mock_backend.h"
#include "worker_thread.h"

namespace accel::test {
namespace {

constexpr int kThreads = 3;
constexpr int kDevices = 4;
constexpr int kStreamsPerDevice = 4;  // the default stream and three pool streams

enum class OpKind { kSetStream, kSetDevice, kEnterGuard, kLeaveGuard, kResetStream, kThrowInGuard };

struct Op {
  OpKind kind;
  int thread;
  int device;  // kDevices (past the last device) for a stream the runtime must reject
  int slot;    // which of the device's streams
};

std::ostream& operator<<(std::ostream& os, const Op& op) {
  static const char* names[] = {"set_stream", "set_device", "enter_guard",
                                "leave_guard", "reset_stream", "throw_in_guard"};
  return os << names[static_cast<int>(op.kind)] << "(thread " << op.thread << ", device "
            << op.device << ", slot " << op.slot << ")";
}

// Thrown inside a guard's scope by throw_in_guard (not an accel::Error, which derives from
// std::runtime_error and must still reach the outer handler when the guard itself throws).
struct BodyFailure {};

struct GuardModel {
  int original_device;
  int current_device;
  std::int64_t saved;  // the current device's stream before the guard (or its last move)
};

struct ThreadModel {
  int device = 0;
  std::array<std::int64_t, kDevices> streams{};
  std::vector<GuardModel> guards;
};

struct Coverage {
  std::size_t programs = 0;
  std::size_t ops = 0;
  std::size_t rejected = 0;
};

class Harness {
 public:
  Harness() {
    for (int d = 0; d < kDevices; ++d) {
      std::vector<Stream>& streams = streams_.emplace_back();
      streams.push_back(Stream::default_stream(d));
      // Pool streams of three priority levels: three distinct streams per device.
      for (int slot = 1; slot < kStreamsPerDevice; ++slot) streams.push_back(Stream(d, 1 - slot));
    }
  }

  Stream stream(int device, int slot) const {
    if (device >= kDevices) return Stream::unchecked(device, 0);
    return streams_[device][slot];
  }

  // Every thread back to device 0 and the default streams, no guard open.
  void reset() {
    for (int t = 0; t < kThreads; ++t) {
      workers_[t].run([this, t] {
        close_guards(t);
        for (int d = kDevices - 1; d >= 0; --d) set_stream(Stream::default_stream(d));
      });
    }
  }

  bool run(const std::vector<Op>& program, Coverage& coverage) {
    reset();
    std::array<ThreadModel, kThreads> model;
    for (const Op& op : program) {
      const bool rejected = apply(op, model[op.thread]);
      if (rejected) ++coverage.rejected;
      ++coverage.ops;
      if (!matches(model, op)) return false;
    }
    for (int t = 0; t < kThreads; ++t) workers_[t].run([this, t] { close_guards(t); });
    ++coverage.programs;
    return true;
  }

 private:
  // Leaves thread t's open guards, innermost first (on thread t).
  void close_guards(int t) {
    while (!guards_[t].empty()) guards_[t].pop_back();
  }

  // Applies `op` to the model and to the runtime; true when both rejected it.
  bool apply(const Op& op, ThreadModel& m) {
    const Stream s = stream(op.device, op.slot);
    const bool bad = op.device >= kDevices;
    std::optional<std::string> failure;
    workers_[op.thread].run([&] {
      try {
        auto& guards = guards_[op.thread];
        switch (op.kind) {
          case OpKind::kSetStream:
            set_stream(s);
            break;
          case OpKind::kSetDevice:
            set_device_index(op.device);
            break;
          case OpKind::kEnterGuard:
            guards.push_back(std::make_unique<StreamGuard>(s));
            break;
          case OpKind::kLeaveGuard:
            if (!guards.empty()) guards.pop_back();
            break;
          case OpKind::kResetStream:
            if (!guards.empty()) guards.back()->reset_stream(s);
            break;
          case OpKind::kThrowInGuard:
            try {
              StreamGuard guard(s);
              throw BodyFailure{};
            } catch (const BodyFailure&) {
            }
            break;
        }
      } catch (const Error& e) {
        failure = e.what();
      }
    });
    const bool needs_stream = op.kind != OpKind::kLeaveGuard &&
                              !(op.kind == OpKind::kResetStream && m.guards.empty());
    if (bad && needs_stream) {
      RC_ASSERT(failure.has_value());
      return true;
    }
    RC_ASSERT(!failure.has_value());
    switch (op.kind) {
      case OpKind::kSetStream:
        m.device = op.device;
        m.streams[op.device] = s.id();
        break;
      case OpKind::kSetDevice:
        m.device = op.device;
        break;
      case OpKind::kEnterGuard:
        m.guards.push_back({m.device, op.device, m.streams[op.device]});
        m.device = op.device;
        m.streams[op.device] = s.id();
        break;
      case OpKind::kLeaveGuard:
        if (!m.guards.empty()) {
          const GuardModel g = m.guards.back();
          m.guards.pop_back();
          m.streams[g.current_device] = g.saved;
          m.device = g.original_device;
        }
        break;
      case OpKind::kResetStream:
        if (!m.guards.empty()) {
          GuardModel& g = m.guards.back();
          if (op.device != g.current_device) {
            m.streams[g.current_device] = g.saved;
            g.current_device = op.device;
            g.saved = m.streams[op.device];
            m.device = op.device;
          }
          m.streams[op.device] = s.id();
        }
        break;
      case OpKind::kThrowInGuard:
        break;
    }
    return false;
  }

  bool matches(const std::array<ThreadModel, kThreads>& model, const Op& after) {
    for (int t = 0; t < kThreads; ++t) {
      int device = -1;
      std::array<std::int64_t, kDevices> ids{};
      workers_[t].run([&] {
        device = current_device_index();
        for (int d = 0; d < kDevices; ++d) ids[d] = current_stream(d).id();
      });
      if (device != model[t].device || ids != model[t].streams) {
        RC_FAIL("after " + to_text(after) + ": thread " + std::to_string(t) + " is on device " +
                std::to_string(device) + " (model " + std::to_string(model[t].device) + ")");
      }
    }
    return true;
  }

  static std::string to_text(const Op& op) {
    std::ostringstream os;
    os << op;
    return os.str();
  }

  std::vector<std::vector<Stream>> streams_;  // [device][slot]
  std::array<WorkerThread, kThreads> workers_;
  std::array<std::vector<std::unique_ptr<StreamGuard>>, kThreads> guards_;
};

rc::Gen<Op> gen_op() {
  return rc::gen::build<Op>(
      rc::gen::set(&Op::kind, rc::gen::weightedElement<OpKind>({{3, OpKind::kSetStream},
                                                                {1, OpKind::kSetDevice},
                                                                {4, OpKind::kEnterGuard},
                                                                {4, OpKind::kLeaveGuard},
                                                                {2, OpKind::kResetStream},
                                                                {1, OpKind::kThrowInGuard}})),
      rc::gen::set(&Op::thread, rc::gen::inRange(0, kThreads)),
      rc::gen::set(&Op::device, rc::gen::weightedOneOf<int>({{12, rc::gen::inRange(0, kDevices)},
                                                             {1, rc::gen::just(kDevices)}})),
      rc::gen::set(&Op::slot, rc::gen::inRange(0, kStreamsPerDevice)));
}

void check_programs(const char* where) {
  Harness harness;
  Coverage coverage;
  const bool ok = rc::check(std::string("StreamGuard/set_stream programs (") + where + ")", [&] {
    const auto program = *rc::gen::container<std::vector<Op>>(gen_op());
    RC_ASSERT(harness.run(program, coverage));
  });
  EXPECT_TRUE(ok);
  std::cout << "[ property ] stream guard state machine (" << where << "): " << coverage.programs
            << " programs, " << coverage.ops << " operations on " << kThreads << " threads, "
            << coverage.rejected << " rejected as predicted" << std::endl;
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

TEST(StreamGuardProperty, MockedBackend) {
  auto machine = std::make_shared<FakeMachine>(kDevices);
  auto backend = std::make_unique<::testing::NiceMock<MockBackend>>();
  backend->install_defaults(machine);
  detail::ScopedBackendOverride override_backend(std::move(backend));
  check_programs("mocked backend");
}

TEST(StreamGuardProperty, SimulatedMachineWithCudaBackend) {
  ASSERT_EQ(device_count(), kDevices)
      << "this test runs on the simulated 4xh100 machine: set MOCKDEV_MACHINE=4xh100 and point "
         "ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY at the mock facades (ctest does)";
  check_programs("cuda backend on 4xh100");
}

}  // namespace
}  // namespace accel::test
