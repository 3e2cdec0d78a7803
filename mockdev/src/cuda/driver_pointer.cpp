// Pointer queries of the simulated driver (declared in driver_api.h): cuPointerGetAttribute(s),
// cuPointerSetAttribute, cuMemGetAddressRange, cuMemHostGetDevicePointer, cuMemHostGetFlags.
//
// Note [Pointer attributes]
// cuda.h, cuPointerGetAttribute, for each kind of memory (pointer_info.h):
// - CONTEXT: the context that allocated, mapped or registered it (mapped memory: its device's
//   primary context [inferred]); MEMORY_TYPE: CU_MEMORYTYPE_DEVICE for device, mapped and
//   managed memory [inferred for managed], CU_MEMORYTYPE_HOST for pinned host memory;
//   DEVICE_POINTER: the address itself where device work may use it (unified addressing;
//   Note [Device-accessible host memory] in core/pinned_host.h), and it needs a current
//   context (CUDA_ERROR_INVALID_CONTEXT); HOST_POINTER: the address itself for host and
//   managed memory; DEVICE_ORDINAL: the visible ordinal of its device.
// - BUFFER_ID: unique for the process, never reused ("Subsequent allocations do not reuse IDs
//   from previous freed allocations"); RANGE_START_ADDR / RANGE_SIZE: the allocation, or the
//   reservation holding mapped memory; MAPPING_BASE_ADDR / MAPPING_SIZE: the allocation, or
//   the mapping; MEMORY_BLOCK_ID: the physical allocation (cuMemCreate's handle for mapped
//   memory).
// - IS_MANAGED; MAPPED (1 for every kind the driver knows); IS_LEGACY_CUDA_IPC_CAPABLE (1 for
//   cuMemAlloc memory, what cuIpcGetMemHandle exports); ALLOWED_HANDLE_TYPES 0 [inferred: no
//   shareable handles are modelled]; MEMPOOL_HANDLE: the pool of a stream-ordered allocation;
//   ACCESS_FLAGS: read-write for the memory of the current context's device, of a peer it has
//   access to, host and managed memory, mapped memory as cuMemSetAccess granted it, else none
//   [inferred]; IS_GPU_DIRECT_RDMA_CAPABLE: device memory on a device with
//   CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED [inferred]; IS_HW_DECOMPRESS_CAPABLE 0.
// - SYNC_MEMOPS: 0 until cuPointerSetAttribute sets it (kept per buffer id).
// - P2P_TOKENS (the nv-p2p kernel interface): device memory answers
//   CUDA_POINTER_ATTRIBUTE_P2P_TOKENS (Recording 2: the H100 answered CUDA_SUCCESS) with
//   tokens made of its buffer id [inferred: the values mean nothing outside nv-p2p]; other
//   memory CUDA_ERROR_INVALID_VALUE [inferred].
// Boolean attributes are written as four bytes (an int: Recording 2 read IS_MANAGED so);
// numbers as the type cuda.h names (CUdeviceptr, size_t, unsigned long long, int, unsigned
// int for MEMORY_TYPE and ACCESS_FLAGS).
// An address the driver does not know is CUDA_ERROR_INVALID_VALUE for cuPointerGetAttribute;
// cuPointerGetAttributes instead writes "default NULL values" and succeeds (cuda.h): zeros,
// NULL handles, and CU_DEVICE_INVALID (-2) for DEVICE_ORDINAL [inferred]. It takes only the
// attributes cuda.h lists for it (others are CUDA_ERROR_INVALID_VALUE [inferred]).
//
// cuMemGetAddressRange: base and size of the allocation holding the address (both outputs
// optional), the mapping for mapped memory, the range for host and managed memory
// [inferred]; CUDA_ERROR_NOT_FOUND for an address the driver does not know.
// cuMemHostGetDevicePointer: Flags must be 0; pinned host memory (allocated or registered,
// whatever its flags: Recording 2) gives its own address; other memory is
// CUDA_ERROR_INVALID_VALUE. cuMemHostGetFlags: the flags of pinned memory, allocated or
// registered, with CU_MEMHOSTALLOC_DEVICEMAP always among them (Recording 2: 2 for
// cuMemAllocHost memory and for memory registered with DEVICEMAP); anything else is
// CUDA_ERROR_INVALID_VALUE [inferred].

#include <cstring>

#include "core/engine.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "core/virtual_memory.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/pointer_info.h"
#include "cuda/pool_model.h"

namespace mockdev::cuda {
namespace {

template <typename T>
void put(void* data, T value) {
  std::memcpy(data, &value, sizeof value);
}

// A boolean attribute: four bytes (Note [Pointer attributes]).
void put_flag(void* data, bool value) { put(data, static_cast<int>(value)); }

bool is_pointer_attribute(int a) {
  return a >= CU_POINTER_ATTRIBUTE_CONTEXT && a <= CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE;
}

// The attributes cuda.h lists for cuPointerGetAttributes.
bool listed_for_get_attributes(CUpointer_attribute a) {
  switch (a) {
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
      return false;
    default:
      return is_pointer_attribute(a);
  }
}

int device_attribute(int physical, CUdevice_attribute a) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const DeviceSpec& spec = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
  return device_attribute_value(spec, physical, a);
}

unsigned access_flags(const PointerInfo& info) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (info.kind == PointerInfo::Kind::kMapped) {
    return info.read_write ? CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE
                           : CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
  }
  if (info.kind != PointerInfo::Kind::kDevice) return CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
  const CUctx_st* current = active_current_context();
  if (current == nullptr || current->physical_device == info.physical ||
      cuda_state().peer_access.count({current->physical_device, info.physical}) != 0) {
    return CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE;
  }
  return CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE;
}

// Writes attribute `a` of known memory `info` at `ptr` into `data`.
CUresult write_attribute(void* data, CUpointer_attribute a, const PointerInfo& info,
                         std::uint64_t ptr) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  using Kind = PointerInfo::Kind;
  constexpr unsigned kMemoryTypeHost = 0x01;    // cuda.h's CU_MEMORYTYPE_HOST
  constexpr unsigned kMemoryTypeDevice = 0x02;  // CU_MEMORYTYPE_DEVICE
  switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
      put(data, static_cast<CUcontext>(context_of(info.physical, info.context_key)));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      put(data, info.kind == Kind::kHost ? kMemoryTypeHost : kMemoryTypeDevice);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: {
      const WorkContext current = context_for_work();
      if (current.ctx == nullptr) return current.error;
      if (!info.device_accessible) return CUDA_ERROR_INVALID_VALUE;
      put(data, static_cast<CUdeviceptr>(ptr));
      return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
      if (!info.host_accessible) return CUDA_ERROR_INVALID_VALUE;
      put(data, reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr)));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS: {
      if (info.kind != Kind::kDevice) return CUDA_ERROR_INVALID_VALUE;
      CUDA_POINTER_ATTRIBUTE_P2P_TOKENS tokens{};
      tokens.p2pToken = info.buffer_id;
      tokens.vaSpaceToken = static_cast<unsigned>(info.physical) + 1;
      put(data, tokens);
      return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
      put_flag(data, cuda_state().sync_memops.count(info.buffer_id) != 0);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
      put(data, static_cast<unsigned long long>(info.buffer_id));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
      put_flag(data, info.kind == Kind::kManaged);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      put(data, ordinal_of(info.physical));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
      put_flag(data, info.kind == Kind::kDevice && info.pool == nullptr);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      put(data, static_cast<CUdeviceptr>(info.range_base));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      put(data, static_cast<std::size_t>(info.range_bytes));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
      put_flag(data, true);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
      put(data, static_cast<unsigned long long>(0));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
      put_flag(data, info.kind == Kind::kDevice &&
                         device_attribute(info.physical,
                                          CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED) != 0);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
      put(data, access_flags(info));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      put(data, info.pool);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
      put(data, static_cast<std::size_t>(info.bytes));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
      put(data, reinterpret_cast<void*>(static_cast<std::uintptr_t>(info.base)));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
      put(data, static_cast<unsigned long long>(info.block_id));
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
      put_flag(data, false);
      return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// cuPointerGetAttributes' "default NULL value" for an address the driver does not know.
void write_default(void* data, CUpointer_attribute a) {
  switch (a) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
      put(data, static_cast<void*>(nullptr));
      return;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      put(data, 0u);
      return;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
      put(data, static_cast<CUdeviceptr>(0));
      return;
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
      put(data, 0ull);
      return;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
      put(data, std::size_t{0});
      return;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
      put(data, kDeviceInvalid);
      return;
    default:
      put_flag(data, false);
      return;
  }
}

}  // namespace

CUctx_st* context_of(int physical, std::uint64_t key) {
  CudaState& s = cuda_state();
  if (key == 0) return s.primary.at(static_cast<std::size_t>(physical));
  for (CUctx_st* ctx : s.created) {
    if (ctx->id == key) return ctx;
  }
  return nullptr;
}

int ordinal_of(int physical) {
  const std::vector<int>& visible = cuda_state().visible;
  for (std::size_t i = 0; i < visible.size(); ++i) {
    if (visible[i] == physical) return static_cast<int>(i);
  }
  return kDeviceInvalid;
}

PointerInfo pointer_info(std::uint64_t address) {
  PointerInfo info;
  if (std::optional<core::PinnedRange> r = core::pinned_containing(address, 1)) {
    info.kind = r->managed ? PointerInfo::Kind::kManaged : PointerInfo::Kind::kHost;
    info.base = info.range_base = r->base;
    info.bytes = info.range_bytes = r->bytes;
    info.physical = r->device;
    info.context_key = r->context;
    info.buffer_id = info.block_id = r->id;
    info.device_accessible = r->device_accessible;
    info.host_accessible = true;
    info.allocated = r->allocated;
    info.host_flags = r->flags;
    return info;
  }
  if (core::in_reservation_space(address)) {
    const auto& reservations = core::reservations();
    auto res = reservations.upper_bound(address);
    if (res == reservations.begin()) return info;
    --res;
    if (address - res->first >= res->second.bytes) return info;
    const auto& mappings = core::mappings();
    auto map = mappings.upper_bound(address);
    if (map == mappings.begin()) return info;
    --map;
    if (address - map->first >= map->second.bytes) return info;  // reserved, not mapped
    const std::optional<core::PhysicalMemory> handle = core::find_physical(map->second.handle);
    if (!handle) return info;
    info.kind = PointerInfo::Kind::kMapped;
    info.base = map->first;
    info.bytes = map->second.bytes;
    info.range_base = res->first;
    info.range_bytes = res->second.bytes;
    info.physical = handle->device;
    info.buffer_id = map->first;
    info.block_id = map->second.handle;
    info.device_accessible = true;
    info.read_write = map->second.read_write;
    return info;
  }
  const std::optional<core::Allocation> a = core::find_containing(address, 1, &info.base);
  if (!a || a->owner != Api::kCuda) return info;
  info.kind = PointerInfo::Kind::kDevice;
  info.bytes = info.range_bytes = a->bytes;
  info.range_base = info.base;
  info.physical = a->device;
  info.context_key = a->context;
  info.buffer_id = info.block_id = info.base;
  info.device_accessible = true;
  // A pool allocation is its own buffer inside the pool's chunk (Note [Pool accounting]).
  if (const std::optional<PoolAllocation> p = pool_allocation_containing(address)) {
    info.base = info.range_base = p->base;
    info.bytes = info.range_bytes = p->bytes;
    info.buffer_id = info.block_id = p->base;
    info.pool = p->pool;
  }
  return info;
}

namespace impl {

CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (data == nullptr || !is_pointer_attribute(attribute)) return CUDA_ERROR_INVALID_VALUE;
  const PointerInfo info = pointer_info(ptr);
  if (info.kind == PointerInfo::Kind::kNone) {
    if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_POINTER && active_current_context() == nullptr) {
      return context_for_work().error;
    }
    return CUDA_ERROR_INVALID_VALUE;
  }
  return write_attribute(data, attribute, info, ptr);
}

CUresult cuPointerGetAttributes(unsigned int num_attributes, CUpointer_attribute* attributes,
                                void** data, CUdeviceptr ptr) {
  if (num_attributes == 0 || attributes == nullptr || data == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (unsigned i = 0; i < num_attributes; ++i) {
    if (data[i] == nullptr || !listed_for_get_attributes(attributes[i])) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  const PointerInfo info = pointer_info(ptr);
  for (unsigned i = 0; i < num_attributes; ++i) {
    if (info.kind == PointerInfo::Kind::kNone) {
      write_default(data[i], attributes[i]);
      continue;
    }
    // An attribute this memory has no value for reads as its default, not as an error.
    if (write_attribute(data[i], attributes[i], info, ptr) != CUDA_SUCCESS) {
      write_default(data[i], attributes[i]);
    }
  }
  return CUDA_SUCCESS;
}

CUresult cuPointerSetAttribute(const void* value, CUpointer_attribute attribute, CUdeviceptr ptr) {
  if (value == nullptr || attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  const PointerInfo info = pointer_info(ptr);
  if (info.kind == PointerInfo::Kind::kNone) return CUDA_ERROR_INVALID_VALUE;
  unsigned set = 0;
  std::memcpy(&set, value, sizeof set);
  if (set != 0) {
    cuda_state().sync_memops.insert(info.buffer_id);
  } else {
    cuda_state().sync_memops.erase(info.buffer_id);
  }
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, std::size_t* psize, CUdeviceptr dptr) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  const PointerInfo info = pointer_info(dptr);
  if (info.kind == PointerInfo::Kind::kNone) return CUDA_ERROR_NOT_FOUND;
  if (pbase != nullptr) *pbase = info.base;
  if (psize != nullptr) *psize = info.bytes;
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int flags) {
  if (pdptr == nullptr || p == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const PointerInfo info = pointer_info(address);
  if (info.kind != PointerInfo::Kind::kHost || !info.device_accessible) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pdptr = address;
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetFlags(unsigned int* pflags, void* p) {
  if (pflags == nullptr || p == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  const PointerInfo info = pointer_info(reinterpret_cast<std::uintptr_t>(p));
  if (info.kind != PointerInfo::Kind::kHost) return CUDA_ERROR_INVALID_VALUE;
  *pflags = info.host_flags;
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
