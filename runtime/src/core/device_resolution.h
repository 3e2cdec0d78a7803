#pragma once
// Device-argument resolution: PyTorch's torch.accelerator._utils._get_device_index
// (torch/accelerator/_utils.py) for the C++ DeviceArg.
//
// Rules, in order: an int is returned unchanged (no range check: callers apply
// check_device_index_range or the negative no-op); a string is parsed as a Device
// (Device::parse's errors); a Device is checked against the accelerator: none ->
// kRuntime "Accelerator expected", another type -> kValue "cpu doesn't match the current
// accelerator cuda.", else its index. A missing index (DeviceArg none, or a Device or
// string without one): optional=false -> kValue "Expected an accel::Device with a specified
// index or an integer, but got:<arg>" (no space after the colon, as PyTorch prints it);
// optional=true -> current_device_index(), which initialises the runtime.
// Thread-safe; reads the installed runtime's accelerator type.

#include <optional>

#include "accel/device.h"

namespace accel::detail {

int resolve_device_index(const DeviceArg& device, bool optional);

// The explicit index of `device` after the type checks above, or nullopt when it has none.
// Never initialises (used where the missing index is resolved later, e.g. set_rng_state).
std::optional<int> resolve_explicit_device_index(const DeviceArg& device);

}  // namespace accel::detail
