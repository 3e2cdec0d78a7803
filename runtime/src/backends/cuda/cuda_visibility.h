#pragma once
// CUDA_VISIBLE_DEVICES as PyTorch reads it for its fork-safe device count
// (torch/cuda/__init__.py, _parse_visible_devices).
//
// The driver applies CUDA_VISIBLE_DEVICES itself when it initialises; the runtime needs
// the same answer *without* initialising the driver, so it parses the variable and
// applies it to NVML's list of physical GPUs. These are pure functions (no environment
// access, no state); thread-safe.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accel::detail::cuda {

struct VisibleDevices {
  std::vector<int> ordinals;       // numeric lists
  std::vector<std::string> uuids;  // "GPU-"/"MIG-" lists (is_uuid_list)
  bool is_uuid_list = false;
};

// Parses a CUDA_VISIBLE_DEVICES value; nullopt (unset) means ordinals 0..63.
// A value starting with "GPU-" or "MIG-" is a UUID list: split on ',' (no trimming), stop
// at the first element without that prefix, and any duplicate empties the list.
// Otherwise each ','-separated element is trimmed and read like strtoul (optional '+' or
// '-', then digits; trailing junk ignored; no digits: -1): the first negative value ends
// the list, and any duplicate empties it. Examples: "1gpu2,2ampere" -> [1, 2];
// "0, 1, 2, -1, 3" -> [0, 1, 2]; "0, 1, 2, 1" -> []; "GPU-123, 2" -> ["GPU-123"].
// An ordinal beyond INT_MAX is invalid and ends the list like a negative one, as the
// driver does: "0,3000000000,4000000000" -> [0]. (PyTorch's Python parser has unbounded
// integers and so differs in one corner: for "0,3000000000,0" it sees the duplicate 0 and
// answers [], where this parser, like the driver, has stopped at the invalid entry: [0].)
// Linear in the length of the value (duplicates are found with a hash set).
//
// What each rule rests on. PyTorch's parser (torch/cuda/__init__.py, _parse_visible_devices,
// and its test_env_var_parsing examples): the split, trimming, strtoul-like reading, stop
// at the first negative or unparsable entry, duplicates emptying the list, UUID prefixes
// and prefix matching. NVIDIA's CUDA documentation: ordinals, "GPU-"/"MIG-" UUIDs and
// "stops at the first invalid entry". Needs a real GPU to confirm (only the H200 recording
// in docs/HARDWARE.md checked some of them): how the driver itself treats whitespace,
// duplicates and UUID prefixes, and the INT_MAX corner above.
// Deliberate differences from PyTorch (accel's conformance rows expect accel's answer):
//  * a bare sign ("+", "-", " + ") is an entry without digits, invalid, so the list stops
//    there; PyTorch's int() raises ValueError for it (e.g. "+" in test_env_var_parsing
//    would be an exception, not a list);
//  * ordinals beyond INT_MAX, above.
VisibleDevices parse_visible_devices(std::optional<std::string_view> value);

// Maps UUID prefixes to NVML ordinals: each candidate must be a prefix of exactly one of
// `uuids`. A candidate matching none, or several, ends the list (what was mapped so far is
// kept); an ordinal mapped twice empties it.
std::vector<int> transform_uuid_to_ordinals(const std::vector<std::string>& candidates,
                                            const std::vector<std::string>& uuids);

// The visible count given `raw_count` physical GPUs: raw_count itself when <= 0, else the
// position of the first ordinal >= raw_count (the driver stops there), else the list size.
int truncate_to_raw_count(const std::vector<int>& ordinals, int raw_count);

}  // namespace accel::detail::cuda
