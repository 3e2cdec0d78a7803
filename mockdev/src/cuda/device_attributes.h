#pragma once
// Every CUdevice_attribute of the ABI (ACCEL_CUDA_DEVICE_ATTRIBUTES): its machine-file key
// and the value a simulated device answers. cuDeviceGetAttribute (driver_device.cpp) and
// the machine-file reader (`attributes:`, devices_section.cpp) share it. Pure; thread-safe.
//
// Note [Device attribute answers]
// A device answers, for each attribute: the machine file's override when it has one, else
// the value its own keys fix (multiprocessors, compute_capability, pci_bus_id), else the
// default of its architecture (core/architecture_defaults.h) or a constant every
// architecture since Volta shares (block and grid limits, texture limits, warp size,
// feature flags). Numbers cuda.h does not define (0, negative, >= CU_DEVICE_ATTRIBUTE_MAX)
// are CUDA_ERROR_INVALID_VALUE, as the driver answers them; deprecated attributes that
// still have a value in cuda.h are answered like the others.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::cuda {

// Whether `attribute` is a value of CUDA 13.0's CUdevice_attribute (1..147).
bool is_device_attribute(int attribute);

// The machine-file key of an attribute: cuda.h's name without CU_DEVICE_ATTRIBUTE_, lower
// case ("max_threads_per_block"). Empty for a number that is not an attribute.
std::string attribute_key(int attribute);

// The attribute a machine-file key names (the current name or a deprecated alias, lower
// case), or nullopt.
std::optional<int> attribute_from_key(std::string_view key);

// Up to three keys closest to an unknown `key` by edit distance, nearest first.
std::vector<std::string> close_attribute_keys(std::string_view key);

// Attributes a device's own machine-file keys fix; an `attributes:` entry may not set them
// (it would contradict what cuDeviceGetPCIBusId or cuDeviceGetName's device reports).
// nullopt when `attribute` may be overridden, else the key that sets it.
std::optional<std::string_view> attribute_fixed_by(int attribute);

// What physical device `device` (index `physical` in the machine) answers for a valid
// attribute (Note [Device attribute answers]).
int device_attribute_value(const DeviceSpec& device, int physical, int attribute);

}  // namespace mockdev::cuda
