#pragma once
// The two CUDA_VISIBLE_DEVICES parsers the differential fuzzer compares, behind one
// function each, so a move or rename of the internal headers is fixed here in one line per
// parser (runtime_visible_devices.cpp, mockdev_visible_devices.cpp).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accel::fuzz {

// The runtime's fork-safe answer (PyTorch's rules, the NVML path): the physical ordinals
// the value exposes, given the devices' UUIDs. nullopt when that path cannot answer
// (MIG lists: the runtime then asks the driver). For numeric lists only the count is
// known to the runtime, so the ordinals are {0, 1, ...} of that length with
// `count_only` set.
struct RuntimeAnswer {
  std::optional<std::vector<int>> ordinals;
  bool count_only = false;
};
RuntimeAnswer runtime_visible_devices(std::string_view value,
                                      const std::vector<std::string>& uuids);

// The simulated driver's answer at cuInit: the physical indices it exposes, in order.
std::vector<int> mockdev_visible_devices(std::string_view value,
                                         const std::vector<std::string>& uuids);

}  // namespace accel::fuzz
