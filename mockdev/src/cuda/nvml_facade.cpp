// The simulated libnvidia-ml.so.1: exports exactly ACCEL_NVML_ENTRY_POINTS
// (abi/include/accel_abi/nvml.h) and forwards each to the engine (engine/nvml_api.h).
// Every body catches everything: no exception crosses the C boundary. The exported list is
// enforced by libnvidia-ml.map; the signatures by the static_asserts at the end.

#include <type_traits>

#include "cuda/facade_export.h"
#include "engine/nvml_api.h"

using namespace accel::nvml_abi;  // NOLINT: the facade speaks the vendor's names
namespace nvml = mockdev::nvml;

namespace {

template <typename F>
nvmlReturn_t guarded(F&& body) noexcept {
  return mockdev::facade::guarded<NVML_ERROR_UNKNOWN>(std::forward<F>(body));
}

}  // namespace

MOCKDEV_EXPORT nvmlReturn_t nvmlInit() {
  return guarded([] { return nvml::nvml_init("nvmlInit"); });
}
MOCKDEV_EXPORT nvmlReturn_t nvmlInit_v2() {
  return guarded([] { return nvml::nvml_init("nvmlInit_v2"); });
}
MOCKDEV_EXPORT nvmlReturn_t nvmlShutdown() {
  return guarded([] { return nvml::nvml_shutdown(); });
}
MOCKDEV_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  try {
    return nvml::nvml_error_string(result);
  } catch (...) {
    return "Unknown Error";
  }
}
MOCKDEV_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  return guarded([&] { return nvml::nvml_device_get_count(count); });
}
MOCKDEV_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index,
                                                          nvmlDevice_t* device) {
  return guarded([&] { return nvml::nvml_device_get_handle_by_index(index, device); });
}
MOCKDEV_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid,
                                              unsigned int length) {
  return guarded([&] { return nvml::nvml_device_get_uuid(device, uuid, length); });
}
MOCKDEV_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name,
                                              unsigned int length) {
  return guarded([&] { return nvml::nvml_device_get_name(device, name, length); });
}
MOCKDEV_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  return guarded([&] { return nvml::nvml_device_get_memory_info(device, memory); });
}

#define MOCKDEV_CHECK_TYPE(symbol, ret, params) \
  static_assert(std::is_same_v<decltype(&::symbol), PFN_##symbol>, #symbol " has the wrong type");
ACCEL_NVML_ENTRY_POINTS(MOCKDEV_CHECK_TYPE)
#undef MOCKDEV_CHECK_TYPE
