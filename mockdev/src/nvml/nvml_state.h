#pragma once
// The NVML adapter's own state: per-process initialisation (pid and reference count) and
// the device handles it hands out (one per NVIDIA device of the machine, in file order, never freed: Note [Leaky
// state] in core/engine.h). It starts afresh whenever the core installs a machine.
// Thread safety: reachable only with the engine lock held (Note [Engine lock]).

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "accel_abi/nvml.h"
#include "core/engine_lock.h"

// The opaque device handle type, defined by the mock (the ABI header only declares it).
struct accel::nvml_abi::nvmlDevice_st {
  int physical_device = 0;
};

namespace mockdev::nvml {

struct NvmlState {
  std::uint64_t generation = 0;  // the core machine generation this state belongs to
  pid_t pid = 0;                 // the process that initialised NVML (a child must again)
  int refs = 0;                  // nvmlInit minus nvmlShutdown calls in that process
  std::vector<accel::nvml_abi::nvmlDevice_st*> handles;  // by NVML index (NVIDIA devices)
};

NvmlState& nvml_state() MOCKDEV_REQUIRES(core::g_engine_mutex);

// True when NVML is initialised in this process.
bool nvml_ready() MOCKDEV_REQUIRES(core::g_engine_mutex);

// The physical device behind a handle this state handed out, or nullopt.
std::optional<int> device_of(accel::nvml_abi::nvmlDevice_t device)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::nvml
