// The control API (mockdev/control.h) over the engine state.

#include "mockdev/control.h"

#include <cstdio>

#include "engine/engine_state.h"

namespace mockdev::control {

using engine::EngineLock;
using engine::State;
using engine::state;

void reset(const MachineSpec& machine) {
  EngineLock lock;
  State& s = state();
  engine::install_machine(s, machine, std::nullopt);
}

void reset_from_environment() {
  const char* value = std::getenv("MOCKDEV_MACHINE");
  std::string_view name = (value != nullptr && value[0] != '\0') ? value : kDefaultPreset;
  MachineSpec machine = load_machine(name);  // throws MachineFileError before any change
  reset(machine);
}

MachineSpec machine() {
  EngineLock lock;
  return state().machine;
}

std::optional<std::string> config_error() {
  EngineLock lock;
  return state().config_error;
}

std::uint64_t call_count(std::string_view entry_point) {
  EngineLock lock;
  const State& s = state();
  auto it = s.call_counts.find(entry_point);
  return it == s.call_counts.end() ? 0 : it->second;
}

std::map<std::string, std::uint64_t> call_counts() {
  EngineLock lock;
  const State& s = state();
  return {s.call_counts.begin(), s.call_counts.end()};
}

void reset_call_counts() {
  EngineLock lock;
  state().call_counts.clear();
}

void fail_call(std::string_view entry_point, std::uint64_t nth, int code) {
  EngineLock lock;
  state().call_faults.push_back(engine::ActiveCallFault{std::string(entry_point), nth, code, 0});
}

void set_sticky_error(int device, int code) {
  EngineLock lock;
  state().sticky.push_back(engine::ActiveSticky{device, code, 0, 0});
}

void clear_faults() {
  EngineLock lock;
  State& s = state();
  s.call_faults.clear();
  s.sticky.clear();
  s.driver_init_error.reset();
  s.nvml_init_error.reset();
}

bool driver_initialized() {
  EngineLock lock;
  return engine::driver_ready(state());
}

bool forked_after_init() {
  EngineLock lock;
  return state().forked_after_init;
}

LiveObjects live_objects() {
  EngineLock lock;
  const State& s = state();
  LiveObjects live;
  for (std::size_t i = 0; i < s.devices.size(); ++i) {
    const auto* ctx = s.devices[i].primary;
    if (ctx == nullptr || ctx->refcount == 0) continue;
    ++live.primary_contexts_active;
    live.descriptions.push_back("ctx dev=" + std::to_string(i) +
                                " refs=" + std::to_string(ctx->refcount));
  }
  for (const auto& [address, allocation] : s.allocations) {
    ++live.allocations;
    live.allocated_bytes += allocation.bytes;
    char line[96];
    std::snprintf(line, sizeof line, "alloc dev=%d ptr=0x%llx bytes=%llu",
                  allocation.physical_device, static_cast<unsigned long long>(address),
                  static_cast<unsigned long long>(allocation.bytes));
    live.descriptions.emplace_back(line);
  }
  return live;
}

std::uint64_t used_bytes(int device) {
  EngineLock lock;
  const State& s = state();
  if (device < 0 || static_cast<std::size_t>(device) >= s.devices.size()) return 0;
  return s.devices[static_cast<std::size_t>(device)].used_bytes;
}

}  // namespace mockdev::control
