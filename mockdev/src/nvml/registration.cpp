// NVML's row of the vendor registry (Note [Vendor registry] in core/vendor_registry.h),
// taken from the ABI tables (accel_abi/nvml.h).

#include <array>
#include <cstddef>

#include "accel_abi/nvml.h"
#include "core/vendor_registry.h"
#include "nvml/entry_points.h"
#include "nvml/nvml_state.h"

namespace mockdev::nvml {
namespace {

constexpr core::ResultCodeName kCodes[] = {
#define MOCKDEV_NVML_CODE(name, value) core::ResultCodeName{#name, static_cast<int>(value)},
    ACCEL_NVML_RETURNS(MOCKDEV_NVML_CODE)
#undef MOCKDEV_NVML_CODE
};

constexpr std::array<core::EntryPointName, kEntries.size()> entry_point_names() {
  std::array<core::EntryPointName, kEntries.size()> names{};
  for (std::size_t i = 0; i < kEntries.size(); ++i) names[i] = {kEntries[i].symbol, kEntries[i].symbol};
  return names;
}
constexpr std::array kEntryPoints = entry_point_names();

}  // namespace

extern const core::ApiRow kApiRow;
constinit const core::ApiRow kApiRow{
    .api = Api::kNvml,
    .name = "nvml",
    .code_family = "NVML",
    .codes = kCodes,
    .hex_codes = false,
    .init_fault = "nvml_init",
    .init_error = &FaultSchedule::nvml_init_error,
    .entry_points = kEntryPoints,
    .touches_devices_of = std::nullopt,  // queries only: no NVML call is a device's work
    .device_attributes = nullptr,
    .facade = "libnvidia-ml.so.1",
    .initialized = &nvml_ready,
};

}  // namespace mockdev::nvml
