#pragma once
// The step vocabulary of scenario files: a registry that each capability extends from a
// file of its own (steps_device.cpp, steps_guard.cpp, steps_lazy_init.cpp, steps_random.cpp,
// steps_faults.cpp; streams, events, graphs and the allocator add steps_<capability>.cpp).
// A file registers its steps with a static StepRegistrar; the files are compiled into an
// object library, so no registration is dropped by the linker and no central list exists.
//
// A step kind turns its YAML argument into an Action when the scenario is read (so a bad
// argument is a file:line error before anything runs) and says whether it returns a value
// (an expectation on the value of a step that returns none is an error too).

#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "accel/device.h"
#include "accel/device_index_guard.h"
#include "accel/event.h"
#include "accel/graph.h"
#include "accel/stream.h"
#include "accel/stream_guard.h"
#include "reader.h"
#include "scenario.h"

namespace accel::scenario {

// What the argument parser of a step kind gets.
struct StepArgs {
  const Reader& reader;
  YAML::Node node;   // the argument (may be null)
  std::string path;  // "steps[3].set_device_index"
  std::vector<std::string> threads;  // thread names nested steps may use
};

struct StepKind {
  std::string name;
  std::string usage;  // the argument and the result, one line, for `--list-steps` and errors
  bool returns_value = false;
  std::function<Action(const StepArgs&)> parse;
};

class StepRegistry {
 public:
  // The registry every step file adds to.
  static StepRegistry& global();
  void add(StepKind kind);
  const StepKind* find(const std::string& name) const;
  std::vector<std::string> names() const;
  const std::map<std::string, StepKind>& kinds() const { return kinds_; }

 private:
  std::map<std::string, StepKind> kinds_;
};

struct StepRegistrar {
  explicit StepRegistrar(std::vector<StepKind> kinds) {
    for (auto& kind : kinds) StepRegistry::global().add(std::move(kind));
  }
};

// A user exception thrown by the `raise` step (kind "user" in expectations).
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A fork step's child did not exit 0 (error kind "child").
class ChildFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A step's expectation did not hold; carries the report already written. Stops the run.
class StepFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A guard opened by guard_enter or stream_guard_enter, closed by its exit step or at the
// end of the run. One stack per thread for both kinds, so they close innermost first
// whatever their kind, as nested `with` blocks do. Exactly one of the pointers is set.
struct OpenGuard {
  std::unique_ptr<DeviceIndexGuard> device;
  std::unique_ptr<StreamGuard> stream;
  // The thread's current stream ids of every device when it opened (the sweep checks that
  // closing it restores them).
  std::vector<std::int64_t> streams_at_entry;
};

// Streams, events and graphs made by steps, by name (stream_objects.cpp). Shared by the
// run's threads (steps run one at a time).
struct StreamObjects {
  std::vector<std::pair<std::string, Stream>> streams;  // in creation order
  std::map<std::string, std::unique_ptr<Event>> events;
  std::map<std::string, std::unique_ptr<Graph>> graphs;
  // The named object; a UserError naming it when no step made it (a name made only in a
  // forked child, or by a step that failed).
  const Stream& stream(const std::string& name) const;
  Event& event(const std::string& name);
  Graph& graph(const std::string& name);
  // The first name given to a stream equal to `stream`; empty when none.
  std::string name_of(const Stream& stream) const;
};

// The calling thread's current stream ids of devices 0 .. count-1, read from the runtime's
// per-thread table (no initialisation, no driver call: safe inside a sweep's checks).
std::vector<std::int64_t> thread_stream_snapshot(std::size_t count);
// How many devices a snapshot covers: every index the runtime's table has.
inline constexpr std::size_t kSnapshotDevices = detail::kMaxCachedIndex + 1;

// What a running step can reach: its thread's open guards, the run's shared state, and
// the way to run nested steps (a guard's body, a fork child's steps).
class StepEnv {
 public:
  virtual ~StepEnv() = default;
  // The DeviceIndexGuards opened with guard_enter on the step's thread, innermost last.
  virtual std::vector<std::unique_ptr<OpenGuard>>& open_guards() = 0;
  // Runs `steps` on the current thread, checking each one's expectations; an error that a
  // nested step did not expect propagates out of this call (as from a `with` body).
  virtual void run_body(const std::vector<Step>& steps) = 0;
  // Runs `steps` as the whole program of a forked child; returns the process exit status
  // (0 when every step held). Output goes to the run's report.
  virtual int run_child(const std::vector<Step>& steps) = 0;
  // Names recorded by lazy_call callbacks, in the order they ran.
  virtual std::vector<std::string>& lazy_log() = 0;
  // Device allocations made with driver steps, by name.
  virtual std::map<std::string, std::uint64_t>& allocations() = 0;
  // Streams, events and graphs made by steps, by name.
  virtual StreamObjects& stream_objects() = 0;
  // The --seed of this run.
  virtual std::uint64_t run_seed() const = 0;
  // True during a fault sweep: expectations are not checked (the run records invariants).
  virtual bool sweeping() const = 0;
};

// Parses a DeviceArg: an integer, a device string ("cuda:1"), or null (none).
DeviceArg device_arg(const StepArgs& args);

// Driver steps (steps_faults.cpp): a symbol of the driver file the runtime loaded
// (ACCEL_CUDA_DRIVER), and a failed driver call as the runtime's accel::Error (kDriver, or
// out_of_memory for CUDA_ERROR_OUT_OF_MEMORY).
void* driver_symbol(const char* name);
[[noreturn]] void driver_error(const char* call, int code);

// A reference to a named stream, event or graph in a step's argument: `kind` is "stream",
// "event" or "graph". `defines`: the step makes the object (a later step may use it);
// otherwise an earlier step must have made one of that kind, which the scenario reader
// checks once all steps are read, so a misspelt name is a file:line error before anything
// runs.
std::string object_name(const StepArgs& args, const YAML::Node& node, const std::string& path,
                        const std::string& kind, bool defines);

}  // namespace accel::scenario

namespace accel::scenario {
// The argument of a step that takes none must be empty (`- current_device_index:`).
inline void no_argument(const StepArgs& args) {
  if (args.node.IsDefined() && !args.node.IsNull()) {
    args.reader.fail(args.node, args.path, "no argument", Reader::shown(args.node));
  }
}
}  // namespace accel::scenario
