#pragma once
// Limits on device indices shared by the core and the backends.

#include "accel/detail/thread_device_cache.h"

namespace accel::detail {

// The largest device index (torch/csrc/DeviceAccelerator.cpp): PyTorch's DeviceIndex is int8, so
// [0, 127], and a backend reporting more than kMaxDeviceIndex + 1 devices fails to initialise.
inline constexpr int kMaxDeviceIndex = 127;
// The per-thread cache packs an index into 7 bits; both limits must stay one.
static_assert(static_cast<unsigned>(kMaxDeviceIndex) == kMaxCachedIndex);

}  // namespace accel::detail
