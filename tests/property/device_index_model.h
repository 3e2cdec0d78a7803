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
#include "scenario_recorder.h"
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
// configured max_success; returns whether every program matched the model. Every program is
// recorded as a scenario on threads t0..t2, each command followed by one current_device_index
// check per thread; on a failure the shrunk counterexample is written (Note [Counterexamples
// as scenarios] in scenario_recorder.h).
bool check_device_index_programs(const char* description, Coverage& coverage);

}  // namespace accel::test::device_model
