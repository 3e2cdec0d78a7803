#pragma once
// Shared steps of every simulated CUDA driver call (Note [Driver call order] in
// driver_api.h). Caller holds the engine lock.

#include <optional>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/entry_points.h"

namespace mockdev::core {
struct CallCounter;  // core/engine.h
}  // namespace mockdev::core

namespace mockdev::cuda {

// The count of `entry`'s calls (Note [Counted calls] in core/engine.h): enter() fills it
// under the lock; an unlocked answer (Note [Unlocked answers]) reads it without.
core::CallCounter& call_counter(Entry entry) noexcept;

// Steps 1-4 for `entry`: counts the call and applies the pid gate, call faults and (for
// kNeedsInit entries) the init gate. Returns the code to return early with, or nullopt.
std::optional<accel::cuda_abi::CUresult> enter(Entry entry) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The physical device of visible ordinal `dev`, or nullopt (CUDA_ERROR_INVALID_DEVICE).
std::optional<int> physical_device(accel::cuda_abi::CUdevice dev)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// Step 6 for a kTouchesDevice entry on physical `device`: a sticky error in force.
std::optional<accel::cuda_abi::CUresult> sticky_error(int device)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
