// Devices: handles after hierarchy, mask and PCI order, and every
// device query of the Device table.

#include "level_zero/ze_devices.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/engine.h"
#include "core/timeline.h"
#include "level_zero/ze_affinity.h"
#include "level_zero/ze_state.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

const DeviceSpec& spec_of(const ZeDevice& d) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return core::engine().machine.devices[static_cast<std::size_t>(d.card)];
}

ZeDevice* make_device(ZeState& s, int card, int ordinal, int tile)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  auto* d = new ZeDevice();  // never freed: Note [Leaky state]
  d->card = card;
  d->card_ordinal = ordinal;
  d->tile = tile;
  d->tile_span = tile >= 0 ? 1 : 0;
  s.handles.push_back(d);
  register_handle(d);
  return d;
}

bool env_is_one(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && std::strcmp(value, "1") == 0;
}

// Copies `text` into a fixed char array, NUL-terminated and truncated.
template <std::size_t N>
void copy_name(char (&out)[N], const std::string& text) {
  std::memset(out, 0, N);
  std::memcpy(out, text.data(), std::min(text.size(), N - 1));
}

}  // namespace

std::vector<int> intel_cards() {
  std::vector<int> cards;
  const MachineSpec& m = core::engine().machine;
  for (std::size_t i = 0; i < m.devices.size(); ++i)
    if (m.devices[i].vendor == Vendor::kIntel) cards.push_back(static_cast<int>(i));
  return cards;
}

void device_uuid(int card, int tile, std::uint8_t out[16]) {
  const DeviceSpec& spec = core::engine().machine.devices[static_cast<std::size_t>(card)];
  std::memset(out, 0, 16);
  // The hex digits of the machine file's uuid, in order; a uuid without 32 hex digits is
  // completed from the card index so distinct cards stay distinct.
  int nibble = 0;
  for (char c : spec.uuid) {
    int v = -1;
    if (c >= '0' && c <= '9') v = c - '0';
    if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
    if (v < 0 || nibble >= 32) continue;
    out[nibble / 2] = static_cast<std::uint8_t>(out[nibble / 2] | (nibble % 2 == 0 ? v << 4 : v));
    ++nibble;
  }
  if (nibble < 32) {
    out[0] = 0x86;
    out[1] = 0x80;
    out[13] = static_cast<std::uint8_t>(card);
  }
  // Every tile has its own uuid (ze_device_properties_t::uuid): the card's with the tile number in
  // the last byte's place, never equal to the card's own.
  if (tile >= 0) out[15] = static_cast<std::uint8_t>(out[15] ^ (0x80 | (tile + 1)));
}

bool build_devices(ZeState& s, std::string& why) {
  const MachineSpec& m = core::engine().machine;
  std::vector<int> cards = intel_cards();
  // ZE_ENABLE_PCI_ID_DEVICE_ORDER=1 orders cards by PCI bus id (lowest first) before
  // the hierarchy and the mask apply; otherwise machine-file order.
  if (env_is_one("ZE_ENABLE_PCI_ID_DEVICE_ORDER")) {
    std::stable_sort(cards.begin(), cards.end(), [&](int a, int b) {
      return m.devices[static_cast<std::size_t>(a)].pci_bus_id <
             m.devices[static_cast<std::size_t>(b)].pci_bus_id;
    });
  }
  const Hierarchy machine_default =
      parse_hierarchy(m.level_zero.default_hierarchy).value_or(Hierarchy::kComposite);
  const Hierarchy hierarchy =
      resolve_hierarchy(std::getenv("ZE_FLAT_DEVICE_HIERARCHY"), machine_default);
  s.hierarchy = std::string(hierarchy_name(hierarchy));
  std::vector<int> tiles;
  for (int c : cards) tiles.push_back(m.devices[static_cast<std::size_t>(c)].tiles);
  const char* mask = std::getenv("ZE_AFFINITY_MASK");
  Exposure exposure =
      expose_devices(tiles, hierarchy, mask ? std::optional<std::string_view>(mask) : std::nullopt);
  if (!exposure.error.empty()) {
    why = exposure.error;
    return false;
  }
  if (exposure.devices.empty()) {
    why = cards.empty() ? std::string("the machine has no Intel device")
                        : "ZE_AFFINITY_MASK='" + std::string(mask ? mask : "") +
                              "' selects no device under " + s.hierarchy + " hierarchy";
    return false;
  }
  // Sysman order is machine-file order among Intel cards.
  const std::vector<int> plain = intel_cards();
  auto ordinal_of = [&](int card) {
    return static_cast<int>(std::find(plain.begin(), plain.end(), card) - plain.begin());
  };
  std::vector<ZeDevice*> roots(cards.size(), nullptr);  // COMBINED: the card behind its tiles
  for (const Exposed& e : exposure.devices) {
    const int card = cards[static_cast<std::size_t>(e.card)];
    const int ordinal = ordinal_of(card);
    if (e.tile >= 0 && hierarchy != Hierarchy::kComposite) {
      ZeDevice* d = make_device(s, card, ordinal, e.tile);
      if (hierarchy == Hierarchy::kCombined) {
        // COMBINED: tiles carry SUBDEVICE and reach their card as root, whose
        // sub-devices are its tiles.
        d->reported_as_subdevice = true;
        ZeDevice*& root = roots[static_cast<std::size_t>(e.card)];
        if (root == nullptr) {
          root = make_device(s, card, ordinal, -1);
          root->tile_span = m.devices[static_cast<std::size_t>(card)].tiles;
        }
        d->root = root;
        root->subdevices.push_back(d);
      }
      s.devices.push_back(d);
    } else if (e.tile >= 0) {
      s.devices.push_back(make_device(s, card, ordinal, e.tile));  // COMPOSITE `N.M` alone
    } else {
      ZeDevice* d = make_device(s, card, ordinal, -1);
      d->tile_span = static_cast<int>(e.tiles.size());
      if (hierarchy == Hierarchy::kComposite) {
        for (int t : e.tiles) {
          ZeDevice* sub = make_device(s, card, ordinal, t);
          sub->reported_as_subdevice = true;
          sub->root = d;
          d->subdevices.push_back(sub);
        }
      }
      s.devices.push_back(d);
    }
  }
  return true;
}

void fill_core_properties(const ZeDevice& device, ze_device_properties_t* p) {
  const DeviceSpec& spec = spec_of(device);
  const LevelZeroDeviceSpec& l0 = spec.level_zero;
  // Whole fields assigned, never ORed; stype/pNext untouched.
  p->type = ZE_DEVICE_TYPE_GPU;
  p->vendorId = 0x8086;
  p->deviceId = l0.device_id;
  p->flags = 0;
  if (spec.integrated) p->flags |= ZE_DEVICE_PROPERTY_FLAG_INTEGRATED;
  if (device.reported_as_subdevice) p->flags |= ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE;
  p->subdeviceId = device.reported_as_subdevice ? static_cast<std::uint32_t>(device.tile) : 0;
  p->coreClockRate = l0.core_clock_mhz;
  // maxMemAllocSize: the machine's cap, or the memory of one tile (the card's when untiled).
  const std::uint64_t tile_memory = spec.tiles > 0
                                        ? spec.memory_bytes / static_cast<std::uint64_t>(spec.tiles)
                                        : spec.memory_bytes;
  p->maxMemAllocSize = l0.max_mem_alloc_bytes != 0 ? l0.max_mem_alloc_bytes : tile_memory;
  p->maxHardwareContexts = 65536;
  p->maxCommandQueuePriority = 0;
  p->numThreadsPerEU = static_cast<std::uint32_t>(l0.threads_per_eu);
  p->physicalEUSimdWidth = static_cast<std::uint32_t>(l0.simd_width);
  p->numEUsPerSubslice = static_cast<std::uint32_t>(l0.eus_per_subslice);
  p->numSubslicesPerSlice = static_cast<std::uint32_t>(l0.subslices_per_slice);
  // A root scales over its tiles: slices multiply by the tiles it spans (Intel's driver).
  const int span = device.tile < 0 && device.tile_span > 0 ? device.tile_span : 1;
  p->numSlices = static_cast<std::uint32_t>(l0.num_slices * span);
  // The unit depends on the caller's stype; both truncated to integers as Intel does.
  if (p->stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2) {
    p->timerResolution = static_cast<std::uint64_t>(1e9 / l0.timer_resolution_ns);
  } else {
    p->timerResolution = static_cast<std::uint64_t>(l0.timer_resolution_ns);
  }
  p->timestampValidBits = static_cast<std::uint32_t>(l0.timestamp_valid_bits);
  p->kernelTimestampValidBits = static_cast<std::uint32_t>(l0.kernel_timestamp_valid_bits);
  device_uuid(device.card, device.tile, p->uuid.id);
  copy_name(p->name, spec.name);
}

std::uint64_t device_timestamp_ticks(const ZeDevice& device, std::uint64_t virtual_ns,
                                     int valid_bits) {
  const LevelZeroDeviceSpec& l0 = spec_of(device).level_zero;
  const auto elapsed = static_cast<std::uint64_t>(
      std::floor(static_cast<double>(virtual_ns) / l0.timer_resolution_ns));
  const std::uint64_t ticks = l0.timestamp_start_ticks + elapsed;
  if (valid_bits >= 64) return ticks;
  return ticks & ((std::uint64_t{1} << valid_bits) - 1);
}

namespace {

// Validates a device handle; the code for an unknown one.
#define MOCKDEV_ZE_DEVICE(var, handle) \
  ZeDevice* var = find_device(handle); \
  if (var == nullptr || var->sysman_card) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE

ze_result_t ZE_APICALL zeDeviceGet(ze_driver_handle_t driver, std::uint32_t* count,
                                   ze_device_handle_t* devices) {
  return call("zeDeviceGet", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    ZeState& s = ze_state();
    if (!is_live(driver) || driver != s.driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return copy_handles(s.devices, count, devices, ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  });
}

ze_result_t ZE_APICALL zeDeviceGetSubDevices(ze_device_handle_t device, std::uint32_t* count,
                                             ze_device_handle_t* subs) {
  return call("zeDeviceGetSubDevices", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    // COMPOSITE cards list their tiles; FLAT devices and COMBINED tiles have none
    // (a COMBINED card, reached as a root, lists its tiles).
    return copy_handles(d->subdevices, count, subs, ZE_RESULT_ERROR_INVALID_ARGUMENT);
  });
}

// zeDeviceGetRootDevice (spec 1.7, D-3's table): the card behind a COMPOSITE sub-device or a
// COMBINED tile; null for a card, a FLAT device and an untiled card (SUCCESS with null, as
// Intel's driver answers for a device without a root).
ze_result_t ZE_APICALL zeDeviceGetRootDevice(ze_device_handle_t device, ze_device_handle_t* root) {
  return call("zeDeviceGetRootDevice", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (root == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *root = d->root;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetProperties(ze_device_handle_t device, ze_device_properties_t* p) {
  return call("zeDeviceGetProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    fill_core_properties(*d, p);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetComputeProperties(ze_device_handle_t device,
                                                    ze_device_compute_properties_t* p) {
  return call("zeDeviceGetComputeProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    (void)d;
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    // Reported only (Intel Xe-HPC values).
    p->maxTotalGroupSize = kMaxTotalGroupSize;
    p->maxGroupSizeX = kMaxGroupSize;
    p->maxGroupSizeY = kMaxGroupSize;
    p->maxGroupSizeZ = kMaxGroupSize;
    p->maxGroupCountX = 0xffffffffu;
    p->maxGroupCountY = 0xffffffffu;
    p->maxGroupCountZ = 0xffffffffu;
    p->maxSharedLocalMemory = 128 * 1024;
    p->numSubGroupSizes = 2;
    std::memset(p->subGroupSizes, 0, sizeof p->subGroupSizes);
    p->subGroupSizes[0] = 16;
    p->subGroupSizes[1] = 32;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetModuleProperties(ze_device_handle_t device,
                                                   ze_device_module_properties_t* p) {
  return call("zeDeviceGetModuleProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const bool fp64 = spec_of(*d).level_zero.fp64;
    const ze_device_fp_flags_t full =
        ZE_DEVICE_FP_FLAG_DENORM | ZE_DEVICE_FP_FLAG_INF_NAN | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST |
        ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO | ZE_DEVICE_FP_FLAG_ROUND_TO_INF | ZE_DEVICE_FP_FLAG_FMA;
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 4);
    p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS |
               ZE_DEVICE_MODULE_FLAG_DP4A | (fp64 ? ZE_DEVICE_MODULE_FLAG_FP64 : 0);
    p->fp16flags = full;
    p->fp32flags = full | ZE_DEVICE_FP_FLAG_ROUNDED_DIVIDE_SQRT;
    p->fp64flags = fp64 ? full : 0;  // 0 when FP64 is absent (header rule)
    p->maxArgumentsSize = 2048;
    p->printfBufferSize = 4 * 1024 * 1024;
    std::memset(p->nativeKernelSupported.id, 0, sizeof p->nativeKernelSupported.id);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetMemoryProperties(ze_device_handle_t device, std::uint32_t* count,
                                                   ze_device_memory_properties_t* p) {
  return call("zeDeviceGetMemoryProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*count == 0) {
      *count = 1;  // exactly one entry
      return ZE_RESULT_SUCCESS;
    }
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *count = 1;
    p->flags = 0;
    p->maxClockRate = 3200;
    p->maxBusWidth = 8192;
    p->totalSize = device_memory_bytes(*d);
    // Intel's driver names device memory "DDR" unless the product says otherwise; the Xe-HP
    // and Xe-HPC products (Data Center GPU Max) say "HBM". An integrated GPU uses the
    // system's memory: "DDR", LPDDR4 in the extension [inferred: the laptop's memory kind].
    const bool integrated = spec_of(*d).integrated;
    copy_name(p->name, integrated ? "DDR" : "HBM");
    // Walk the chain, fill the links known, skip the rest, never touch
    // stype/pNext.
    for (auto* link = static_cast<ze_base_properties_t*>(p->pNext); link != nullptr;
         link = static_cast<ze_base_properties_t*>(link->pNext)) {
      if (link->stype == ZE_STRUCTURE_TYPE_DEVICE_MEMORY_EXT_PROPERTIES) {
        auto* ext = reinterpret_cast<ze_device_memory_ext_properties_t*>(link);
        ext->type = integrated ? ZE_DEVICE_MEMORY_EXT_TYPE_LPDDR4 : ZE_DEVICE_MEMORY_EXT_TYPE_HBM2;
        ext->physicalSize = device_memory_bytes(*d);
        ext->readBandwidth = 1600;
        ext->writeBandwidth = 1600;
        ext->bandwidthUnit = ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC;
      }
    }
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetMemoryAccessProperties(ze_device_handle_t device,
                                                         ze_device_memory_access_properties_t* p) {
  return call("zeDeviceGetMemoryAccessProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    (void)d;
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ze_memory_access_cap_flags_t rw = ZE_MEMORY_ACCESS_CAP_FLAG_RW;
    p->hostAllocCapabilities = rw;
    p->deviceAllocCapabilities = rw;
    p->sharedSingleDeviceAllocCapabilities = rw;
    p->sharedCrossDeviceAllocCapabilities = rw;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
  });
}

// The machine file's `images` (DeviceSpec::level_zero): without images every limit is 0, which is
// how Intel's driver answers for a device without them; with images, Intel's limits.
ze_result_t ZE_APICALL zeDeviceGetImageProperties(ze_device_handle_t device,
                                                  ze_device_image_properties_t* p) {
  return call("zeDeviceGetImageProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const DeviceSpec& spec = spec_of(*d);
    const bool images = spec.level_zero.images;
    std::uint64_t max_alloc = spec.level_zero.max_mem_alloc_bytes;
    if (max_alloc == 0) {
      max_alloc = spec.tiles > 0 ? spec.memory_bytes / static_cast<std::uint64_t>(spec.tiles)
                                 : spec.memory_bytes;
    }
    p->maxImageDims1D = images ? 16384 : 0;
    p->maxImageDims2D = images ? 16384 : 0;
    p->maxImageDims3D = images ? 2048 : 0;
    p->maxImageBufferSize = images ? max_alloc / 4 : 0;  // [inferred]
    p->maxImageArraySlices = images ? 2048 : 0;
    p->maxSamplers = images ? 16 : 0;
    p->maxReadImageArgs = images ? 128 : 0;
    p->maxWriteImageArgs = images ? 128 : 0;
    return ZE_RESULT_SUCCESS;
  });
}

// The machine file's `external_memory` for allocations (default none); images import and
// export nothing.
ze_result_t ZE_APICALL zeDeviceGetExternalMemoryProperties(
    ze_device_handle_t device, ze_device_external_memory_properties_t* p) {
  return call("zeDeviceGetExternalMemoryProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const std::uint32_t types = spec_of(*d).level_zero.external_memory_types;
    p->memoryAllocationImportTypes = types;
    p->memoryAllocationExportTypes = types;
    p->imageImportTypes = 0;
    p->imageExportTypes = 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetCacheProperties(ze_device_handle_t device, std::uint32_t* count,
                                                  ze_device_cache_properties_t* p) {
  return call("zeDeviceGetCacheProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    (void)d;
    if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*count == 0) {
      *count = 1;
      return ZE_RESULT_SUCCESS;
    }
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *count = 1;
    p->flags = 0;
    p->cacheSize = std::size_t{204} * 1024 * 1024;  // one last-level cache entry
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetCommandQueueGroupProperties(
    ze_device_handle_t device, std::uint32_t* count, ze_command_queue_group_properties_t* p) {
  return call("zeDeviceGetCommandQueueGroupProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*count == 0) {
      *count = 2;
      return ZE_RESULT_SUCCESS;
    }
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const LevelZeroDeviceSpec& l0 = spec_of(*d).level_zero;
    // Ordinal 0 = COMPUTE|COPY with any pattern size, ordinal 1 = COPY with the
    // machine's pattern limit.
    const std::uint32_t k = *count < 2 ? *count : 2;
    p[0].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
                 ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY |
                 ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS;
    p[0].maxMemoryFillPatternSize = SIZE_MAX;
    p[0].numQueues = static_cast<std::uint32_t>(l0.compute_queues);
    if (k > 1) {
      p[1].flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
      p[1].maxMemoryFillPatternSize = static_cast<std::size_t>(l0.copy_fill_pattern_limit);
      p[1].numQueues = static_cast<std::uint32_t>(l0.copy_queues);
    }
    *count = k;
    return ZE_RESULT_SUCCESS;
  });
}

// Peers: tiles of one card always; cards per the machine's topology between them.
bool peers(const ZeDevice& a, const ZeDevice& b) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (a.card == b.card) return true;
  return core::engine().machine.topology.between(a.card, b.card).link != PeerLink::kNone;
}

ze_result_t ZE_APICALL zeDeviceCanAccessPeer(ze_device_handle_t device, ze_device_handle_t peer,
                                             ze_bool_t* value) {
  return call("zeDeviceCanAccessPeer", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    MOCKDEV_ZE_DEVICE(q, peer);
    if (value == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *value = peers(*d, *q) ? 1 : 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetP2PProperties(ze_device_handle_t device, ze_device_handle_t peer,
                                                ze_device_p2p_properties_t* p) {
  return call("zeDeviceGetP2PProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    MOCKDEV_ZE_DEVICE(q, peer);
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0;
    if (peers(*d, *q)) {
      p->flags = ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS;
      const bool atomics = d->card == q->card ||
                           core::engine().machine.topology.between(d->card, q->card).native_atomics;
      if (atomics) p->flags |= ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS;
    }
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetStatus(ze_device_handle_t device) {
  return call("zeDeviceGetStatus", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    // A sticky error of the machine file on this card is a lost device.
    if (std::optional<int> code = core::touch_device(Api::kLevelZero, d->card))
      return static_cast<ze_result_t>(*code);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t ZE_APICALL zeDeviceGetGlobalTimestamps(ze_device_handle_t device, std::uint64_t* host,
                                                   std::uint64_t* device_ts) {
  return call("zeDeviceGetGlobalTimestamps", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    MOCKDEV_ZE_DEVICE(d, device);
    if (host == nullptr || device_ts == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    // Both sampled from the one virtual clock, so tests are deterministic.
    const std::uint64_t now = core::host_time_ns();
    *host = now;
    *device_ts = device_timestamp_ticks(*d, now, spec_of(*d).level_zero.timestamp_valid_bits);
    return ZE_RESULT_SUCCESS;
  });
}

#undef MOCKDEV_ZE_DEVICE

}  // namespace

MOCKDEV_ZE_FILL_FUNCTION(fill_device_table, ze_device_dditable_t, ACCEL_ZE_DEVICE_ENTRY_POINTS)

}  // namespace mockdev::level_zero
