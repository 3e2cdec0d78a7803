#include "nvml/nvml_state.h"

#include "core/engine.h"
#include "core/keep_forever.h"

namespace mockdev::nvml {

NvmlState& nvml_state() {
  static NvmlState* const state = new NvmlState();  // never deleted: Note [Leaky state]
  const core::Engine& e = core::engine();
  if (state->generation != e.generation) {
    // Old handles stay allocated (callers may hold them) but are no longer recognised.
    *state = NvmlState{};
    state->generation = e.generation;
    // NVML serves the NVIDIA devices only, in the machine file's order: its index i is the
    // i-th NVIDIA device, and a handle remembers the physical (engine) index, which memory
    // and the timeline use (docs/MACHINE_FILES.md, "Vendors, tiles and Level Zero").
    for (std::size_t i = 0; i < e.machine.devices.size(); ++i) {
      if (e.machine.devices[i].vendor != Vendor::kNvidia) continue;
      auto* handle = new accel::nvml_abi::nvmlDevice_st{static_cast<int>(i)};
      core::keep_forever(handle);  // Note [Leaky state]: callers may still hold it
      state->handles.push_back(handle);
    }
  }
  return *state;
}

bool nvml_ready() {
  const NvmlState& s = nvml_state();
  return s.refs > 0 && s.pid == core::current_pid();
}

std::optional<int> device_of(accel::nvml_abi::nvmlDevice_t device) {
  const NvmlState& s = nvml_state();
  for (std::size_t i = 0; i < s.handles.size(); ++i) {
    if (device != nullptr && s.handles[i] == device) return s.handles[i]->physical_device;
  }
  return std::nullopt;
}

}  // namespace mockdev::nvml
