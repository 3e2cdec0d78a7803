// The CUDA driver's row of the vendor registry (Note [Vendor registry] in
// core/vendor_registry.h): its machine-file name, result codes, init fault, entry points,
// driver file and device-attribute keys, taken from the ABI tables (accel_abi/cuda_driver.h).

#include <array>
#include <cstddef>

#include "accel_abi/cuda_driver.h"
#include "core/vendor_registry.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
#include "cuda/entry_points.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda {
namespace {

constexpr core::ResultCodeName kCodes[] = {
#define MOCKDEV_CUDA_CODE(name, value) core::ResultCodeName{#name, static_cast<int>(value)},
    ACCEL_CUDA_RESULTS(MOCKDEV_CUDA_CODE)
#undef MOCKDEV_CUDA_CODE
};

// One name pair per exported symbol of entry_points.h. cuGetProcAddress_v2's base name is
// the exported cuGetProcAddress, its own entry, so the pair lists the symbol twice: a
// fault naming "cuGetProcAddress" means that symbol, and a close-name suggestion shows
// cuGetProcAddress_v2 under its own name.
constexpr std::array<core::EntryPointName, kEntries.size()> entry_point_names() {
  std::array<core::EntryPointName, kEntries.size()> names{};
  for (std::size_t i = 0; i < kEntries.size(); ++i) {
    const EntryInfo& e = kEntries[i];
    names[i] = {e.symbol, e.symbol == "cuGetProcAddress_v2" ? e.symbol : e.name};
  }
  return names;
}
constexpr std::array kEntryPoints = entry_point_names();

constexpr core::DeviceAttributeKeys kAttributeKeys{&attribute_from_key, &close_attribute_keys,
                                                   &attribute_fixed_by};

}  // namespace

// live_objects.cpp.
void list_live_objects(core::LiveObjects& out) MOCKDEV_REQUIRES(core::g_engine_mutex);

extern const core::ApiRow kApiRow;
constinit const core::ApiRow kApiRow{
    .api = Api::kCuda,
    .name = "cuda",
    .code_family = "CUDA",
    .codes = kCodes,
    .hex_codes = false,
    .init_fault = "driver_init",
    .init_error = &FaultSchedule::driver_init_error,
    .entry_points = kEntryPoints,
    .touches_devices_of = Vendor::kNvidia,
    .device_attributes = &kAttributeKeys,
    .facade = "libcuda.so.1",
    .initialized = &driver_ready,
    .live_objects = &list_live_objects,
    .queue_of_handle = &created_stream_queue,
};

}  // namespace mockdev::cuda
