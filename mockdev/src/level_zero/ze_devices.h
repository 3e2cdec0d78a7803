#pragma once
// What zeInit needs from the device work (ze_devices.cpp): building the device handles
// for the hierarchy, mask and PCI order in force, and the Sysman cards (ze_sysman.cpp).

#include <cstdint>
#include <string>
#include <vector>

#include "level_zero/ze_state.h"

namespace mockdev::level_zero {

// The most work-items of a group in each dimension and in all (zeDeviceGetComputeProperties'
// maxGroupSize{X,Y,Z} and maxTotalGroupSize; kernels check group sizes against them).
inline constexpr std::uint32_t kMaxGroupSize = 1024;
inline constexpr std::uint32_t kMaxTotalGroupSize = 1024;

// Builds s.devices (and their sub-devices, roots) from the machine's Intel cards under
// ZE_FLAT_DEVICE_HIERARCHY, ZE_AFFINITY_MASK and ZE_ENABLE_PCI_ID_DEVICE_ORDER, read now
// (once, at initialisation). Returns false with `why` set when the mask is invalid
// or selects nothing.
bool build_devices(ZeState& s, std::string& why) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The Intel cards of the machine in machine-file order: indices into MachineSpec::devices.
std::vector<int> intel_cards() MOCKDEV_REQUIRES(core::g_engine_mutex);

// A 16-byte uuid for a card (tile -1) or one of its tiles: stable, distinct per tile,
// derived from the machine file's uuid text (ze_device_properties_t::uuid).
void device_uuid(int card, int tile, std::uint8_t out[16]) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Every field of ze_device_properties_t for `device` (timerResolution's unit by the
// caller's stype), leaving stype/pNext alone; also Sysman's `core`.
void fill_core_properties(const ZeDevice& device, ze_device_properties_t* p)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// The Level Zero count protocol (count, then handles) for a list of handles; `null_array` is the
// code for count > 0 with a null array (Intel's per-function choice).
template <typename T, typename U>
ze_result_t copy_handles(const std::vector<T*>& items, std::uint32_t* count, U** out,
                         ze_result_t null_array) {
  if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const auto n = static_cast<std::uint32_t>(items.size());
  if (*count == 0) {
    *count = n;
    return ZE_RESULT_SUCCESS;
  }
  if (out == nullptr) return null_array;
  const std::uint32_t k = *count < n ? *count : n;
  for (std::uint32_t i = 0; i < k; ++i) out[i] = reinterpret_cast<U*>(items[i]);
  *count = k;
  return ZE_RESULT_SUCCESS;
}

}  // namespace mockdev::level_zero
