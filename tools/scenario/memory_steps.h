#pragma once
// What the caching-allocator steps (steps_memory.cpp, steps_host_memory.cpp, with their
// checks in memory_checks.cpp) give the rest of the scenario runner:
//
//  * expected-value checks: a step whose value is a map of statistics or a snapshot has
//    its `expect: {value: ...}` checked when the file is read (an unknown statistic is a
//    file:line error naming the closest keys; sizes may carry units, "1MiB"), and
//    normalised to what the step returns;
//  * the scenario-level setting `invariants: memory_stats`: the device allocator's
//    invariants (runtime/src/allocator/stats_invariants.h, the properties' own checks)
//    after every step.
//
// The steps keep their allocations by name in process-wide tables: a scenario runs in a
// process of its own, its steps one at a time. Not thread-safe beyond that.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reader.h"
#include "step_registry.h"

namespace accel::scenario {

// Checks an expected value at `path` and returns it as the step's value will compare.
using ExpectedValueCheck =
    std::function<nlohmann::json(const Reader&, const YAML::Node&, const std::string& path)>;

// The check of step `step`'s expected value; null when the step has none (its value is read
// as written).
const ExpectedValueCheck* expected_value_check(const std::string& step);

// Registers checks from a step file's static initialiser.
struct ExpectedValueRegistrar {
  ExpectedValueRegistrar(std::vector<std::pair<std::string, ExpectedValueCheck>> checks);
};

// `expect: {value: {KEY: N, ...}}` of a statistics step, checked: every key one of `keys`
// (else a file:line error naming the closest), values integers or sizes with units.
nlohmann::json expected_statistics(const Reader& reader, const YAML::Node& node,
                                   const std::string& path,
                                   const std::map<std::string, std::int64_t>& keys);

// The argument of a step that marks a named allocation as used on a named stream
// (`record_stream`, `record_host_use`): {alloc: NAME, stream: S}, both required, each a name
// an earlier step defined (`allocation_kind` says which table, for the error).
struct AllocationOnStream {
  std::string alloc;
  std::string stream;
};
AllocationOnStream allocation_on_stream(const StepArgs& a, const char* allocation_kind);

// A reset step's device, so the next invariant check applies the reset's rules
// (reset_peak_memory_stats when `peak`, else reset_accumulated_memory_stats).
void note_stats_reset(int device, bool peak);

// The names `invariants:` accepts ("memory_stats").
const std::vector<std::string>& invariant_names();

// The device allocator's invariants now, on every device, as "device D: invariant N: ..."
// lines (empty when all hold). Reads statistics and snapshots only; nothing before the
// allocator is initialised or in a forked child of an initialised parent (nothing to read).
// The first reading of a device starts its history (invariants 2 and 3 and the peak rule
// compare later readings with it).
std::vector<std::string> check_memory_invariants();

}  // namespace accel::scenario
