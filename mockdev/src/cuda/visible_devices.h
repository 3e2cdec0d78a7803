#pragma once
// CUDA_VISIBLE_DEVICES as the simulated driver applies it at cuInit: which physical devices
// the process sees, in which order. Pure function; thread-safe; linear in the length of
// the value (duplicates are found with hash sets), so any value a fuzzer makes is cheap.
//
// Note [Driver visible-device rules]
// The value is a comma list. If its first entry starts with "GPU-" or "MIG-", it is a
// UUID list: entries are read until the first one without that prefix; a repeated entry
// hides every device; each entry then selects the one device whose UUID (for "MIG-": MIG
// instance UUID) starts with it, and the list stops at the first entry that matches no
// device or several; a device selected twice hides every device. Otherwise it is an
// ordinal list: each entry is an optionally signed decimal number after optional blanks
// (trailing text ignored); the list stops at the first entry without digits, with a
// negative value, or with a value above INT_MAX (no CUdevice can name it: an invalid
// entry, never clamped, so two different huge ordinals are not taken for a repeat); a
// repeated ordinal hides every device; the list is then cut at the first ordinal that is
// not below the number of devices. These are the rules PyTorch reproduces for its
// NVML-based count (spec section 3.5), which the real driver was checked to agree with on
// the cases in research/mock_driver_feasibility.md section 3.6, so the runtime's NVML path
// and the driver path give the same answers.

#include <optional>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::cuda {

// Physical device indices visible under `value` (nullopt: the variable is unset) on a
// machine with `devices`, by Note [Driver visible-device rules].
std::vector<int> resolve_visible_devices(std::optional<std::string_view> value,
                                         const std::vector<DeviceSpec>& devices);

}  // namespace mockdev::cuda
