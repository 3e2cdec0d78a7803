// The control API (mockdev/control.h) over the engine core and the vendor registry
// (core/vendor_registry.h). Vendor-neutral: what only one API has (CUDA's primary contexts,
// streams and pid gate; the Level Zero driver's status) is implemented by its adapter
// (cuda/cuda_control.cpp, level_zero/ze_control.cpp), so no adapter is included here.

#include "mockdev/control.h"

#include <cstdlib>
#include <stdexcept>

#include "core/engine.h"
#include "core/memory.h"
#include "core/vendor_registry.h"
#include "machine/api_codes.h"

namespace mockdev::control {

using core::EngineLock;

void reset(const MachineSpec& machine) {
  EngineLock lock;
  core::install_machine(machine, std::nullopt);
}

void reset_from_environment() {
  MachineSpec machine = load_machine(machine_name_from_environment());  // throws before any change
  core::apply_stream_environment(machine.streams);  // MOCKDEV_SCHEDULE, MOCKDEV_SEED; throws too
  reset(machine);
}

MachineSpec machine() {
  EngineLock lock;
  return core::engine().machine;
}

std::optional<std::string> config_error() {
  EngineLock lock;
  return core::engine().config_error;
}

std::uint64_t call_count(std::string_view entry_point) {
  // Counts are kept under the exported symbol; a base name reads its symbol's count.
  if (auto resolved = machine_file::resolve_entry_point(entry_point))
    entry_point = resolved->symbol;
  EngineLock lock;
  const auto& counts = core::engine().call_counts;
  auto it = counts.find(entry_point);
  return it == counts.end() ? 0 : it->second.load(std::memory_order_relaxed);
}

std::map<std::string, std::uint64_t> call_counts() {
  EngineLock lock;
  // A count cleared to zero stays in the engine's map (Note [Counted calls]); it is listed
  // only once called again.
  std::map<std::string, std::uint64_t> listed;
  for (const auto& [name, count] : core::engine().call_counts) {
    const std::uint64_t n = count.load(std::memory_order_relaxed);
    if (n != 0) listed.emplace(name, n);
  }
  return listed;
}

void reset_call_counts() {
  EngineLock lock;
  core::clear_call_counts();
}

void fail_call(std::string_view entry_point, std::uint64_t nth, int code) {
  std::optional<machine_file::EntryPointName> resolved =
      machine_file::resolve_entry_point(entry_point);
  if (!resolved) {
    throw std::invalid_argument("mockdev::control::fail_call: expected " +
                                machine_file::expected_entry_point(entry_point) + ", got '" +
                                std::string(entry_point) + "'");
  }
  EngineLock lock;
  // Faults match by exported symbol name, which is unique across APIs.
  core::add_call_fault(core::ActiveCallFault{std::string(resolved->symbol), nth, code, 0});
}

void set_sticky_error(int device, int code) {
  EngineLock lock;
  core::engine().sticky.push_back(core::ActiveSticky{Api::kCuda, device, code, 0, 0});
}

void clear_faults() {
  EngineLock lock;
  core::clear_faults();
}

bool driver_initialized(Api api) {
  const core::ApiRow& row = core::api_row(api);
  EngineLock lock;
  return row.initialized != nullptr && row.initialized();
}

bool driver_initialized() { return driver_initialized(Api::kCuda); }

std::uint64_t used_bytes(int device) {
  EngineLock lock;
  return core::used_bytes(device);
}

}  // namespace mockdev::control
