// The control API (mockdev/control.h) over the engine core and the API adapters' state.

#include "mockdev/control.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "core/engine.h"
#include "core/memory.h"
#include "cuda/cuda_state.h"
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
  return it == counts.end() ? 0 : it->second;
}

std::map<std::string, std::uint64_t> call_counts() {
  EngineLock lock;
  const auto& counts = core::engine().call_counts;
  return {counts.begin(), counts.end()};
}

void reset_call_counts() {
  EngineLock lock;
  core::engine().call_counts.clear();
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
  core::engine().call_faults.push_back(
      core::ActiveCallFault{std::string(resolved->symbol), nth, code, 0});
}

void set_sticky_error(int device, int code) {
  EngineLock lock;
  core::engine().sticky.push_back(core::ActiveSticky{Api::kCuda, device, code, 0, 0});
}

void clear_faults() {
  EngineLock lock;
  core::clear_faults();
}

bool driver_initialized() {
  EngineLock lock;
  return cuda::driver_ready();
}

bool forked_after_init() {
  EngineLock lock;
  return cuda::in_forked_child();
}

LiveObjects live_objects() {
  EngineLock lock;
  LiveObjects live;
  const cuda::CudaState& s = cuda::cuda_state();
  for (std::size_t i = 0; i < s.primary.size(); ++i) {
    const auto* ctx = s.primary[i];
    if (ctx == nullptr || ctx->refcount == 0) continue;
    ++live.primary_contexts_active;
    live.descriptions.push_back("ctx dev=" + std::to_string(i) +
                                " refs=" + std::to_string(ctx->refcount));
  }
  for (const auto& [address, allocation] : core::allocations()) {
    ++live.allocations;
    live.allocated_bytes += allocation.accounted_bytes;  // as used_bytes counts it
    char line[96];
    std::snprintf(line, sizeof line, "alloc dev=%d ptr=0x%llx bytes=%llu", allocation.device,
                  static_cast<unsigned long long>(address),
                  static_cast<unsigned long long>(allocation.bytes));
    live.descriptions.emplace_back(line);
  }
  return live;
}

std::uint64_t used_bytes(int device) {
  EngineLock lock;
  return core::used_bytes(device);
}

}  // namespace mockdev::control
