#pragma once
// The entry points that may answer without the engine lock (Note [Unlocked answers] in
// core/engine.h). api::<symbol> (driver_entry.cpp) asks UnlockedAnswer<Entry::symbol>
// first: the general template answers nothing (and compiles to nothing), so every other
// entry point takes the lock; a specialisation answers the call, counted, or returns nullopt
// to take the lock after all.

#include <optional>

#include "accel_abi/cuda_driver.h"
#include "cuda/entry_points.h"

namespace mockdev::cuda {

template <Entry E>
struct UnlockedAnswer {
  template <typename... Args>
  static std::optional<accel::cuda_abi::CUresult> answer(Args&&...) noexcept {
    return std::nullopt;
  }
};

// cuCtxGetCurrent: the calling thread's current context (driver_context.cpp).
template <>
struct UnlockedAnswer<Entry::cuCtxGetCurrent> {
  static std::optional<accel::cuda_abi::CUresult> answer(accel::cuda_abi::CUcontext* ctx) noexcept;
};

}  // namespace mockdev::cuda
