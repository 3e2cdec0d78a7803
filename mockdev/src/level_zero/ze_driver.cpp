// zeInit, the driver handle and its queries (zeDriverGet, zeDriverGetProperties, ...), and the
// Global and Driver tables the facade serves.

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/engine.h"
#include "level_zero/ze_devices.h"
#include "level_zero/ze_state.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

// The newest spec version the mock implements: the headers it is built with
// (never above 1.16 while handles lack the DDI-handles layout).
constexpr ze_api_version_t kDriverApiVersion = ZE_API_VERSION_1_4;

// Builds the device state of this process (first zeInit, or a child's under the reinit
// policy). Returns the zeInit result.
ze_result_t initialize(ZeState& s) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const core::Engine& e = core::engine();
  if (e.config_error) {
    // A driver that is there and cannot start: not "no device" (UNINITIALIZED), which a
    // client would take for a machine without a GPU, but the error the CUDA and NVML
    // facades give in the same case (CUDA_ERROR_INVALID_VALUE, NVML_ERROR_UNKNOWN).
    s.init_failure = "the machine could not be loaded: " + *e.config_error;
    return ZE_RESULT_ERROR_UNKNOWN;
  }
  if (std::optional<int> code = core::init_error(Api::kLevelZero)) {
    s.init_failure = "the machine file's fault schedule fails zeInit";
    return static_cast<ze_result_t>(*code);
  }
  std::string why;
  if (!build_devices(s, why)) {
    s.init_failure = why;
    return ZE_RESULT_ERROR_UNINITIALIZED;  // no visible GPU
  }
  s.driver = new _ze_driver_handle_t();  // never freed: Note [Leaky state]
  register_handle(s.driver);
  s.init_failure.clear();
  // The legacy Sysman route is decided here, unless zesInit already chose the
  // other one (the two are exclusive).
  const char* sysman = std::getenv("ZES_ENABLE_SYSMAN");
  if (sysman != nullptr && std::strcmp(sysman, "1") == 0 && s.sysman == SysmanRoute::kNone)
    s.sysman = SysmanRoute::kLegacy;
  return ZE_RESULT_SUCCESS;
}

// zeInit's and zeInitDrivers' one-time initialisation of this process (idempotent; a forked
// child under the reinit policy starts afresh).
ze_result_t initialize_once() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  {
    ZeState& s = ze_state();
    if (s.initialized && s.init_pid != core::current_pid()) {
      // A forked child under the reinit policy (the pid gate let only this through):
      // fresh device state, the parent's handles invalid here.
      drop_all_objects();
      const std::uint64_t generation = s.generation;
      const SysmanRoute route = s.sysman;
      const bool sysman_up = s.sysman_initialized;
      const ze_result_t sysman_result = s.sysman_result;
      const bool sysman_attempted = s.sysman_attempted;
      std::vector<ZeDevice*> cards = s.cards;
      _ze_driver_handle_t* sysman_driver = s.sysman_driver;
      s = ZeState{};
      s.generation = generation;
      // Sysman state has no pid check: it carries over into the child.
      s.sysman = route == SysmanRoute::kZesInit ? route : SysmanRoute::kNone;
      s.sysman_initialized = sysman_up;
      s.sysman_result = sysman_result;
      s.sysman_attempted = sysman_attempted;
      s.cards = cards;
      s.sysman_driver = sysman_driver;
      for (ZeDevice* c : cards) register_handle(c);
      if (sysman_driver != nullptr) register_handle(sysman_driver);
    }
    // One-time initialisation whose status every later call gets (idempotent).
    if (s.init_attempted) return s.init_result;
    s.init_attempted = true;
    s.init_result = initialize(s);
    if (s.init_result == ZE_RESULT_SUCCESS) {
      s.initialized = true;
      s.init_pid = core::current_pid();
    }
    return s.init_result;
  }
}

ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
  return call("zeInit", CallKind::kCoreBeforeInit, [&]() MOCKDEV_ZE_LOCKED {
    // Non-zero flags without the GPU bit are not for this (GPU) driver.
    if (flags != 0 && (flags & ZE_INIT_FLAG_GPU_ONLY) == 0) return ZE_RESULT_ERROR_UNINITIALIZED;
    return initialize_once();
  });
}

// zeInitDrivers (spec 1.10, I-6..I-8): initialises as zeInit does and returns the driver under
// zeDriverGet's count protocol. Flags 0 are INVALID_ENUMERATION (the specification); flags
// without the GPU bit are not for this GPU driver: UNINITIALIZED, as Intel's driver answers
// (the loader then leaves the driver out of that call). Repeat calls never re-initialise.
ze_result_t ZE_APICALL zeInitDrivers(std::uint32_t* count, ze_driver_handle_t* drivers,
                                     accel::abi::level_zero::ze_init_driver_type_desc_t* desc) {
  return call("zeInitDrivers", CallKind::kCoreBeforeInit, [&]() MOCKDEV_ZE_LOCKED {
    if (count == nullptr || desc == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags == 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if ((desc->flags & accel::abi::level_zero::kInitDriverTypeFlagGpu) == 0) {
      return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    const ze_result_t init = initialize_once();
    if (init != ZE_RESULT_SUCCESS) return init;
    std::vector<_ze_driver_handle_t*> list{ze_state().driver};
    return copy_handles(list, count, drivers, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  });
}

ze_result_t ZE_APICALL zeDriverGet(std::uint32_t* count, ze_driver_handle_t* drivers) {
  return call("zeDriverGet", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    std::vector<_ze_driver_handle_t*> list{ze_state().driver};
    return copy_handles(list, count, drivers, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  });
}

ze_result_t ZE_APICALL zeDriverGetApiVersion(ze_driver_handle_t driver, ze_api_version_t* version) {
  return call("zeDriverGetApiVersion", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (version == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *version = kDriverApiVersion;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDriverGetProperties(ze_driver_handle_t driver,
                                             ze_driver_properties_t* props) {
  return call("zeDriverGetProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (props == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    // A uuid from the version and a per-machine value (the generation, standing in
    // for Intel's per-process timestamp); driverVersion from the machine file. The
    // caller's stype/pNext stay untouched; no link of this struct is known.
    const std::uint32_t version = core::engine().machine.level_zero.driver_version;
    const std::uint64_t generation = ze_state().generation;
    std::memset(props->uuid.id, 0, sizeof props->uuid.id);
    std::memcpy(props->uuid.id, &version, sizeof version);
    std::memcpy(props->uuid.id + 8, &generation, sizeof generation);
    props->uuid.id[4] = 0x4d;  // 'M': the mock
    props->driverVersion = version;
    return ZE_RESULT_SUCCESS;
  });
}

// Note [Last error description] in ze_state.h.
ze_result_t ZE_APICALL zeDriverGetLastErrorDescription(ze_driver_handle_t driver,
                                                       const char** text) {
  return call("zeDriverGetLastErrorDescription", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (text == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *text = last_error_description();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDriverGetIpcProperties(ze_driver_handle_t driver,
                                                ze_driver_ipc_properties_t* props) {
  return call("zeDriverGetIpcProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (props == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    props->flags = 0;  // no IPC in the simulation
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDriverGetExtensionProperties(ze_driver_handle_t driver,
                                                      std::uint32_t* count,
                                                      ze_driver_extension_properties_t* props) {
  return call("zeDriverGetExtensionProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    // Zero extensions (so never ZE_driver_ddi_handles, which would change the loader's
    // dispatch).
    (void)props;  // never written: there is nothing to list
    if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *count = 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDriverGetExtensionFunctionAddress(ze_driver_handle_t driver,
                                                           const char* name, void** function) {
  return call("zeDriverGetExtensionFunctionAddress", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (name == nullptr || function == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // no extension functions
  });
}

}  // namespace

MOCKDEV_ZE_FILL_FUNCTION(fill_global_table, ze_global_dditable_t, ACCEL_ZE_GLOBAL_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_driver_table, ze_driver_dditable_t, ACCEL_ZE_DRIVER_ENTRY_POINTS)

}  // namespace mockdev::level_zero
