#pragma once
// The device-index state machine: a model of what each thread's current device must be
// under any program of set_device_index, DeviceIndexGuard enter/leave (empty, valid and
// out-of-range indices), exceptions thrown inside a guard's scope, and queries, run on
// kThreads long-lived threads and checked against the model after every step.
//
// The model: per thread, the current index and a stack of open guards (each remembers
// the index to restore, or nothing for an empty guard). The system under test: the
// process-wide runtime, driven through WorkerThreads, with each thread's open guards
// living on that thread (created and destroyed there, innermost first).
// Not thread-safe itself: one property run at a time.

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accel/device_index_guard.h"
#include "worker_thread.h"

namespace accel::test::device_model {

inline constexpr int kThreads = 3;
inline constexpr int kDevices = 4;

struct ThreadModel {
  int current = 0;
  std::vector<std::optional<int>> guards;  // index each open guard restores (innermost last)
};

struct Model {
  std::array<ThreadModel, kThreads> threads;
};

// Counters printed by the tests, so a run shows how much it covered.
struct Coverage {
  std::size_t programs = 0;
  std::size_t commands = 0;
  std::size_t rejected = 0;  // commands that threw as the model predicted
};

// Note [Counterexamples as scenarios]
// Every program is also written down as a scenario (docs/SCENARIOS.md) while it runs: each
// command becomes the step that makes the same call on the same thread (t0..t2), with the
// model's prediction as its expectation, followed by one current_device_index check per
// thread. rapidcheck's last failing run is its shrunk counterexample, so when the property
// fails, the text of that run is written to a file (ACCEL_COUNTEREXAMPLE_DIR, default the
// working directory) and its path printed next to rapidcheck's reproduce string;
// `accel scenario run <file>` then fails the same way, deterministically, and the file
// becomes a regression test by being copied into scenarios/behaviours/.
class ScenarioRecorder {
 public:
  void begin();  // a new program
  // One step (`text` is the step's first line, e.g. "set_device_index: 5"; `body` any
  // further lines, already indented; `expect` the flow map after "expect: ", or "").
  void step(int thread, const std::string& text, const std::string& expect = "",
            const std::string& body = "");
  void mark_failed();  // keep the current program: it failed
  bool has_failure() const { return !failed_.empty(); }
  // The scenario text of the last failing program.
  std::string scenario(const std::string& description) const;
  // Writes scenario() to a file; returns its path ("" if it cannot be written).
  std::string write(const std::string& description) const;

 private:
  std::vector<std::string> current_;
  std::vector<std::string> failed_;
};

// The threads and the guards open on each of them.
class Sut {
 public:
  Sut(std::array<WorkerThread, kThreads>& workers, Coverage& coverage,
      ScenarioRecorder& recorder);
  // Leaves every open guard, innermost first, on its own thread.
  ~Sut();
  Sut(const Sut&) = delete;
  Sut& operator=(const Sut&) = delete;

  WorkerThread& worker(int thread) { return workers_[thread]; }
  std::vector<std::unique_ptr<DeviceIndexGuard>>& guards(int thread) { return guards_[thread]; }
  Coverage& coverage() { return coverage_; }
  ScenarioRecorder& recorder() { return recorder_; }

  // Every thread's current_device_index(), each read on its own thread.
  std::array<int, kThreads> current_indices();

 private:
  std::array<WorkerThread, kThreads>& workers_;
  std::array<std::vector<std::unique_ptr<DeviceIndexGuard>>, kThreads> guards_;
  Coverage& coverage_;
  ScenarioRecorder& recorder_;
};


// Generates and runs random programs (rapidcheck state machine) until rapidcheck's
// configured max_success; returns whether every program matched the model. On a failure,
// writes the shrunk counterexample as a scenario (Note [Counterexamples as scenarios]).
bool check_device_index_programs(const char* description, Coverage& coverage);

}  // namespace accel::test::device_model
