// Sysman: the legacy route (ZES_ENABLE_SYSMAN=1 at zeInit, core
// device handles used as zes handles) and the zesInit route (spec 1.5: zesInit,
// zesDriverGet, zesDeviceGet over the physical cards), mutually exclusive (as in
// Intel's driver); device properties with the ext link and memory modules. Sysman calls
// pass the pid gate (allowed in a forked child: a modelling choice, as Intel's Sysman has
// no pid check).

#include <cstring>
#include <string>

#include "accel_abi/level_zero.h"
#include "accel_abi/level_zero_sysman_1_5.h"
#include "core/engine.h"
#include "core/memory.h"
#include "level_zero/ze_devices.h"
#include "level_zero/ze_state.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

namespace abi = accel::abi::level_zero;

template <std::size_t N>
void copy_text(char (&out)[N], const std::string& text) {
  std::memset(out, 0, N);
  std::memcpy(out, text.data(), text.size() < N - 1 ? text.size() : N - 1);
}

// A device handle usable as a zes handle on the route in force: a core device handle on
// the legacy route, a Sysman card on the zesInit route; nullptr otherwise (the other
// route's handle is UNINITIALIZED).
ZeDevice* sysman_device(zes_device_handle_t handle) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const ZeState& s = ze_state();
  ZeDevice* d = find_device(handle);
  if (d == nullptr) return nullptr;
  if (s.sysman == SysmanRoute::kLegacy) {
    // Core handles belong to the process that initialised (a child's legacy route would
    // need its own zeInit, which the pid gate refuses).
    return !d->sysman_card && s.initialized ? d : nullptr;
  }
  if (s.sysman == SysmanRoute::kZesInit) return d->sysman_card ? d : nullptr;
  return nullptr;
}

ze_result_t ZE_APICALL zesInit(abi::zes_init_flags_t flags) {
  return call("zesInit", CallKind::kSysmanBeforeInit, [&]() MOCKDEV_ZE_LOCKED {
    ZeState& s = ze_state();
    // zesInit flags (Intel): 0 or GPU_ONLY; any other bit is UNINITIALIZED.
    if ((flags & ~static_cast<abi::zes_init_flags_t>(ZE_INIT_FLAG_GPU_ONLY)) != 0)
      return ZE_RESULT_ERROR_UNINITIALIZED;
    // After the legacy route initialised, zesInit fails (Arc / older data-centre
    // behaviour, the one the backend must survive).
    if (s.sysman == SysmanRoute::kLegacy) return ZE_RESULT_ERROR_UNINITIALIZED;
    if (s.sysman_attempted) return s.sysman_result;  // call_once, no pid check
    s.sysman_attempted = true;
    const core::Engine& e = core::engine();
    std::vector<int> cards = intel_cards();
    if (e.config_error || cards.empty()) {
      // As zeInit: a machine that cannot be loaded is a failing driver, none is no device.
      s.sysman_result = e.config_error ? ZE_RESULT_ERROR_UNKNOWN : ZE_RESULT_ERROR_UNINITIALIZED;
      return s.sysman_result;
    }
    // Every card in machine-file order, whatever the mask, hierarchy or PCI order.
    for (std::size_t i = 0; i < cards.size(); ++i) {
      auto* c = new ZeDevice();  // never freed: Note [Leaky state]
      c->card = cards[i];
      c->card_ordinal = static_cast<int>(i);
      c->tile_span = e.machine.devices[static_cast<std::size_t>(cards[i])].tiles;
      c->sysman_card = true;
      s.cards.push_back(c);
      register_handle(c);
    }
    s.sysman_driver = new _ze_driver_handle_t();
    register_handle(s.sysman_driver);
    s.sysman = SysmanRoute::kZesInit;
    s.sysman_initialized = true;
    s.sysman_result = ZE_RESULT_SUCCESS;
    return s.sysman_result;
  });
}

ze_result_t ZE_APICALL zesDriverGet(std::uint32_t* count, zes_driver_handle_t* drivers) {
  return call("zesDriverGet", CallKind::kSysman, [&]() MOCKDEV_ZE_LOCKED {
    const ZeState& s = ze_state();
    // UNINITIALIZED on the legacy route (Intel) and before zesInit.
    if (s.sysman != SysmanRoute::kZesInit) return ZE_RESULT_ERROR_UNINITIALIZED;
    std::vector<_ze_driver_handle_t*> list{s.sysman_driver};
    return copy_handles(list, count, drivers, ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  });
}

ze_result_t ZE_APICALL zesDeviceGet(zes_driver_handle_t driver, std::uint32_t* count,
                                    zes_device_handle_t* devices) {
  return call("zesDeviceGet", CallKind::kSysman, [&]() MOCKDEV_ZE_LOCKED {
    const ZeState& s = ze_state();
    if (s.sysman != SysmanRoute::kZesInit) return ZE_RESULT_ERROR_UNINITIALIZED;
    if (!is_live(driver) || driver != s.sysman_driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return copy_handles(s.cards, count, devices, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  });
}

ze_result_t ZE_APICALL zesDeviceGetProperties(zes_device_handle_t device,
                                              zes_device_properties_t* p) {
  return call("zesDeviceGetProperties", CallKind::kSysman, [&]() MOCKDEV_ZE_LOCKED {
    ZeDevice* d = sysman_device(device);
    if (d == nullptr) return ZE_RESULT_ERROR_UNINITIALIZED;
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const MachineSpec& m = core::engine().machine;
    const DeviceSpec& spec = m.devices[static_cast<std::size_t>(d->card)];
    fill_core_properties(*d, &p->core);
    // numSubdevices = the card's tiles whatever the hierarchy (0 for a tile handle).
    p->numSubdevices = d->tile < 0 ? static_cast<std::uint32_t>(spec.tiles) : 0;
    copy_text(p->serialNumber, "unknown");
    copy_text(p->boardNumber, "unknown");
    copy_text(p->brandName, "Intel(R) Graphics");
    copy_text(p->modelName, spec.name);
    copy_text(p->vendorName, "Intel(R) Corporation");
    const std::uint32_t v = m.level_zero.driver_version;
    copy_text(p->driverVersion, std::to_string(v >> 24) + "." + std::to_string((v >> 16) & 0xff) +
                                    "." + std::to_string(v & 0xffff));
    // The flags in core.flags (set above) and in the chained ext struct, whose uuid
    // equals the core uuid. Unknown links are skipped.
    for (auto* link = static_cast<ze_base_properties_t*>(p->pNext); link != nullptr;
         link = static_cast<ze_base_properties_t*>(link->pNext)) {
      if (static_cast<int>(link->stype) != abi::kZesStructureTypeDeviceExtProperties) continue;
      auto* ext = reinterpret_cast<abi::zes_device_ext_properties_t*>(link);
      std::memcpy(ext->uuid, p->core.uuid.id, sizeof ext->uuid);
      ext->type = 1;  // ZES_DEVICE_TYPE_GPU
      ext->flags = 0;
      if (spec.integrated) ext->flags |= abi::kZesDevicePropertyFlagIntegrated;
      if (d->reported_as_subdevice) ext->flags |= abi::kZesDevicePropertyFlagSubdevice;
    }
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zesDeviceEnumMemoryModules(zes_device_handle_t device, std::uint32_t* count,
                                                  zes_mem_handle_t* modules) {
  return call("zesDeviceEnumMemoryModules", CallKind::kSysman, [&]() MOCKDEV_ZE_LOCKED {
    ZeDevice* d = sysman_device(device);
    if (d == nullptr) return ZE_RESULT_ERROR_UNINITIALIZED;
    ZeState& s = ze_state();
    std::vector<_zes_mem_handle_t*>* list = nullptr;
    for (auto& entry : s.memory_modules)
      if (entry.first == d) list = &entry.second;
    if (list == nullptr) {
      // One module per tile the handle covers, or one for an untiled card. Made once
      // per handle so enumerations repeat the same handles.
      s.memory_modules.emplace_back(d, std::vector<_zes_mem_handle_t*>{});
      list = &s.memory_modules.back().second;
      const int tiles = core::engine().machine.devices[static_cast<std::size_t>(d->card)].tiles;
      std::vector<int> module_tiles;
      if (d->tile >= 0) {
        module_tiles.push_back(d->tile);
      } else if (tiles == 0) {
        module_tiles.push_back(-1);
      } else if (!d->subdevices.empty()) {
        for (const ZeDevice* sub : d->subdevices) module_tiles.push_back(sub->tile);
      } else {
        for (int t = 0; t < tiles; ++t) module_tiles.push_back(t);
      }
      for (int t : module_tiles) {
        auto* m = new _zes_mem_handle_t{d->card, t};  // never freed: Note [Leaky state]
        register_handle(m);
        list->push_back(m);
      }
    }
    return copy_handles(*list, count, modules, ZE_RESULT_ERROR_INVALID_ARGUMENT);
  });
}

_zes_mem_handle_t* find_module(zes_mem_handle_t handle) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (!is_live(handle)) return nullptr;
  for (auto& entry : ze_state().memory_modules)
    for (_zes_mem_handle_t* m : entry.second)
      if (m == handle) return m;
  return nullptr;
}

// A module's share of its card: the card's capacity split evenly over its tiles (Note [Memory
// per tile] in ze_state.h).
std::uint64_t module_size(const _zes_mem_handle_t& m) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const int tiles = core::engine().machine.devices[static_cast<std::size_t>(m.card)].tiles;
  const std::uint64_t capacity = core::capacity_bytes(m.card);
  return m.tile < 0 ? capacity : capacity / static_cast<std::uint64_t>(tiles);
}

ze_result_t ZE_APICALL zesMemoryGetProperties(zes_mem_handle_t handle, zes_mem_properties_t* p) {
  return call("zesMemoryGetProperties", CallKind::kSysman, [&]() MOCKDEV_ZE_LOCKED {
    _zes_mem_handle_t* m = find_module(handle);
    if (m == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const DeviceSpec& spec = core::engine().machine.devices[static_cast<std::size_t>(m->card)];
    // An integrated GPU's memory is the system's (zeDeviceGetMemoryProperties names it DDR).
    p->type = spec.integrated ? ZES_MEM_TYPE_LPDDR4 : ZES_MEM_TYPE_HBM;
    p->onSubdevice = m->tile >= 0 ? 1 : 0;
    p->subdeviceId = m->tile >= 0 ? static_cast<std::uint32_t>(m->tile) : 0;
    p->location = spec.integrated ? ZES_MEM_LOC_SYSTEM : ZES_MEM_LOC_DEVICE;
    p->physicalSize = m->tile < 0 ? spec.memory_bytes
                                  : spec.memory_bytes / static_cast<std::uint64_t>(spec.tiles);
    p->busWidth = -1;
    p->numChannels = -1;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zesMemoryGetState(zes_mem_handle_t handle, zes_mem_state_t* p) {
  return call("zesMemoryGetState", CallKind::kSysman, [&]() MOCKDEV_ZE_LOCKED {
    _zes_mem_handle_t* m = find_module(handle);
    if (m == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const std::uint64_t size = module_size(*m);
    // A tile's module: its own allocations and its share of the card's rest.
    const std::uint64_t used =
        m->tile >= 0 ? tile_used_bytes(m->card, m->tile) : core::used_bytes(m->card);
    // Free = size - all usage, at the moment of the query.
    p->health = ZES_MEM_HEALTH_OK;
    p->size = size;
    p->free = used < size ? size - used : 0;
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace

MOCKDEV_ZE_FILL_FUNCTION(fill_sysman_device_table, zes_device_dditable_t,
                         ACCEL_ZE_SYSMAN_DEVICE_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_sysman_driver_table, zes_driver_dditable_t,
                         ACCEL_ZE_SYSMAN_DRIVER_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_sysman_memory_table, zes_memory_dditable_t,
                         ACCEL_ZE_SYSMAN_MEMORY_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_sysman_global_table, abi::zes_global_dditable_1_5_t,
                         ACCEL_ZE_SYSMAN_GLOBAL_ENTRY_POINTS)

}  // namespace mockdev::level_zero
