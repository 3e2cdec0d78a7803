#pragma once
// CUDA_VISIBLE_DEVICES as the simulated driver applies it at cuInit: which physical devices
// the process sees, in which order. Pure function; thread-safe; linear in the length of
// the value (duplicates are found with hash sets), so any value a fuzzer makes is cheap.
//
// Note [Driver visible-device rules]
// Only the machine's NVIDIA devices are candidates (Intel devices are Level Zero's): an
// ordinal n is the n-th NVIDIA device in file order, a UUID is matched against NVIDIA
// devices only, and the result holds physical (machine-file) indices.
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
// What each rule rests on. "Recorded" means the NVIDIA H200 recording (one GPU, MIG
// disabled, driver 580.159.04; docs/HARDWARE.md, tests/hardware/recorded/
// nvidia_h200.probe.txt), which the twin test hardware_twin.nvidia_h200 keeps equal to the
// mock; "PyTorch" means PyTorch's NVML-side parser (torch/cuda/__init__.py); "NVIDIA docs" means
// the CUDA programming guide's CUDA_VISIBLE_DEVICES text and the MIG user guide.
//   - read once, at the first successful cuInit: NVIDIA docs (not recorded).
//   - entries are not trimmed (' GPU-...' and 'GPU-... ' match nothing): recorded.
//   - ordinals as strtoul reads them (' 0', '\t0', '00', '+0', '-0', '0x0', '0gpu' are 0):
//     recorded.
//   - the 32-bit cut ('4294967296' is 0; '3000000000', '99999999999999999999' stop):
//     recorded.
//   - stop at the first entry without digits or negative ('0,junk', '0,-1', '0,,1' give
//     device 0; 'junk', '-1', ',0' hide all): recorded; NVIDIA docs and PyTorch agree.
//   - cut at the first ordinal not below the device count ('0,1' gives device 0, '1,0'
//     hides all on one GPU): recorded; NVIDIA docs and PyTorch agree.
//   - a repeated ordinal or UUID hides all and cuInit returns 101 ('0,0', 'GPU-x,GPU-x'):
//     recorded; PyTorch's parser also empties the list.
//   - a list is a UUID list if its first entry has the GPU-/MIG- prefix, and stops at the
//     first entry of the other kind ('GPU-x,0' and '0,GPU-x' give one device): recorded.
//   - UUID hex digits compared without regard to case; 'GPU-' and 'MIG-' alone match
//     nothing; an unknown prefix stops the list: recorded.
//   - MIG-<prefix of the GPU's UUID> on a GPU with MIG disabled selects the GPU: recorded.
// Not confirmed on real hardware yet (the rule is PyTorch's or NVIDIA's documented one, or
// the mock's choice where both are silent); each needs a GPU machine to record:
//   - NEEDS A MULTI-GPU MACHINE: the order of a multi-device list ('1,0' gives devices 1
//     then 0); an ambiguous UUID prefix stopping the list (PyTorch); the cut with several
//     devices ('0,2,1' on two GPUs gives device 0 only).
//   - NEEDS A MIG-ENABLED GPU: MIG- entries against a MIG instance's UUID (NVIDIA docs);
//     one instance per GPU is all the mock models.
//   - NEEDS ANY GPU (not in the recording yet): a repeat after an out-of-range entry
//     ('0,1,0' on one GPU: the mock checks repeats before the cut, so all are hidden, 101);
//     two different prefixes of the same UUID ('GPU-1c,GPU-1c9b': the mock treats it as a
//     repeat, as PyTorch does).

#include <optional>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::cuda {

struct VisibleSelection {
  std::vector<int> devices;  // physical device indices, in CUdevice order
  bool repeated = false;     // empty because a device was named twice
};

// The physical indices of the NVIDIA devices visible under `value` (nullopt: the variable
// is unset) on a machine with `devices`, by Note [Driver visible-device rules].
VisibleSelection select_visible_devices(std::optional<std::string_view> value,
                                        const std::vector<DeviceSpec>& devices);

// select_visible_devices(value, devices).devices.
std::vector<int> resolve_visible_devices(std::optional<std::string_view> value,
                                         const std::vector<DeviceSpec>& devices);

}  // namespace mockdev::cuda
