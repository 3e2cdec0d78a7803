// Device management (spec cuda_runtime.md §1, §3): counting, properties and attributes,
// PCI bus ids, choosing, synchronising, peers, limits, stream priorities and the default
// memory pool, each over the driver entry point the spec names.

#include <cctype>
#include <cstdio>
#include <cstring>

#include "api.h"
#include "context.h"
#include "driver.h"

namespace accel::cudart {
namespace {

// The driver, or the error that keeps it from the caller.
#define ACCEL_CUDART_LOAD(d)                                                       \
  const DriverTable* d = nullptr;                                                  \
  if (const cudaError_t load_error = load_driver(&d); load_error != cudaSuccess) { \
    return load_error;                                                             \
  }

cudaError_t attribute(const DriverTable& d, drv::CUdevice dev, drv::CUdevice_attribute attr,
                      int* value) {
  return call(d.cuDeviceGetAttribute, value, attr, dev);
}

// Fills `prop` from the driver (spec §3.1: the field ↔ attribute pairing is [inferred]).
cudaError_t fill_properties(const DriverTable& d, drv::CUdevice dev, cudaDeviceProp* prop) {
  std::memset(prop, 0, sizeof(*prop));  // luid, luidDeviceNodeMask, reserved: zero off Windows
  if (const cudaError_t e =
          call(d.cuDeviceGetName, prop->name, static_cast<int>(sizeof(prop->name)), dev);
      e != cudaSuccess) {
    return e;
  }
  if (const cudaError_t e = call(d.cuDeviceGetUuid_v2, &prop->uuid, dev); e != cudaSuccess)
    return e;
  if (const cudaError_t e = call(d.cuDeviceTotalMem_v2, &prop->totalGlobalMem, dev);
      e != cudaSuccess) {
    return e;
  }
  cudaError_t failure = cudaSuccess;
  auto get = [&](drv::CUdevice_attribute attr) {
    int value = 0;
    if (failure == cudaSuccess) failure = attribute(d, dev, attr, &value);
    return value;
  };
  auto size = [&](drv::CUdevice_attribute attr) { return static_cast<std::size_t>(get(attr)); };
  auto bits = [&](drv::CUdevice_attribute attr) { return static_cast<unsigned>(get(attr)); };
  using namespace accel::cuda_abi;  // NOLINT: the attribute names read best unqualified
  prop->sharedMemPerBlock = size(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  prop->regsPerBlock = get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  prop->warpSize = get(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  prop->memPitch = size(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
  prop->maxThreadsPerBlock = get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  prop->maxThreadsDim[0] = get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  prop->maxThreadsDim[1] = get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  prop->maxThreadsDim[2] = get(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  prop->maxGridSize[0] = get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  prop->maxGridSize[1] = get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  prop->maxGridSize[2] = get(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  prop->totalConstMem = size(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  prop->major = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  prop->minor = get(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  prop->textureAlignment = size(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
  prop->texturePitchAlignment = size(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT);
  prop->multiProcessorCount = get(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  prop->integrated = get(CU_DEVICE_ATTRIBUTE_INTEGRATED);
  prop->canMapHostMemory = get(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
  prop->maxTexture1D = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH);
  prop->maxTexture1DMipmap = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH);
  prop->maxTexture2D[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
  prop->maxTexture2D[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
  prop->maxTexture2DMipmap[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH);
  prop->maxTexture2DMipmap[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT);
  prop->maxTexture2DLinear[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH);
  prop->maxTexture2DLinear[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT);
  prop->maxTexture2DLinear[2] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH);
  prop->maxTexture2DGather[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH);
  prop->maxTexture2DGather[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT);
  prop->maxTexture3D[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH);
  prop->maxTexture3D[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT);
  prop->maxTexture3D[2] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH);
  prop->maxTexture3DAlt[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE);
  prop->maxTexture3DAlt[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE);
  prop->maxTexture3DAlt[2] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE);
  prop->maxTextureCubemap = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH);
  prop->maxTexture1DLayered[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH);
  prop->maxTexture1DLayered[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS);
  prop->maxTexture2DLayered[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH);
  prop->maxTexture2DLayered[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT);
  prop->maxTexture2DLayered[2] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS);
  prop->maxTextureCubemapLayered[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH);
  prop->maxTextureCubemapLayered[1] =
      get(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS);
  prop->maxSurface1D = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
  prop->maxSurface2D[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH);
  prop->maxSurface2D[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
  prop->maxSurface3D[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH);
  prop->maxSurface3D[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT);
  prop->maxSurface3D[2] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH);
  prop->maxSurface1DLayered[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH);
  prop->maxSurface1DLayered[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS);
  prop->maxSurface2DLayered[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH);
  prop->maxSurface2DLayered[1] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT);
  prop->maxSurface2DLayered[2] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS);
  prop->maxSurfaceCubemap = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH);
  prop->maxSurfaceCubemapLayered[0] = get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH);
  prop->maxSurfaceCubemapLayered[1] =
      get(CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS);
  prop->surfaceAlignment = size(CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT);
  prop->concurrentKernels = get(CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
  prop->ECCEnabled = get(CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
  prop->pciBusID = get(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  prop->pciDeviceID = get(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  prop->pciDomainID = get(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  prop->tccDriver = get(CU_DEVICE_ATTRIBUTE_TCC_DRIVER);
  prop->asyncEngineCount = get(CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
  prop->unifiedAddressing = get(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
  prop->memoryBusWidth = get(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  prop->l2CacheSize = get(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  prop->persistingL2CacheMaxSize = get(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
  prop->maxThreadsPerMultiProcessor = get(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  prop->streamPrioritiesSupported = get(CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED);
  prop->globalL1CacheSupported = get(CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED);
  prop->localL1CacheSupported = get(CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED);
  prop->sharedMemPerMultiprocessor = size(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  prop->regsPerMultiprocessor = get(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  prop->managedMemory = get(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
  prop->isMultiGpuBoard = get(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD);
  prop->multiGpuBoardGroupID = get(CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID);
  prop->hostNativeAtomicSupported = get(CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED);
  prop->pageableMemoryAccess = get(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
  prop->concurrentManagedAccess = get(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
  prop->computePreemptionSupported = get(CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED);
  prop->canUseHostPointerForRegisteredMem =
      get(CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
  prop->cooperativeLaunch = get(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
  prop->sharedMemPerBlockOptin = size(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  prop->pageableMemoryAccessUsesHostPageTables =
      get(CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
  prop->directManagedMemAccessFromHost =
      get(CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
  prop->maxBlocksPerMultiProcessor = get(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  prop->accessPolicyMaxWindowSize = get(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE);
  prop->reservedSharedMemPerBlock = size(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  prop->hostRegisterSupported = get(CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED);
  prop->sparseCudaArraySupported = get(CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED);
  prop->hostRegisterReadOnlySupported = get(CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED);
  prop->timelineSemaphoreInteropSupported =
      get(CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED);
  prop->memoryPoolsSupported = get(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);
  prop->gpuDirectRDMASupported = get(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
  prop->gpuDirectRDMAFlushWritesOptions =
      bits(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS);
  prop->gpuDirectRDMAWritesOrdering = get(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING);
  prop->memoryPoolSupportedHandleTypes = bits(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES);
  prop->deferredMappingCudaArraySupported =
      get(CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED);
  prop->ipcEventSupported = get(CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED);
  prop->clusterLaunch = get(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH);
  prop->unifiedFunctionPointers = get(CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS);
  prop->deviceNumaConfig = get(CU_DEVICE_ATTRIBUTE_NUMA_CONFIG);
  prop->deviceNumaId = get(CU_DEVICE_ATTRIBUTE_NUMA_ID);
  prop->mpsEnabled = get(CU_DEVICE_ATTRIBUTE_MPS_ENABLED);
  prop->hostNumaId = get(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID);
  prop->gpuPciDeviceID = bits(CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID);
  prop->gpuPciSubsystemID = bits(CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID);
  prop->hostNumaMultinodeIpcSupported = get(CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED);
  return failure;
}

// A PCI bus id in one of the driver's forms: [domain]:[bus]:[device].[function],
// [domain]:[bus]:[device], [bus]:[device].[function] (hexadecimal).
bool parse_pci_bus_id(const char* text, unsigned* domain, unsigned* bus, unsigned* device) {
  unsigned a = 0, b = 0, c = 0, f = 0;
  int used = 0;
  if (std::sscanf(text, "%x:%x:%x.%x%n", &a, &b, &c, &f, &used) == 4 && text[used] == '\0') {
    *domain = a, *bus = b, *device = c;
    return true;
  }
  if (std::sscanf(text, "%x:%x:%x%n", &a, &b, &c, &used) == 3 && text[used] == '\0') {
    *domain = a, *bus = b, *device = c;
    return true;
  }
  if (std::sscanf(text, "%x:%x.%x%n", &b, &c, &f, &used) == 3 && text[used] == '\0') {
    *domain = 0, *bus = b, *device = c;
    return true;
  }
  return false;
}

}  // namespace

namespace impl {

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  return call(d->cuDeviceGetCount, count);
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (prop == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  return fill_properties(*d, dev, prop);
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (value == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  // The numbers are the driver's (spec §3.2).
  return attribute(*d, dev, static_cast<drv::CUdevice_attribute>(attr), value);
}

cudaError_t cudaDeviceSynchronize() {
  ACCEL_CUDART_LOAD(d)
  int device = 0;
  if (const cudaError_t e = require_context(*d, &device); e != cudaSuccess) return e;
  return call(d->cuCtxSynchronize);
}

cudaError_t cudaDeviceGetPCIBusId(char* pci_bus_id, int length, int device) {
  if (pci_bus_id == nullptr || length <= 0) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  return call(d->cuDeviceGetPCIBusId, pci_bus_id, length, dev);
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pci_bus_id) {
  if (device == nullptr || pci_bus_id == nullptr) return cudaErrorInvalidValue;
  unsigned domain = 0, bus = 0, slot = 0;
  if (!parse_pci_bus_id(pci_bus_id, &domain, &bus, &slot)) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  int count = 0;
  if (const cudaError_t e = call(d->cuDeviceGetCount, &count); e != cudaSuccess) return e;
  for (int i = 0; i < count; ++i) {
    drv::CUdevice dev = 0;
    if (const cudaError_t e = call(d->cuDeviceGet, &dev, i); e != cudaSuccess) return e;
    int values[3] = {};
    const drv::CUdevice_attribute attrs[3] = {drv::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID,
                                              drv::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID,
                                              drv::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID};
    for (int k = 0; k < 3; ++k) {
      if (const cudaError_t e = attribute(*d, dev, attrs[k], &values[k]); e != cudaSuccess)
        return e;
    }
    if (static_cast<unsigned>(values[0]) == domain && static_cast<unsigned>(values[1]) == bus &&
        static_cast<unsigned>(values[2]) == slot) {
      *device = i;
      return cudaSuccess;
    }
  }
  return cudaErrorInvalidDevice;
}

// The device whose compute capability matches `prop` best: same major first, then same
// minor, the lowest ordinal among equals (NVIDIA documents only "closest match" [inferred]).
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp* prop) {
  if (device == nullptr || prop == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  int count = 0;
  if (const cudaError_t e = call(d->cuDeviceGetCount, &count); e != cudaSuccess) return e;
  int best = -1, best_score = -1;
  for (int i = 0; i < count; ++i) {
    drv::CUdevice dev = 0;
    if (const cudaError_t e = call(d->cuDeviceGet, &dev, i); e != cudaSuccess) return e;
    int major = 0, minor = 0;
    if (const cudaError_t e =
            attribute(*d, dev, drv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &major);
        e != cudaSuccess) {
      return e;
    }
    if (const cudaError_t e =
            attribute(*d, dev, drv::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &minor);
        e != cudaSuccess) {
      return e;
    }
    const int score = (major == prop->major ? 2 : 0) + (minor == prop->minor ? 1 : 0);
    if (score > best_score) best = i, best_score = score;
  }
  if (best < 0) return cudaErrorNoDevice;
  *device = best;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can_access, int device, int peer_device) {
  if (can_access == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  drv::CUdevice dev = 0, peer = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  if (const cudaError_t e = device_handle(*d, peer_device, &peer); e != cudaSuccess) return e;
  return call(d->cuDeviceCanAccessPeer, can_access, dev, peer);
}

cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags) {
  if (flags != 0) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  int device = 0;
  if (const cudaError_t e = require_context(*d, &device); e != cudaSuccess) return e;
  drv::CUcontext peer = nullptr;
  if (const cudaError_t e = primary_context(*d, peer_device, &peer); e != cudaSuccess) return e;
  return call(d->cuCtxEnablePeerAccess, peer, 0u);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer_device) {
  ACCEL_CUDART_LOAD(d)
  int device = 0;
  if (const cudaError_t e = require_context(*d, &device); e != cudaSuccess) return e;
  drv::CUcontext peer = nullptr;
  if (const cudaError_t e = primary_context(*d, peer_device, &peer); e != cudaSuccess) return e;
  return call(d->cuCtxDisablePeerAccess, peer);
}

cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attr, int src_device,
                                      int dst_device) {
  if (value == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  drv::CUdevice src = 0, dst = 0;
  if (const cudaError_t e = device_handle(*d, src_device, &src); e != cudaSuccess) return e;
  if (const cudaError_t e = device_handle(*d, dst_device, &dst); e != cudaSuccess) return e;
  return call(d->cuDeviceGetP2PAttribute, value, static_cast<drv::CUdevice_P2PAttribute>(attr), src,
              dst);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least_priority, int* greatest_priority) {
  ACCEL_CUDART_LOAD(d)
  int device = 0;
  if (const cudaError_t e = require_context(*d, &device); e != cudaSuccess) return e;
  return call(d->cuCtxGetStreamPriorityRange, least_priority, greatest_priority);
}

cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  if (value == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  int device = 0;
  if (const cudaError_t e = require_context(*d, &device); e != cudaSuccess) return e;
  return call(d->cuCtxGetLimit, value, static_cast<drv::CUlimit>(limit));
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value) {
  ACCEL_CUDART_LOAD(d)
  int device = 0;
  if (const cudaError_t e = require_context(*d, &device); e != cudaSuccess) return e;
  return call(d->cuCtxSetLimit, static_cast<drv::CUlimit>(limit), value);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  if (pool == nullptr) return cudaErrorInvalidValue;
  ACCEL_CUDART_LOAD(d)
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  return call(d->cuDeviceGetDefaultMemPool, pool, dev);
}

}  // namespace impl
}  // namespace accel::cudart
