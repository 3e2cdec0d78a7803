// Virtual memory of the mock Level Zero driver (the 1.4 API: zeVirtualMem*, zePhysicalMem*)
// over core/virtual_memory (Note [Virtual memory]), as the CUDA adapter's driver_vmm.cpp
// uses it.
//
// Page size: what the device's level_zero small_page / large_page give for the size asked
// about (page_bytes). A reservation is made in the address window of the context's first
// device (Level Zero reservations belong to the context, not to a device); reservation and
// physical sizes must be multiples of the page their size gets (UNSUPPORTED_SIZE otherwise).
// Physical memory is engine memory of its device (capacity, faults: OUT_OF_DEVICE_MEMORY);
// a mapping covers a whole physical object at offset 0 (the engine maps whole handles:
// anything else is UNSUPPORTED_SIZE) and starts with the requested access. Read-write
// mappings are what copies and fills reach; NONE and READONLY mappings are outside every
// allocation for them [inferred: the engine has no read-only mappings].

#include "core/engine.h"
#include "core/memory.h"
#include "core/virtual_memory.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

_ze_context_handle_t* context_of(ze_context_handle_t handle) MOCKDEV_ZE_LOCKED {
  return find_handle(handle, HandleKind::kContext);
}

// The card whose window holds the context's reservations: the first visible device's.
int reservation_card() MOCKDEV_ZE_LOCKED {
  const ZeState& s = ze_state();
  return s.devices.empty() ? 0 : s.devices.front()->card;
}

// The page of a reservation or physical allocation of `bytes` on `card` [inferred: Intel's
// driver picks 64 KiB pages below 2 MiB and 2 MiB pages from 2 MiB up].
std::uint64_t page_bytes(int card, std::uint64_t bytes) MOCKDEV_ZE_LOCKED {
  const LevelZeroDeviceSpec& z =
      core::engine().machine.devices.at(static_cast<std::size_t>(card)).level_zero;
  return bytes < z.large_page_bytes ? z.small_page_bytes : z.large_page_bytes;
}

ze_result_t zeVirtualMemQueryPageSize(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                      std::size_t size, std::size_t* page) {
  return call("zeVirtualMemQueryPageSize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    ZeDevice* device = core_device(hdevice);
    if (context_of(hcontext) == nullptr || device == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (page == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (size == 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    *page = page_bytes(device->card, size);
    return ZE_RESULT_SUCCESS;
  });
}

// `start` is a hint the mock ignores, as the driver may.
ze_result_t zeVirtualMemReserve(ze_context_handle_t hcontext, const void* /*start*/,
                                std::size_t size, void** out) {
  return call("zeVirtualMemReserve", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const int card = reservation_card();
    if (size == 0 || size % page_bytes(card, size) != 0) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    std::optional<std::uint64_t> base = core::reserve_address(card, size, 0);
    if (!base) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    context->reservations[*base] = size;
    *out = reinterpret_cast<void*>(*base);
    return ZE_RESULT_SUCCESS;
  });
}

// The whole reservation, exactly; one with mappings inside is in use.
ze_result_t zeVirtualMemFree(ze_context_handle_t hcontext, const void* pointer, std::size_t size) {
  return call("zeVirtualMemFree", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto base = reinterpret_cast<std::uintptr_t>(pointer);
    auto it = context->reservations.find(base);
    if (it == context->reservations.end() || it->second != size) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    switch (core::free_address(base, size)) {
      case core::VmResult::kOk:
        context->reservations.erase(it);
        return ZE_RESULT_SUCCESS;
      case core::VmResult::kInUse:
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
      default:
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
  });
}

ze_result_t zePhysicalMemCreate(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                ze_physical_mem_desc_t* desc, ze_physical_mem_handle_t* out) {
  return call("zePhysicalMemCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    ZeDevice* device = core_device(hdevice);
    if (context == nullptr || device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->flags != 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->size == 0 || desc->size % page_bytes(device->card, desc->size) != 0) {
      return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    }
    std::optional<std::uint64_t> handle =
        core::create_physical(device->card, device->card, desc->size);
    if (!handle) return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    auto* physical = new _ze_physical_mem_handle_t();
    physical->context = context;
    physical->handle = *handle;
    physical->bytes = desc->size;
    add_child(context, physical, HandleKind::kPhysicalMem);
    *out = physical;
    return ZE_RESULT_SUCCESS;
  });
}

// Its memory goes once its last mapping does (the engine's rule).
ze_result_t zePhysicalMemDestroy(ze_context_handle_t hcontext, ze_physical_mem_handle_t handle) {
  return call("zePhysicalMemDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    _ze_physical_mem_handle_t* physical = find_handle(handle, HandleKind::kPhysicalMem);
    if (context == nullptr || physical == nullptr || physical->context != context) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    core::release_physical(physical->handle);
    remove_handle(physical);
    remove_child(context, physical);
    return ZE_RESULT_SUCCESS;
  });
}

bool known_access(ze_memory_access_attribute_t access) {
  return access == ZE_MEMORY_ACCESS_ATTRIBUTE_NONE ||
         access == ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE ||
         access == ZE_MEMORY_ACCESS_ATTRIBUTE_READONLY;
}

ze_result_t zeVirtualMemMap(ze_context_handle_t hcontext, const void* pointer, std::size_t size,
                            ze_physical_mem_handle_t hphysical, std::size_t offset,
                            ze_memory_access_attribute_t access) {
  return call("zeVirtualMemMap", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    _ze_physical_mem_handle_t* physical = find_handle(hphysical, HandleKind::kPhysicalMem);
    if (context == nullptr || physical == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!known_access(access)) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (offset != 0 || size != physical->bytes) return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    const auto base = reinterpret_cast<std::uintptr_t>(pointer);
    if (core::map_physical(base, size, physical->handle) != core::VmResult::kOk) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // outside a reservation, or overlapping
    }
    core::set_read_write(base, size, access == ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    context->mappings[base] = ZeMapping{size, access};
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeVirtualMemUnmap(ze_context_handle_t hcontext, const void* pointer, std::size_t size) {
  return call("zeVirtualMemUnmap", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto base = reinterpret_cast<std::uintptr_t>(pointer);
    std::optional<std::vector<core::MappedPiece>> pieces = core::mapped_pieces(base, size);
    if (!pieces) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    core::unmap_range(base, size);
    for (const core::MappedPiece& piece : *pieces) context->mappings.erase(piece.base);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeVirtualMemSetAccessAttribute(ze_context_handle_t hcontext, const void* pointer,
                                           std::size_t size, ze_memory_access_attribute_t access) {
  return call("zeVirtualMemSetAccessAttribute", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!known_access(access)) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    const auto base = reinterpret_cast<std::uintptr_t>(pointer);
    std::optional<std::vector<core::MappedPiece>> pieces = core::mapped_pieces(base, size);
    if (!pieces) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    core::set_read_write(base, size, access == ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
    for (const core::MappedPiece& piece : *pieces) context->mappings[piece.base].access = access;
    return ZE_RESULT_SUCCESS;
  });
}

// The access of the mapping holding `pointer`, and the bytes from `pointer` to its end
// that share it (outSize).
ze_result_t zeVirtualMemGetAccessAttribute(ze_context_handle_t hcontext, const void* pointer,
                                           std::size_t size, ze_memory_access_attribute_t* access,
                                           std::size_t* out_size) {
  return call("zeVirtualMemGetAccessAttribute", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = context_of(hcontext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr || access == nullptr || out_size == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    const auto address = reinterpret_cast<std::uintptr_t>(pointer);
    auto it = context->mappings.upper_bound(address);
    if (it == context->mappings.begin() || size == 0) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    --it;
    if (address - it->first >= it->second.bytes) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    *access = it->second.access;
    *out_size = it->first + it->second.bytes - address;
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace

void free_context_virtual_memory(_ze_context_handle_t& context) {
  for (const auto& [base, mapping] : context.mappings) {
    if (core::mapped_pieces(base, mapping.bytes)) core::unmap_range(base, mapping.bytes);
  }
  context.mappings.clear();
  for (void* child : context.children) {
    if (!is_handle(child, HandleKind::kPhysicalMem)) continue;
    auto* physical = static_cast<_ze_physical_mem_handle_t*>(child);
    core::release_physical(physical->handle);
    remove_handle(physical);
  }
  for (const auto& [base, bytes] : context.reservations) core::free_address(base, bytes);
  context.reservations.clear();
}

MOCKDEV_ZE_FILL_FUNCTION(fill_virtual_mem_table, ze_virtual_mem_dditable_t,
                         ACCEL_ZE_VIRTUAL_MEM_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_physical_mem_table, ze_physical_mem_dditable_t,
                         ACCEL_ZE_PHYSICAL_MEM_ENTRY_POINTS)

}  // namespace mockdev::level_zero
