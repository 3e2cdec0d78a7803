#pragma once
// Streams and events of the Level Zero backend (ze_streams.cpp, ze_events.cpp).
// PLACEHOLDER written by the contract commit: the streams work replaces it with the real
// state (immediate command lists, event pools, per-stream last-signal events).
#include <memory>

#include "backends/level_zero/level_zero_backend.h"

namespace accel::detail::level_zero {

struct QueueState {
  // Made by initialize() once the devices and the context exist.
  static std::unique_ptr<QueueState> create(LevelZeroBackend& backend);
};

}  // namespace accel::detail::level_zero
