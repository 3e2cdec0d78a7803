// The Sysman loader stand-in (zes_loader_shim.h). Direct dispatch to one driver's tables,
// requested at 1.5; nothing else.

#include "zes_loader_shim.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>
#include <level_zero/zes_ddi.h>

#include "accel_abi/level_zero.h"
#include "accel_abi/level_zero_sysman_1_5.h"

#define SHIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

namespace abi = accel::abi::level_zero;

struct Tables {
  bool loaded = false;
  abi::zes_global_dditable_1_5_t global{};
  abi::zes_driver_dditable_1_5_t driver{};
  abi::zes_device_dditable_1_5_t device{};
  zes_memory_dditable_t memory{};
};

Tables& tables() {
  static Tables* t = new Tables();  // never freed: used from forked children and at exit
  return *t;
}

// Opens the driver and requests its tables at 1.5, once per process (a child inherits the
// result, as it inherits a loader's).
bool load() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* list = std::getenv("ZE_ENABLE_ALT_DRIVERS");
    if (list == nullptr || list[0] == '\0') return;
    std::string first(list);
    first = first.substr(0, first.find(','));
    void* driver = dlopen(first.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (driver == nullptr) return;
    auto get_global = reinterpret_cast<abi::PFN_zesGetGlobalProcAddrTable>(
        dlsym(driver, "zesGetGlobalProcAddrTable"));
    auto get_driver = reinterpret_cast<ze_result_t (*)(ze_api_version_t, zes_driver_dditable_t*)>(
        dlsym(driver, "zesGetDriverProcAddrTable"));
    auto get_device = reinterpret_cast<ze_result_t (*)(ze_api_version_t, zes_device_dditable_t*)>(
        dlsym(driver, "zesGetDeviceProcAddrTable"));
    auto get_memory = reinterpret_cast<ze_result_t (*)(ze_api_version_t, zes_memory_dditable_t*)>(
        dlsym(driver, "zesGetMemoryProcAddrTable"));
    if (!get_global || !get_driver || !get_device || !get_memory) return;
    const auto v = static_cast<ze_api_version_t>(ZE_MAKE_VERSION(1, 5));
    Tables& t = tables();
    if (get_global(v, &t.global) != ZE_RESULT_SUCCESS ||
        get_driver(v, reinterpret_cast<zes_driver_dditable_t*>(&t.driver)) != ZE_RESULT_SUCCESS ||
        get_device(v, reinterpret_cast<zes_device_dditable_t*>(&t.device)) != ZE_RESULT_SUCCESS ||
        get_memory(v, &t.memory) != ZE_RESULT_SUCCESS)
      return;
    t.loaded = t.global.pfnInit != nullptr && t.driver.pfnGet != nullptr && t.device.pfnGet != nullptr;
  });
  return tables().loaded;
}

}  // namespace

SHIM_EXPORT ze_result_t zesInit(abi::zes_init_flags_t flags) {
  if (!load()) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().global.pfnInit(flags);  // forwarded every time, in a child too
}

SHIM_EXPORT ze_result_t zesDriverGet(std::uint32_t* count, zes_driver_handle_t* drivers) {
  if (!tables().loaded) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().driver.pfnGet(count, drivers);
}

SHIM_EXPORT ze_result_t zesDeviceGet(zes_driver_handle_t driver, std::uint32_t* count,
                                     zes_device_handle_t* devices) {
  if (!tables().loaded) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().device.pfnGet(driver, count, devices);
}

SHIM_EXPORT ze_result_t zesDeviceGetProperties(zes_device_handle_t device,
                                               zes_device_properties_t* props) {
  if (!tables().loaded || !tables().device.v1_4.pfnGetProperties) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().device.v1_4.pfnGetProperties(device, props);
}

SHIM_EXPORT ze_result_t zesDeviceEnumMemoryModules(zes_device_handle_t device, std::uint32_t* count,
                                                   zes_mem_handle_t* modules) {
  if (!tables().loaded || !tables().device.v1_4.pfnEnumMemoryModules) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().device.v1_4.pfnEnumMemoryModules(device, count, modules);
}

SHIM_EXPORT ze_result_t zesMemoryGetProperties(zes_mem_handle_t memory, zes_mem_properties_t* props) {
  if (!tables().loaded || !tables().memory.pfnGetProperties) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().memory.pfnGetProperties(memory, props);
}

SHIM_EXPORT ze_result_t zesMemoryGetState(zes_mem_handle_t memory, zes_mem_state_t* state) {
  if (!tables().loaded || !tables().memory.pfnGetState) return ZE_RESULT_ERROR_UNINITIALIZED;
  return tables().memory.pfnGetState(memory, state);
}
