// Memory of the mock Level Zero driver (zeMemAlloc*, zeMemFree, ...): device, host and shared
// allocations of a context, zeMemFree, zeMemGetAllocProperties, zeMemGetAddressRange, and
// what copies and fills name.
//
// Device memory is engine memory (core::allocate with Api::kLevelZero on the card): its
// bytes are real, reached through copies and fills, and the engine's memory faults and
// card capacity apply. A tile has its own budget on top (the card's memory ÷
// tiles), so an allocation on a full tile fails with OUT_OF_DEVICE_MEMORY while the root
// device still succeeds. The three size outcomes are kept apart: above
// maxMemAllocSize -> UNSUPPORTED_SIZE (unless the relaxed-limits link allows it),
// beyond free memory -> OUT_OF_DEVICE_MEMORY.
//
// Host memory is real host memory (aligned_alloc), recorded as pinned (core/pinned_host)
// so copies read and write it when they execute. Shared memory is host memory too (the
// host can touch it directly, as on Intel's driver), associated with a device or none;
// it does not count against device capacity [inferred: the mock has no migration].

#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/engine.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "core/timeline.h"
#include "core/virtual_memory.h"
#include "level_zero/ze_ipc.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

constexpr std::uint64_t kHostPageBytes = 4096;

bool is_power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return (v + to - 1) / to * to; }

const DeviceSpec& card_spec(const ZeDevice& device) MOCKDEV_ZE_LOCKED {
  return core::engine().machine.devices.at(static_cast<std::size_t>(device.card));
}

// maxMemAllocSize: the machine file's cap, else one tile's memory (the card's
// when untiled), as Intel's driver caps it.
std::uint64_t max_alloc_bytes(const ZeDevice& device) MOCKDEV_ZE_LOCKED {
  const DeviceSpec& spec = card_spec(device);
  if (spec.level_zero.max_mem_alloc_bytes != 0) return spec.level_zero.max_mem_alloc_bytes;
  if (spec.tiles > 0) return spec.memory_bytes / static_cast<std::uint64_t>(spec.tiles);
  return spec.memory_bytes;
}

// The size cap, or the code for a chain that asks for relaxed limits wrongly.
// Returns SUCCESS when `bytes` is allowed.
ze_result_t check_size(const ZeDevice& device, const void* chain, std::uint64_t bytes)
    MOCKDEV_ZE_LOCKED {
  bool relaxed = false;
  for (auto* link = static_cast<const ze_base_desc_t*>(chain); link != nullptr;
       link = static_cast<const ze_base_desc_t*>(link->pNext)) {
    if (link->stype != ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC) continue;
    const auto* limits = reinterpret_cast<const ze_relaxed_allocation_limits_exp_desc_t*>(link);
    if ((limits->flags & ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE) == 0) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // the link without its flag
    }
    relaxed = true;
  }
  const std::uint64_t cap = relaxed ? device_memory_bytes(device) : max_alloc_bytes(device);
  return bytes > cap ? ZE_RESULT_ERROR_UNSUPPORTED_SIZE : ZE_RESULT_SUCCESS;
}

_ze_context_handle_t* context_of(ze_context_handle_t handle) MOCKDEV_ZE_LOCKED {
  return find_handle(handle, HandleKind::kContext);
}

std::uint64_t record(_ze_context_handle_t& context, std::uint64_t address, ZeAllocation a)
    MOCKDEV_ZE_LOCKED {
  a.id = objects().next_allocation_id++;
  a.caller = program_call_site();
  context.allocations[address] = a;
  return address;
}

// Host-backed memory (host and shared): aligned to max(alignment, 64), pinned.
ze_result_t host_backed(_ze_context_handle_t& context, MemKind kind, ZeDevice* device,
                        std::uint64_t bytes, std::uint64_t alignment, void** out)
    MOCKDEV_ZE_LOCKED {
  const std::uint64_t align = alignment < 64 ? 64 : alignment;
  void* memory = std::aligned_alloc(align, round_up(bytes, align));
  if (memory == nullptr) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  const auto address = reinterpret_cast<std::uintptr_t>(memory);
  core::add_pinned(Api::kLevelZero, address, bytes, true);
  ZeAllocation a;
  a.kind = kind;
  a.bytes = bytes;
  a.device = device;
  a.storage = address;
  a.page_bytes = kHostPageBytes;
  record(context, address, a);
  *out = memory;
  return ZE_RESULT_SUCCESS;
}

void release(const ZeAllocation& a, ZeDevice* device) MOCKDEV_ZE_LOCKED {
  if (a.kind == MemKind::kDevice) {
    core::free_allocation(a.storage);
    if (a.tile_bytes != 0 && device != nullptr) {
      ze_state().tile_used[{device->card, device->tile}] -= a.tile_bytes;
    }
    return;
  }
  core::remove_pinned(a.storage);
  // Host bytes are real memory that a pending copy or fill writes when it executes (the
  // specification puts the burden on the caller, but nothing may crash): while any work is pending
  // the block is kept, and freed by a later free once the engine is idle.
  std::vector<std::uint64_t>& kept = objects().retired_host;
  kept.push_back(a.storage);
  if (core::timeline_stats().pending != 0 || !objects().stalled.empty()) return;
  for (std::uint64_t block : kept) std::free(reinterpret_cast<void*>(block));
  kept.clear();
}

ze_result_t zeMemAllocDevice(ze_context_handle_t hcontext, const ze_device_mem_alloc_desc_t* desc,
                             std::size_t size, std::size_t alignment, ze_device_handle_t hdevice,
                             void** out) {
  return call("zeMemAllocDevice", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    ZeDevice* device = core_device(hdevice);
    if (context == nullptr || device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->ordinal != 0) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // one memory ordinal
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && !is_power_of_two(alignment)) {
      return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    }
    if (ze_result_t r = check_size(*device, desc->pNext, size); r != ZE_RESULT_SUCCESS) return r;
    if (auto sticky = core::touch_device(Api::kLevelZero, device->card)) {
      return static_cast<ze_result_t>(*sticky);
    }
    // Engine allocations are aligned to the granularity; a larger alignment takes more
    // bytes and hands out an aligned address inside them.
    const std::uint64_t granule = core::granularity(device->card);
    const std::uint64_t extra = alignment > granule ? alignment : 0;
    std::uint64_t tile_bytes = 0;
    if (device->tile >= 0) {
      tile_bytes = round_up(size + extra, granule);
      const std::uint64_t used = ze_state().tile_used[{device->card, device->tile}];
      if (used + tile_bytes > device_memory_bytes(*device)) {
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;  // the tile is full
      }
    }
    std::optional<std::uint64_t> storage =
        core::allocate(Api::kLevelZero, device->card, size + extra);
    if (!storage) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    const std::uint64_t address = extra == 0 ? *storage : round_up(*storage, alignment);
    if (tile_bytes != 0) ze_state().tile_used[{device->card, device->tile}] += tile_bytes;
    ZeAllocation a;
    a.kind = MemKind::kDevice;
    a.bytes = size;
    a.device = device;
    a.storage = *storage;
    a.tile_bytes = tile_bytes;
    a.page_bytes = granule;
    record(*context, address, a);
    *out = reinterpret_cast<void*>(address);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemAllocHost(ze_context_handle_t hcontext, const ze_host_mem_alloc_desc_t* desc,
                           std::size_t size, std::size_t alignment, void** out) {
  return call("zeMemAllocHost", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags > 0xf) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && !is_power_of_two(alignment)) {
      return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    }
    return host_backed(*context, MemKind::kHost, nullptr, size, alignment, out);
  });
}

ze_result_t zeMemAllocShared(ze_context_handle_t hcontext, const ze_device_mem_alloc_desc_t* ddesc,
                             const ze_host_mem_alloc_desc_t* hdesc, std::size_t size,
                             std::size_t alignment, ze_device_handle_t hdevice, void** out) {
  return call("zeMemAllocShared", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    ZeDevice* device = nullptr;
    if (hdevice != nullptr) {  // null: no association (zeMemAllocShared)
      device = core_device(hdevice);
      if (device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (ddesc == nullptr || hdesc == nullptr || out == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    if (ddesc->flags > 0x7 || hdesc->flags > 0xf) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (ddesc->ordinal != 0) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (alignment != 0 && !is_power_of_two(alignment)) {
      return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    }
    if (device != nullptr) {
      if (ze_result_t r = check_size(*device, ddesc->pNext, size); r != ZE_RESULT_SUCCESS) {
        return r;
      }
    }
    return host_backed(*context, MemKind::kShared, device, size, alignment, out);
  });
}

// Only an address an allocation of this context returned; unknown or already freed
// -> INVALID_ARGUMENT. Pending work on it is not waited for (Note [Freed memory]).
ze_result_t zeMemFree(ze_context_handle_t hcontext, void* pointer) {
  return call("zeMemFree", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    auto it = context->allocations.find(reinterpret_cast<std::uintptr_t>(pointer));
    if (it == context->allocations.end()) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (it->second.module_global) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // the module's
    release(it->second, it->second.device);
    context->allocations.erase(it);
    return ZE_RESULT_SUCCESS;
  });
}

// Interior pointers resolve to their allocation; a pointer foreign to the context is
// SUCCESS with ZE_MEMORY_TYPE_UNKNOWN and leaves the device untouched.
ze_result_t zeMemGetAllocProperties(ze_context_handle_t hcontext, const void* pointer,
                                    ze_memory_allocation_properties_t* props,
                                    ze_device_handle_t* device_out) {
  return call("zeMemGetAllocProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr || props == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ZeAllocation* a =
        containing_allocation(*context, reinterpret_cast<std::uintptr_t>(pointer), 1, nullptr);
    if (a == nullptr) {
      props->type = ZE_MEMORY_TYPE_UNKNOWN;
      props->id = 0;
      props->pageSize = 0;
      return ZE_RESULT_SUCCESS;
    }
    switch (a->kind) {
      case MemKind::kDevice: props->type = ZE_MEMORY_TYPE_DEVICE; break;
      case MemKind::kHost: props->type = ZE_MEMORY_TYPE_HOST; break;
      case MemKind::kShared: props->type = ZE_MEMORY_TYPE_SHARED; break;
    }
    props->id = a->id;
    props->pageSize = a->page_bytes;
    if (device_out != nullptr) *device_out = a->device;
    return ZE_RESULT_SUCCESS;
  });
}

// A mock built on the 1.4 headers answers ZE_RESULT_ERROR_UNKNOWN for an unknown
// pointer (Intel before Oct 2025).
ze_result_t zeMemGetAddressRange(ze_context_handle_t hcontext, const void* pointer, void** base_out,
                                 std::size_t* size_out) {
  return call("zeMemGetAddressRange", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    std::uint64_t base = 0;
    const ZeAllocation* a =
        containing_allocation(*context, reinterpret_cast<std::uintptr_t>(pointer), 1, &base);
    if (a == nullptr) return ZE_RESULT_ERROR_UNKNOWN;
    if (base_out != nullptr) *base_out = reinterpret_cast<void*>(base);
    if (size_out != nullptr) *size_out = a->bytes;
    return ZE_RESULT_SUCCESS;
  });
}

// Whether `address` falls in some device's address window (Note [Device addresses]).
bool in_device_space(std::uint64_t address) MOCKDEV_ZE_LOCKED {
  const std::uint64_t devices = core::engine().machine.devices.size();
  const std::uint64_t first = std::uint64_t{1} << core::kAddressRangeShift;
  return address >= first && (address >> core::kAddressRangeShift) <= devices;
}

}  // namespace

const ZeAllocation* containing_allocation(const _ze_context_handle_t& context,
                                          std::uint64_t address, std::uint64_t bytes,
                                          std::uint64_t* base) {
  auto it = context.allocations.upper_bound(address);
  if (it == context.allocations.begin()) return nullptr;
  --it;
  const std::uint64_t offset = address - it->first;
  if (offset >= it->second.bytes || bytes > it->second.bytes - offset) return nullptr;
  if (base != nullptr) *base = it->first;
  return &it->second;
}

std::optional<std::uint64_t> allocate_global(_ze_context_handle_t& context, ZeDevice& device,
                                             std::uint64_t bytes) {
  std::optional<std::uint64_t> storage = core::allocate(Api::kLevelZero, device.card, bytes);
  if (!storage) return std::nullopt;
  ZeAllocation a;
  a.kind = MemKind::kDevice;
  a.bytes = bytes;
  a.device = &device;
  a.storage = *storage;
  a.page_bytes = core::granularity(device.card);
  a.module_global = true;
  return record(context, *storage, a);
}

void free_global(_ze_context_handle_t& context, std::uint64_t address) {
  auto it = context.allocations.find(address);
  if (it == context.allocations.end() || !it->second.module_global) return;
  release(it->second, it->second.device);
  context.allocations.erase(it);
}

void free_context_memory(_ze_context_handle_t& context) {
  for (const auto& [address, a] : context.allocations) release(a, a.device);
  context.allocations.clear();
}

bool resolve_endpoint(const _ze_context_handle_t& context, const void* pointer,
                      std::uint64_t bytes, Endpoint* out) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (address + bytes < address) return false;
  if (in_device_space(address)) {
    if (core::in_reservation_space(address)) {
      // Mapped memory with read-write access (Note [Virtual memory]).
      std::optional<core::Allocation> mapped = core::find_containing(address, bytes, nullptr);
      if (!mapped || context.reservations.empty()) return false;
      *out = Endpoint{true, false, address, mapped->device};
      return true;
    }
    const ZeAllocation* a = containing_allocation(context, address, bytes, nullptr);
    if (a == nullptr || a->kind != MemKind::kDevice) return false;
    *out = Endpoint{true, false, address, a->device->card};
    return true;
  }
  *out = Endpoint{false, core::is_pinned(address, bytes), address, -1};
  return true;
}

MOCKDEV_ZE_FILL_FUNCTION(fill_mem_table, ze_mem_dditable_t, ACCEL_ZE_MEM_ENTRY_POINTS)

}  // namespace mockdev::level_zero
