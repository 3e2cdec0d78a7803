// The Level Zero backend's memory, virtual-memory and pinned-host groups, and memory_info
// (spi/backend.h; Level Zero's zeMem* calls and Sysman's zesMemoryGetState). Every call uses
// the one context; Level Zero has no current device, so none of them touches the thread's device.
#include <algorithm>
#include <string>
#include <vector>

#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_status.h"

namespace accel::detail::level_zero {

namespace {

// PyTorch's XPU caching allocator asks for 512-byte alignment; the SPI needs 256.
constexpr std::size_t kDeviceAlignment = 512;
constexpr std::size_t kHostAlignment = 512;

// The size memory_granularity asks zeVirtualMemQueryPageSize about: the page size depends
// on the allocation size on Intel's driver (64 KiB for small ones, 2 MiB from 2 MiB up),
// and expandable segments map in steps of at least 2 MiB (PyTorch's small segment size),
// so 2 MiB is the size whose page they actually get.
constexpr std::size_t kGranularityProbeBytes = std::size_t{2} << 20;

// Both codes mean "no room for this" to the caching allocator, which then frees cached
// blocks and retries, or raises OutOfMemoryError; the driver's text is kept.
Status allocation_status(ze_result_t rc, std::string_view operation, int index) {
  Status status = ze_status(rc, operation, index);
  if (rc == ZE_RESULT_ERROR_UNSUPPORTED_SIZE) {
    return Status(ErrorKind::kOutOfMemory, status.message(), status.detail());
  }
  return status;
}

template <class F>
Status guarded(F body) noexcept {
  try {
    return body();
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace

// ---- raw device memory ---------------------------------------------------------------------

Result<DevicePointer> LevelZeroBackend::allocate(int index, std::size_t bytes) noexcept {
  ze_device_mem_alloc_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  desc.ordinal = 0;  // Intel reports one memory ordinal
  void* pointer = nullptr;
  const ze_result_t rc = api().zeMemAllocDevice(context(), &desc, bytes, kDeviceAlignment,
                                                device(index).handle, &pointer);
  if (rc != ZE_RESULT_SUCCESS) {
    return guarded([&] { return allocation_status(rc, "allocate: zeMemAllocDevice", index); });
  }
  return DevicePointer{reinterpret_cast<std::uintptr_t>(pointer)};
}

Status LevelZeroBackend::deallocate(int index, DevicePointer pointer) noexcept {
  const ze_result_t rc = api().zeMemFree(context(), reinterpret_cast<void*>(pointer.value));
  if (rc == ZE_RESULT_SUCCESS) return Status();
  return guarded([&] { return ze_status(rc, "deallocate: zeMemFree", index); });
}

// ---- virtual memory ------------------------------------------------------------------------

Result<std::size_t> LevelZeroBackend::memory_granularity(int index) noexcept {
  std::size_t page = 0;
  const ze_result_t rc = api().zeVirtualMemQueryPageSize(context(), device(index).handle,
                                                         kGranularityProbeBytes, &page);
  if (rc != ZE_RESULT_SUCCESS) {
    return guarded(
        [&] { return ze_status(rc, "memory_granularity: zeVirtualMemQueryPageSize", index); });
  }
  if (page == 0) {
    return guarded([&] {
      return Status(ErrorKind::kDriver, "memory_granularity: zeVirtualMemQueryPageSize "
                                        "reported a page size of 0 (device=" +
                                            std::to_string(index) + ")");
    });
  }
  return page;
}

Result<DevicePointer> LevelZeroBackend::reserve_address_range(int index,
                                                              std::size_t bytes) noexcept {
  void* base = nullptr;
  const ze_result_t rc = api().zeVirtualMemReserve(context(), nullptr, bytes, &base);
  if (rc != ZE_RESULT_SUCCESS) {
    return guarded(
        [&] { return allocation_status(rc, "reserve_address_range: zeVirtualMemReserve", index); });
  }
  return DevicePointer{reinterpret_cast<std::uintptr_t>(base)};
}

Status LevelZeroBackend::free_address_range(int index, DevicePointer base,
                                            std::size_t bytes) noexcept {
  const ze_result_t rc =
      api().zeVirtualMemFree(context(), reinterpret_cast<void*>(base.value), bytes);
  if (rc == ZE_RESULT_SUCCESS) return Status();
  return guarded([&] { return ze_status(rc, "free_address_range: zeVirtualMemFree", index); });
}

Result<PhysicalMemoryHandle> LevelZeroBackend::create_physical_memory(int index,
                                                                      std::size_t bytes) noexcept {
  ze_physical_mem_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC;
  desc.flags = 0;
  desc.size = bytes;
  ze_physical_mem_handle_t memory = nullptr;
  const ze_result_t rc =
      api().zePhysicalMemCreate(context(), device(index).handle, &desc, &memory);
  if (rc != ZE_RESULT_SUCCESS) {
    return guarded(
        [&] { return allocation_status(rc, "create_physical_memory: zePhysicalMemCreate", index); });
  }
  return PhysicalMemoryHandle{reinterpret_cast<std::uintptr_t>(memory)};
}

Status LevelZeroBackend::release_physical_memory(int index, PhysicalMemoryHandle memory) noexcept {
  const ze_result_t rc = api().zePhysicalMemDestroy(
      context(), reinterpret_cast<ze_physical_mem_handle_t>(memory.value));
  if (rc == ZE_RESULT_SUCCESS) return Status();
  return guarded(
      [&] { return ze_status(rc, "release_physical_memory: zePhysicalMemDestroy", index); });
}

// Read-write at once: zeVirtualMemMap takes the access attribute itself (no separate
// access call as CUDA needs).
Status LevelZeroBackend::map_memory(int index, DevicePointer address, std::size_t bytes,
                                    PhysicalMemoryHandle memory) noexcept {
  const ze_result_t rc = api().zeVirtualMemMap(
      context(), reinterpret_cast<void*>(address.value), bytes,
      reinterpret_cast<ze_physical_mem_handle_t>(memory.value), 0,
      ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
  if (rc == ZE_RESULT_SUCCESS) return Status();
  return guarded([&] { return ze_status(rc, "map_memory: zeVirtualMemMap", index); });
}

Status LevelZeroBackend::unmap_memory(int index, DevicePointer address,
                                      std::size_t bytes) noexcept {
  const ze_result_t rc =
      api().zeVirtualMemUnmap(context(), reinterpret_cast<void*>(address.value), bytes);
  if (rc == ZE_RESULT_SUCCESS) return Status();
  return guarded([&] { return ze_status(rc, "unmap_memory: zeVirtualMemUnmap", index); });
}

// ---- pinned host memory --------------------------------------------------------------------

// Host allocations of the context are accessible by every device of it (zeMemAllocHost), what the
// pinned host allocator needs (CUDA's PORTABLE).
Result<void*> LevelZeroBackend::allocate_host(std::size_t bytes) noexcept {
  ze_host_mem_alloc_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  void* pointer = nullptr;
  const ze_result_t rc = api().zeMemAllocHost(context(), &desc, bytes, kHostAlignment, &pointer);
  if (rc != ZE_RESULT_SUCCESS) {
    return guarded([&] { return allocation_status(rc, "allocate_host: zeMemAllocHost", {}); });
  }
  return pointer;
}

Status LevelZeroBackend::free_host(void* pointer) noexcept {
  const ze_result_t rc = api().zeMemFree(context(), pointer);
  if (rc == ZE_RESULT_SUCCESS) return Status();
  return guarded([&] { return ze_status(rc, "free_host: zeMemFree"); });
}

// ---- memory_info ---------------------------------------------------------------------------

namespace {

// The Sysman device for core device `device`: the core handle itself on the legacy route
// (ZES_ENABLE_SYSMAN=1 before zeInit, set by initialize() where the loader has no zesInit),
// else the zesInit device with the same UUID. Sets `why` on failure.
zes_device_handle_t sysman_device(const ZeApi& api, const ZeDevice& device, std::string* why) {
  if (api.zesInit == nullptr || api.zesDriverGet == nullptr || api.zesDeviceGet == nullptr) {
    return reinterpret_cast<zes_device_handle_t>(device.handle);
  }
  if (device.core.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) {
    // zesInit's devices are cards; the tile's modules would need the card's handle,
    // which the UUID of a tile does not name.
    *why = "the device is a sub-device and zesInit's Sysman lists only cards";
    return nullptr;
  }
  ze_result_t rc = api.zesInit(0);  // once per process; idempotent
  if (rc != ZE_RESULT_SUCCESS) {
    *why = "zesInit: " + ze_result_text(rc);
    return nullptr;
  }
  std::uint32_t drivers = 1;
  zes_driver_handle_t driver = nullptr;
  rc = api.zesDriverGet(&drivers, &driver);
  if (rc != ZE_RESULT_SUCCESS || drivers == 0) {
    *why = "zesDriverGet: " + ze_result_text(rc);
    return nullptr;
  }
  std::uint32_t count = 0;
  rc = api.zesDeviceGet(driver, &count, nullptr);
  std::vector<zes_device_handle_t> handles(count);
  if (rc == ZE_RESULT_SUCCESS) rc = api.zesDeviceGet(driver, &count, handles.data());
  if (rc != ZE_RESULT_SUCCESS) {
    *why = "zesDeviceGet: " + ze_result_text(rc);
    return nullptr;
  }
  for (zes_device_handle_t handle : handles) {
    zes_device_properties_t properties{};
    properties.stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    if (api.zesDeviceGetProperties(handle, &properties) != ZE_RESULT_SUCCESS) continue;
    if (std::equal(std::begin(properties.core.uuid.id), std::end(properties.core.uuid.id),
                   std::begin(device.core.uuid.id))) {
      return handle;
    }
  }
  *why = "no Sysman device has the device's UUID";
  return nullptr;
}

}  // namespace

// As SYCL's free-memory query behind torch.xpu.mem_get_info: total = totalSize of
// memory ordinal 0; free = zesMemoryGetState.free summed over the device's memory modules
// (a tile: the modules on that tile), capped at total. A Sysman failure is an error naming
// the call: there is no honest other source of free memory in spec 1.4.
Result<MemoryInfo> LevelZeroBackend::memory_info(int index) noexcept {
  try {
    const ZeApi& ze = api();
    const ZeDevice& dev = device(index);
    std::uint32_t count = 0;
    ze_result_t rc = ze.zeDeviceGetMemoryProperties(dev.handle, &count, nullptr);
    if (rc == ZE_RESULT_SUCCESS && count == 0) {
      return Status(ErrorKind::kDriver, "memory_info: zeDeviceGetMemoryProperties lists no "
                                        "memory (device=" + std::to_string(index) + ")");
    }
    std::vector<ze_device_memory_properties_t> memory(count);
    for (auto& entry : memory) entry.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
    if (rc == ZE_RESULT_SUCCESS) rc = ze.zeDeviceGetMemoryProperties(dev.handle, &count, memory.data());
    if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "memory_info: zeDeviceGetMemoryProperties", index);
    MemoryInfo info;
    info.total_bytes = static_cast<std::size_t>(memory[0].totalSize);

    std::string why;
    zes_device_handle_t sysman = sysman_device(ze, dev, &why);
    if (sysman == nullptr) {
      return Status(ErrorKind::kDriver, "memory_info: free memory comes from Sysman, which "
                                        "cannot answer for device " +
                                            std::to_string(index) + ": " + why);
    }
    std::uint32_t modules = 0;
    rc = ze.zesDeviceEnumMemoryModules(sysman, &modules, nullptr);
    std::vector<zes_mem_handle_t> handles(modules);
    if (rc == ZE_RESULT_SUCCESS) rc = ze.zesDeviceEnumMemoryModules(sysman, &modules, handles.data());
    if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "memory_info: zesDeviceEnumMemoryModules", index);
    const bool tile = (dev.core.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) != 0;
    // An integrated GPU's memory is the system's: Sysman reports it at ZES_MEM_LOC_SYSTEM.
    const bool integrated = (dev.core.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) != 0;
    std::uint64_t free = 0;
    for (std::uint32_t i = 0; i < modules; ++i) {
      zes_mem_properties_t properties{};
      properties.stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES;
      rc = ze.zesMemoryGetProperties(handles[i], &properties);
      if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "memory_info: zesMemoryGetProperties", index);
      const bool own = properties.location == ZES_MEM_LOC_DEVICE ||
                       (integrated && properties.location == ZES_MEM_LOC_SYSTEM);
      if (!own) continue;
      if (tile && (!properties.onSubdevice || properties.subdeviceId != dev.core.subdeviceId)) {
        continue;
      }
      zes_mem_state_t state{};
      state.stype = ZES_STRUCTURE_TYPE_MEM_STATE;
      rc = ze.zesMemoryGetState(handles[i], &state);
      if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "memory_info: zesMemoryGetState", index);
      free += state.free;
    }
    info.free_bytes = static_cast<std::size_t>(std::min<std::uint64_t>(free, info.total_bytes));
    return info;
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace accel::detail::level_zero
