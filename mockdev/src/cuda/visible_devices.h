#pragma once
// CUDA_VISIBLE_DEVICES as the simulated driver applies it at cuInit: which physical devices
// the process sees, in which order. Pure function; thread-safe; linear in the length of
// the value (duplicates are found with hash sets), so any value a fuzzer makes is cheap.
//
// Note [Driver visible-device rules]
// The value is a comma list; entries are not trimmed. If its first entry starts with "GPU-"
// or "MIG-", it is a UUID list: entries are read until the first one without that prefix;
// a repeated entry hides every device; each entry then selects the one device whose UUID
// starts with it, comparing the hex digits after the prefix without regard to case; for
// "MIG-" the MIG instance's UUID, or the GPU's own on a device without MIG; an entry with no
// hex digits selects nothing; the list stops at the first entry that selects no device or
// several; a device selected twice hides every device. Otherwise it is an ordinal list:
// each entry is read as C's strtoul reads it (leading blanks, an optional sign, decimal
// digits, trailing text ignored, saturating at ULONG_MAX) and cut to a 32-bit int; the list
// stops at the first entry without digits or whose int is negative (so "-1", "3000000000"
// and "99999999999999999999" stop it, while "4294967296" reads as 0); a repeated ordinal
// hides every device; the list is then cut at the first ordinal that is not below the
// number of devices. A list hidden by a repeat makes cuInit fail with
// CUDA_ERROR_INVALID_DEVICE, an empty one with CUDA_ERROR_NO_DEVICE.
//
// Sources: PyTorch's NVML-side rules (spec section 3.5) for the structure; the recording of
// an NVIDIA H200 with driver 580.159.04 (docs/HARDWARE.md, tests/hardware/) for what PyTorch
// does not say: no trimming, case-insensitive UUIDs, empty prefixes, the 32-bit cut, MIG-
// prefixes on a GPU without MIG, and error 101 for a repeat. tests/hardware's twin test
// keeps the two in step.

#include <optional>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::cuda {

struct VisibleSelection {
  std::vector<int> devices;  // physical device indices, in CUdevice order
  bool repeated = false;     // empty because a device was named twice
};

// The devices visible under `value` (nullopt: the variable is unset) on a machine with
// `devices`, by Note [Driver visible-device rules].
VisibleSelection select_visible_devices(std::optional<std::string_view> value,
                                        const std::vector<DeviceSpec>& devices);

// select_visible_devices(value, devices).devices.
std::vector<int> resolve_visible_devices(std::optional<std::string_view> value,
                                         const std::vector<DeviceSpec>& devices);

}  // namespace mockdev::cuda
