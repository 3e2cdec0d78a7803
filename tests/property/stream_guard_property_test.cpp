// Property: under any program of set_stream, set_device_index, StreamGuard enter / leave /
// reset_stream (valid streams and streams of devices that do not exist), and exceptions
// thrown inside a guard's scope, run on 3 long-lived threads, every thread's current device
// and current stream of every device match a model of c10's InlineStreamGuard after every
// step. Run once on the core with a mocked backend and once on the simulated 4xh100 machine
// through the real CUDA backend. rapidcheck prints the seed of a failing program
// ("Falsifiable after ... Some of your RapidCheck properties had failures. To reproduce
// these, run with: RC_PARAMS="reproduce=..."), so a failure can be repeated, and the shrunk
// program is written as a scenario (Note [Counterexamples as scenarios] in
// scenario_recorder.h): the streams made first (d<D>_s0 the default stream of device D,
// d<D>_s1..3 its pool streams of priority 0, -1, -2), each operation the step that makes the
// same call on its thread (t0..t2), then, as the property checks, every thread's
// current_device_index and current_stream of every device. Two calls have no step, so a
// program that makes them is not written: StreamGuard::reset_stream, and any use of a stream
// of a device that does not exist (Stream::unchecked).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <array>
#include <cstdlib>
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
#include "scenario_recorder.h"
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
  static const char* names[] = {"set_stream",  "set_device",   "enter_guard",
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

// A test of the counterexample writer only (tests/tools/scenario/CMakeLists.txt,
// scenario_runner.stream_counterexample_*): ACCEL_STREAM_MODEL_MUTANT=leave_guard_keeps_stream
// makes the model forget to restore the stream a guard replaced when it is left, so the
// property fails on a correct runtime and its counterexample, replayed, fails the same way.
bool mutant_leave_guard_keeps_stream() {
  const char* value = std::getenv("ACCEL_STREAM_MODEL_MUTANT");
  return value != nullptr && std::string(value) == "leave_guard_keeps_stream";
}

std::string stream_name(int device, int slot) {
  return "d" + std::to_string(device) + "_s" + std::to_string(slot);
}

class Harness {
 public:
  explicit Harness(ScenarioRecorder& recorder) : recorder_(recorder) {
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
    for (int d = 0; d < kDevices; ++d) {
      recorder_.step(-1, "default_stream: {name: " + stream_name(d, 0) +
                             ", device: " + std::to_string(d) + "}");
      for (int slot = 1; slot < kStreamsPerDevice; ++slot) {
        recorder_.step(-1, "stream: {name: " + stream_name(d, slot) + ", device: " +
                               std::to_string(d) + ", priority: " + std::to_string(1 - slot) + "}");
      }
    }
    for (int t = 0; t < kThreads; ++t) {
      for (int d = kDevices - 1; d >= 0; --d) recorder_.step(t, "set_stream: " + stream_name(d, 0));
    }
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
    for (int t = 0; t < kThreads; ++t) {
      for (std::size_t g = 0; g < model[t].guards.size(); ++g) {
        recorder_.step(t, "stream_guard_exit:");
      }
      workers_[t].run([this, t] { close_guards(t); });
    }
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
    record(op, m, bad);
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
    const bool needs_stream =
        op.kind != OpKind::kLeaveGuard && !(op.kind == OpKind::kResetStream && m.guards.empty());
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
          if (!mutant_leave_guard_keeps_stream()) m.streams[g.current_device] = g.saved;
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

  // `op` as the step that makes the same call on the same thread (Note [Counterexamples as
  // scenarios]), before it runs; `m` is its thread's model before it.
  void record(const Op& op, const ThreadModel& m, bool bad) {
    recorder_.comment(to_text(op));
    const std::string name = bad ? std::string() : stream_name(op.device, op.slot);
    const std::string no_stream = "a stream of device " + std::to_string(op.device) +
                                  ", which does not exist (Stream::unchecked): no step makes one";
    switch (op.kind) {
      case OpKind::kSetStream:
        if (bad) recorder_.unwritable("set_stream of " + no_stream);
        recorder_.step(op.thread, "set_stream: " + name);
        break;
      case OpKind::kSetDevice:
        // Past the last device: the driver's invalid device ordinal (the device-index model).
        recorder_.step(op.thread, "set_device_index: " + std::to_string(op.device),
                       bad ? "{error: driver}" : "");
        break;
      case OpKind::kEnterGuard:
        if (bad) recorder_.unwritable("a StreamGuard on " + no_stream);
        recorder_.step(op.thread, "stream_guard_enter: " + name);
        break;
      case OpKind::kLeaveGuard:
        if (m.guards.empty()) {
          recorder_.comment("no guard open on thread " + std::to_string(op.thread) + ": no call");
        } else {
          recorder_.step(op.thread, "stream_guard_exit:");
        }
        break;
      case OpKind::kResetStream:
        if (m.guards.empty()) {
          recorder_.comment("no guard open on thread " + std::to_string(op.thread) + ": no call");
        } else {
          recorder_.unwritable("StreamGuard::reset_stream: no step makes this call");
        }
        break;
      case OpKind::kThrowInGuard:
        if (bad) recorder_.unwritable("a StreamGuard on " + no_stream);
        recorder_.step(op.thread, "stream_guard:", "{error: user, message: body failure}",
                       "      stream: " + name + "\n      steps:\n        - raise: body failure\n");
        break;
    }
  }

  // The name of the stream of `device` whose id is `id` (a harness stream's).
  std::string name_of(int device, std::int64_t id) const {
    for (int slot = 0; slot < kStreamsPerDevice; ++slot) {
      if (streams_[device][slot].id() == id) return stream_name(device, slot);
    }
    return "unknown";
  }

  bool matches(const std::array<ThreadModel, kThreads>& model, const Op& after) {
    for (int t = 0; t < kThreads; ++t) {
      recorder_.step(t,
                     "current_device_index:", "{value: " + std::to_string(model[t].device) + "}");
      for (int d = 0; d < kDevices; ++d) {
        recorder_.step(t, "current_stream: " + std::to_string(d),
                       "{value: {name: " + name_of(d, model[t].streams[d]) + "}}");
      }
    }
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

  ScenarioRecorder& recorder_;
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
  ScenarioRecorder recorder({.kind = "stream_guard",
                             .title = "the StreamGuard property",
                             .source = "tests/property/stream_guard_property_test.cpp",
                             .model = "the model of c10's InlineStreamGuard",
                             .setup = "machine: 4xh100\nthreads: [t0, t1, t2]\n"});
  Harness harness(recorder);
  Coverage coverage;
  const std::string description = std::string("StreamGuard/set_stream programs (") + where + ")";
  const bool ok = rc::check(description, [&] {
    const auto program = *rc::gen::container<std::vector<Op>>(gen_op());
    recorder.run([&] { RC_ASSERT(harness.run(program, coverage)); });
  });
  recorder.report(description, ok);
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
