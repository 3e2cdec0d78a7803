// make_observers (core/op_observer.h): the timeline trace when MOCKDEV_TRACE names a file,
// then the race detector unless the race policy is off. The trace writer comes first, so it
// has seen an operation before the detector reports a race on it (and flushes the trace
// before an abort). The race log starts afresh with the machine's policy, so races found
// under `fail` count towards the exit status (Note [Failing on races] in
// core/process_exit.h).

#include <string>

#include "core/op_observer.h"
#include "core/race_detector.h"
#include "core/race_log.h"
#include "core/race_policy.h"
#include "core/trace_writer.h"

namespace mockdev::core {

std::vector<std::unique_ptr<OpObserver>> make_observers(const MachineSpec& machine) {
  std::vector<std::unique_ptr<OpObserver>> observers;
  const RacePolicy policy = race_policy_in_force(machine);
  begin_race_log(policy, race_policy_set_by_variable());  // races are per machine installation

  TraceObserver* trace = nullptr;
  if (TraceFile* file = process_trace_file()) {
    auto writer = make_trace_writer(*file, machine, /*flush_at_exit=*/true);
    trace = writer.get();
    observers.push_back(std::move(writer));
  }

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
