#pragma once
// Shared steps of every simulated CUDA driver call (Note [Driver call order] in
// driver_api.h), used by driver_api.cpp and driver_context.cpp. Caller holds the engine lock.

#include <optional>
#include <string_view>

#include "accel_abi/cuda_driver.h"
#include "engine/engine_state.h"

namespace mockdev::driver {

enum class NeedsInit { kNo, kYes };

// Steps 1-4: counts the call and applies the pid gate, call faults and the init gate.
// Returns the code to return early with, or nullopt to go on.
std::optional<accel::cuda_abi::CUresult> enter(engine::State& s, std::string_view entry_point,
                                               NeedsInit needs_init);

// The physical device of visible ordinal `dev`, or nullopt (CUDA_ERROR_INVALID_DEVICE).
std::optional<int> physical_device(const engine::State& s, accel::cuda_abi::CUdevice dev);

}  // namespace mockdev::driver
