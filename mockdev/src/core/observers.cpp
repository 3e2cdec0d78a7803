// make_observers (core/op_observer.h): the timeline trace when MOCKDEV_TRACE names a file,
// then the race detector unless the race policy is off. The trace writer comes first, so it
// has seen an operation before the detector reports a race on it (and flushes the trace
// before an abort).

#include <cstdlib>
#include <string>

#include "core/op_observer.h"
#include "core/race_detector.h"
#include "core/race_log.h"
#include "core/race_policy.h"
#include "core/trace_writer.h"

namespace mockdev::core {
namespace {

// The process's trace file: opened at the first machine installation that sees
// MOCKDEV_TRACE set (non-empty), then kept for the life of the process (Note [Leaky state]
// in core/engine.h) so every later machine appends to it. A path that cannot be written
// is reported once and tracing stays off.
TraceFile* process_trace_file() MOCKDEV_REQUIRES(g_engine_mutex) {
  static bool opened = false;
  static TraceFile* file = nullptr;
  if (!opened) {
    const char* path = std::getenv(kTraceVariable);
    if (path == nullptr || path[0] == '\0') return nullptr;
    opened = true;
    file = TraceFile::open(path).release();  // never deleted
  }
  return file != nullptr && !file->failed() ? file : nullptr;
}

}  // namespace

std::vector<std::unique_ptr<OpObserver>> make_observers(const MachineSpec& machine) {
  std::vector<std::unique_ptr<OpObserver>> observers;
  clear_race_log();  // races are per machine installation

  TraceObserver* trace = nullptr;
  if (TraceFile* file = process_trace_file()) {
    auto writer = make_trace_writer(*file, machine, /*flush_at_exit=*/true);
    trace = writer.get();
    observers.push_back(std::move(writer));
  }

  const RacePolicy policy = race_policy_in_force(machine);
  if (policy != RacePolicy::kOff) {
    RaceDetectorOptions options;
    options.policy = policy;
    options.listeners.push_back(&race_log());
    if (trace != nullptr) options.listeners.push_back(trace);
    observers.push_back(make_race_detector(std::move(options)));
  }
  return observers;
}

}  // namespace mockdev::core
