#include "device_index_model.h"

#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <cstdlib>
#include <functional>
#include <ostream>
#include <string>

#include "accel/accelerator.h"
#include "accel/error.h"

namespace accel::test::device_model {

namespace {

using Command = rc::state::Command<Model, Sut>;

// Thrown inside a guard's scope by ThrowInGuard.
struct BodyFailure {};

// An index for set_device_index / DeviceIndexGuard: mostly valid, sometimes negative,
// just past the device count, or past the DeviceIndex range.
rc::Gen<int> gen_index() {
  return rc::gen::weightedOneOf<int>({{6, rc::gen::inRange(0, kDevices)},
                                      {1, rc::gen::inRange(-3, 0)},
                                      {1, rc::gen::inRange(kDevices, kDevices + 3)},
                                      {1, rc::gen::element(127, 128, 1000)}});
}

bool valid(int index) { return index >= 0 && index < kDevices; }

// The error kind the runtime must raise for an index it rejects; nullopt when accepted.
std::optional<ErrorKind> guard_rejection(int index) {
  if (valid(index)) return std::nullopt;
  if (index < 0 || index > 127) return ErrorKind::kIndex;  // DeviceIndex range
  return ErrorKind::kDriver;                               // invalid device ordinal
}

std::optional<ErrorKind> set_rejection(int index) {
  if (index < 0) return std::nullopt;  // negative: a silent no-op
  return guard_rejection(index);
}

// Runs `action` on `thread`; returns the kind of accel::Error it threw, if any. Any other
// exception fails the property.
std::optional<ErrorKind> run_on(Sut& sut, int thread, const std::function<void()>& action) {
  std::optional<ErrorKind> thrown;
  sut.worker(thread).run([&] {
    try {
      action();
    } catch (const Error& e) {
      thrown = e.kind();
    }
  });
  return thrown;
}

std::string error_expectation(std::optional<ErrorKind> kind) {
  return kind ? "{error: " + std::string(to_string(*kind)) + "}" : std::string();
}

// A test of the counterexample writer only (tests/tools/scenario/CMakeLists.txt,
// scenario_runner.counterexample_*): ACCEL_DEVICE_MODEL_MUTANT=leave_guard_keeps_device
// makes the model forget to restore a guard's device, so the property fails on a correct
// runtime and its counterexample, replayed, fails the same way.
bool mutant_leave_guard_keeps_device() {
  const char* value = std::getenv("ACCEL_DEVICE_MODEL_MUTANT");
  return value != nullptr && std::string(value) == "leave_guard_keeps_device";
}

void check_against(const Model& expected, Sut& sut) {
  for (int t = 0; t < kThreads; ++t) {
    sut.recorder().step(t, "current_device_index:",
                        "{value: " + std::to_string(expected.threads[t].current) + "}");
  }
  const auto actual = sut.current_indices();
  for (int t = 0; t < kThreads; ++t) {
    RC_ASSERT(actual[t] == expected.threads[t].current);
  }
}

struct SetDevice : Command {
  int thread = *rc::gen::inRange(0, kThreads);
  int index = *gen_index();

  void apply(Model& model) const override {
    if (valid(index)) model.threads[thread].current = index;
  }
  void run(const Model& model, Sut& sut) const override {
    sut.recorder().step(thread, "set_device_index: " + std::to_string(index),
                        error_expectation(set_rejection(index)));
    const auto thrown = run_on(sut, thread, [&] { set_device_index(index); });
    RC_ASSERT(thrown == set_rejection(index));
    if (thrown) ++sut.coverage().rejected;
    check_against(nextState(model), sut);
  }
  void show(std::ostream& os) const override {
    os << "thread " << thread << ": set_device_index(" << index << ")";
  }
};

struct EnterGuard : Command {
  int thread = *rc::gen::inRange(0, kThreads);
  std::optional<int> index = *rc::gen::weightedOneOf<std::optional<int>>(
      {{1, rc::gen::just(std::optional<int>())},
       {4, rc::gen::map(gen_index(), [](int i) { return std::optional<int>(i); })}});

  void apply(Model& model) const override {
    ThreadModel& t = model.threads[thread];
    if (!index) {
      t.guards.push_back(std::nullopt);
    } else if (valid(*index)) {
      t.guards.push_back(t.current);
      t.current = *index;
    }  // rejected: nothing opened, nothing changed
  }
  void run(const Model& model, Sut& sut) const override {
    sut.recorder().step(thread,
                        "guard_enter: " + (index ? std::to_string(*index) : std::string("null")),
                        error_expectation(index ? guard_rejection(*index) : std::nullopt));
    const auto thrown = run_on(sut, thread, [&] {
      sut.guards(thread).push_back(std::make_unique<DeviceIndexGuard>(index));
    });
    RC_ASSERT(thrown == (index ? guard_rejection(*index) : std::nullopt));
    if (thrown) ++sut.coverage().rejected;
    check_against(nextState(model), sut);
  }
  void show(std::ostream& os) const override {
    os << "thread " << thread << ": enter DeviceIndexGuard("
       << (index ? std::to_string(*index) : std::string("nullopt")) << ")";
  }
};

struct LeaveGuard : Command {
  int thread;

  explicit LeaveGuard(const Model& model) {
    std::vector<int> open;
    for (int t = 0; t < kThreads; ++t) {
      if (!model.threads[t].guards.empty()) open.push_back(t);
    }
    RC_PRE(!open.empty());
    thread = *rc::gen::elementOf(open);
  }

  void checkPreconditions(const Model& model) const override {
    RC_PRE(!model.threads[thread].guards.empty());
  }
  void apply(Model& model) const override {
    ThreadModel& t = model.threads[thread];
    if (t.guards.back() && !mutant_leave_guard_keeps_device()) t.current = *t.guards.back();
    t.guards.pop_back();
  }
  void run(const Model& model, Sut& sut) const override {
    sut.recorder().step(thread, "guard_exit:");
    const auto thrown = run_on(sut, thread, [&] { sut.guards(thread).pop_back(); });
    RC_ASSERT(!thrown);
    check_against(nextState(model), sut);
  }
  void show(std::ostream& os) const override {
    os << "thread " << thread << ": leave the innermost guard";
  }
};

struct ThrowInGuard : Command {
  int thread = *rc::gen::inRange(0, kThreads);
  int index = *rc::gen::inRange(0, kDevices);
  std::optional<int> inner = *rc::gen::map(rc::gen::inRange(-1, kDevices), [](int i) {
    return i < 0 ? std::optional<int>() : std::optional<int>(i);
  });

  void run(const Model& model, Sut& sut) const override {
    std::string body = "      index: " + std::to_string(index) + "\n      steps:\n";
    if (inner) body += "        - set_device_index: " + std::to_string(*inner) + "\n";
    body += "        - current_device_index:\n          expect: {value: " +
            std::to_string(inner ? *inner : index) + "}\n        - raise: body failure\n";
    sut.recorder().step(thread, "guard:", "{error: user, message: body failure}", body);
    int inside = -1;
    bool caught = false;
    run_on(sut, thread, [&] {
      try {
        DeviceIndexGuard guard(index);
        if (inner) set_device_index(*inner);
        inside = current_device_index();
        throw BodyFailure{};
      } catch (const BodyFailure&) {
        caught = true;
      }
    });
    RC_ASSERT(caught);
    RC_ASSERT(inside == (inner ? *inner : index));
    check_against(nextState(model), sut);
  }
  void show(std::ostream& os) const override {
    os << "thread " << thread << ": throw inside DeviceIndexGuard(" << index << ")";
    if (inner) os << " after set_device_index(" << *inner << ")";
  }
};

struct Query : Command {
  int thread = *rc::gen::inRange(0, kThreads);

  void run(const Model& model, Sut& sut) const override {
    sut.recorder().step(thread, "current_device_index:",
                        "{value: " + std::to_string(model.threads[thread].current) + "}");
    int index = -1;
    RC_ASSERT(!run_on(sut, thread, [&] { index = current_device_index(); }));
    RC_ASSERT(index == model.threads[thread].current);
  }
  void show(std::ostream& os) const override {
    os << "thread " << thread << ": current_device_index()";
  }
};

}  // namespace

Sut::Sut(std::array<WorkerThread, kThreads>& workers, Coverage& coverage,
         ScenarioRecorder& recorder)
    : workers_(workers), coverage_(coverage), recorder_(recorder) {
  // Every program starts from the model's initial state: device 0 on every thread.
  for (int t = 0; t < kThreads; ++t) {
    recorder_.step(t, "set_device_index: 0");
    workers_[t].run([] { set_device_index(0); });
  }
}

Sut::~Sut() {
  for (int t = 0; t < kThreads; ++t) {
    auto& guards = guards_[t];
    workers_[t].run([&guards] {
      while (!guards.empty()) guards.pop_back();
    });
  }
}

std::array<int, kThreads> Sut::current_indices() {
  std::array<int, kThreads> indices{};
  for (int t = 0; t < kThreads; ++t) {
    workers_[t].run([&indices, t] { indices[t] = current_device_index(); });
  }
  return indices;
}

bool check_device_index_programs(const char* description, Coverage& coverage) {
  std::array<WorkerThread, kThreads> workers;
  std::string setup = "machine: 4xh100\nthreads: [";
  for (int t = 0; t < kThreads; ++t) setup += (t ? ", t" : "t") + std::to_string(t);
  ScenarioRecorder recorder({.kind = "device_index",
                             .title = "the device-index property",
                             .source = "tests/property/device_index_model.h",
                             .model = "the device-index model",
                             .setup = setup + "]\n"});
  const bool ok = rc::check(description, [&] {
    recorder.run([&] {
      Sut sut(workers, coverage, recorder);
      const auto commands = *rc::state::gen::commands(
          Model{}, rc::state::gen::execOneOfWithArgs<SetDevice, EnterGuard, LeaveGuard,
                                                     ThrowInGuard, Query>());
      rc::state::runAll(commands, Model{}, sut);
      ++coverage.programs;
      coverage.commands += commands.size();
    });
  });
  recorder.report(description, ok);
  return ok;
}

}  // namespace accel::test::device_model
