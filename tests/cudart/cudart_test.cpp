// libcudart.so.13 on the simulated machine: device management, errors and the last-error
// slot, implicit primary contexts, versions, and the answer of an entry point not yet
// implemented (spec cuda_runtime.md §1-3). A program written against the runtime API, linked
// against the runtime; run once per machine (ACCEL_CUDART_TEST_DEVICES: the machine's count).

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "cudart_api.h"

namespace {

using accel::cudart_test::driver;
namespace drv = accel::cuda_abi;

int expected_devices() {
  const char* text = std::getenv("ACCEL_CUDART_TEST_DEVICES");
  return text != nullptr ? std::atoi(text) : -1;
}

int device_count() {
  int count = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  return count;
}

// Runs `body` on a fresh thread: no context current, the selected device 0, an empty slot.
template <class F>
void on_fresh_thread(F body) {
  std::thread t(body);
  t.join();
}

drv::CUcontext current_context() {
  drv::CUcontext ctx = nullptr;
  EXPECT_EQ(driver().cuCtxGetCurrent(&ctx), drv::CUDA_SUCCESS);
  return ctx;
}

int primary_active(int device) {
  unsigned flags = 0;
  int active = -1;
  EXPECT_EQ(driver().cuDevicePrimaryCtxGetState(device, &flags, &active), drv::CUDA_SUCCESS);
  return active;
}

TEST(CudartVersions, RuntimeVersionIs13000WithoutTheDriverAnswering) {
  int version = 0;
  EXPECT_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  EXPECT_EQ(version, 13000);
  EXPECT_EQ(version, CUDART_VERSION);
  EXPECT_EQ(cudaRuntimeGetVersion(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

TEST(CudartVersions, DriverVersionIsTheDrivers) {
  int ours = 0, theirs = 0;
  EXPECT_EQ(cudaDriverGetVersion(&ours), cudaSuccess);
  ASSERT_EQ(driver().cuDriverGetVersion(&theirs), drv::CUDA_SUCCESS);
  EXPECT_EQ(ours, theirs);
  EXPECT_GE(ours, 13000);
  EXPECT_EQ(cudaDriverGetVersion(nullptr), cudaErrorInvalidValue);
}

TEST(CudartErrors, NamesAndStringsFromTheTable) {
  struct Case {
    int code;
    const char* name;
    const char* text;
  };
  const Case cases[] = {
      {0, "cudaSuccess", "no error"},
      {1, "cudaErrorInvalidValue", "invalid argument"},
      {2, "cudaErrorMemoryAllocation", "out of memory"},
      {3, "cudaErrorInitializationError", "initialization error"},
      {35, "cudaErrorInsufficientDriver",
       "CUDA driver version is insufficient for CUDA runtime version"},
      {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
      {201, "cudaErrorDeviceUninitialized", "invalid device context"},
      {600, "cudaErrorNotReady", "device not ready"},
      {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
      {801, "cudaErrorNotSupported", "operation not supported"},
      {911, "cudaErrorExternalDevice",
       "an async error has occured in external entity outside of CUDA"},
      {999, "cudaErrorUnknown", "unknown error"},
      {10000, "cudaErrorApiFailureBase", "api failure base"},
  };
  for (const Case& c : cases) {
    EXPECT_STREQ(cudaGetErrorName(static_cast<cudaError_t>(c.code)), c.name) << c.code;
    EXPECT_STREQ(cudaGetErrorString(static_cast<cudaError_t>(c.code)), c.text) << c.code;
  }
  // Outside the enum (the driver-only 202 and 916 included).
  for (int code : {-1, 10, 202, 916, 1000, 12345}) {
    EXPECT_STREQ(cudaGetErrorName(static_cast<cudaError_t>(code)), "unrecognized error code");
    EXPECT_STREQ(cudaGetErrorString(static_cast<cudaError_t>(code)), "unrecognized error code");
  }
}

TEST(CudartLastError, GetReturnsAndResetsPeekDoesNot) {
  (void)cudaGetLastError();  // a clean slot, whatever ran before in this process
  EXPECT_EQ(cudaSetDevice(-1), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidDevice);
  // A successful call leaves the slot alone.
  int count = 0;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
}

TEST(CudartLastError, OneSlotPerThread) {
  (void)cudaGetLastError();  // a clean slot, whatever ran before in this process
  EXPECT_EQ(cudaSetDevice(device_count()), cudaErrorInvalidDevice);
  on_fresh_thread([] {
    EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
    EXPECT_EQ(cudaGetDeviceProperties(nullptr, 0), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  });
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
}

TEST(CudartDevices, CountIsTheMachines) {
  ASSERT_GT(expected_devices(), 0) << "ACCEL_CUDART_TEST_DEVICES names the machine's count";
  EXPECT_EQ(device_count(), expected_devices());
  int theirs = 0;
  ASSERT_EQ(driver().cuDeviceGetCount(&theirs), drv::CUDA_SUCCESS);
  EXPECT_EQ(device_count(), theirs);
  EXPECT_EQ(cudaGetDeviceCount(nullptr), cudaErrorInvalidValue);
}

TEST(CudartDevices, SetDeviceOutsideTheRangeIsInvalidDeviceAndRecorded) {
  on_fresh_thread([] {
    const int count = device_count();
    for (int device : {-1, count, count + 7}) {
      EXPECT_EQ(cudaSetDevice(device), cudaErrorInvalidDevice) << device;
      EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice) << device;
    }
    int device = -1;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, 0);
    EXPECT_EQ(current_context(), nullptr);
  });
}

TEST(CudartDevices, GetDeviceDefaultsToZeroAndInitialisesNothing) {
  on_fresh_thread([] {
    int device = -1;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, 0);
    EXPECT_EQ(current_context(), nullptr);
    EXPECT_EQ(cudaGetDevice(nullptr), cudaErrorInvalidValue);
  });
}

TEST(CudartContexts, SetDeviceMakesThePrimaryContextCurrent) {
  on_fresh_thread([] {
    const int last = device_count() - 1;
    ASSERT_EQ(cudaSetDevice(last), cudaSuccess);
    drv::CUcontext ctx = current_context();
    ASSERT_NE(ctx, nullptr);
    drv::CUdevice dev = -1;
    EXPECT_EQ(driver().cuCtxGetDevice(&dev), drv::CUDA_SUCCESS);
    EXPECT_EQ(dev, last);
    EXPECT_EQ(primary_active(last), 1);
    int device = -1;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, last);
  });
}

TEST(CudartContexts, FirstDeviceCallInitialisesTheSelectedDeviceLazily) {
  on_fresh_thread([] {
    ASSERT_EQ(current_context(), nullptr);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_NE(current_context(), nullptr);
    drv::CUdevice dev = -1;
    EXPECT_EQ(driver().cuCtxGetDevice(&dev), drv::CUDA_SUCCESS);
    EXPECT_EQ(dev, 0);
  });
}

TEST(CudartContexts, InitDeviceInitialisesWithoutBinding) {
  on_fresh_thread([] {
    const int last = device_count() - 1;
    EXPECT_EQ(cudaInitDevice(last, 0, 0), cudaSuccess);
    EXPECT_EQ(current_context(), nullptr);
    EXPECT_EQ(primary_active(last), 1);
    EXPECT_EQ(cudaInitDevice(last, 0, 0x2), cudaErrorInvalidValue);
    EXPECT_EQ(cudaInitDevice(device_count(), 0, 0), cudaErrorInvalidDevice);
  });
}

TEST(CudartContexts, DeviceResetEndsThePrimaryContextAndTheNextCallRevivesIt) {
  on_fresh_thread([] {
    const int last = device_count() - 1;
    ASSERT_EQ(cudaSetDevice(last), cudaSuccess);
    const drv::CUcontext before = current_context();
    ASSERT_EQ(primary_active(last), 1);
    EXPECT_EQ(cudaDeviceReset(), cudaSuccess);
    EXPECT_EQ(primary_active(last), 0);
    EXPECT_EQ(current_context(), before);  // stays current (spec §1.5)
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(primary_active(last), 1);
    EXPECT_EQ(current_context(), before);
    int device = -1;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, last);
  });
}

TEST(CudartContexts, DeviceFlags) {
  on_fresh_thread([] {
    EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield),
              cudaErrorInvalidValue);
    EXPECT_EQ(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
    ASSERT_EQ(cudaSetDevice(1 % device_count()), cudaSuccess);
    EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync), cudaSuccess);
    unsigned flags = 0;
    EXPECT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
    EXPECT_EQ(flags, static_cast<unsigned>(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
    EXPECT_EQ(cudaSetDeviceFlags(0), cudaSuccess);
    EXPECT_EQ(cudaGetDeviceFlags(&flags), cudaSuccess);
    EXPECT_EQ(flags, static_cast<unsigned>(cudaDeviceMapHost));
  });
}

TEST(CudartContexts, ACreatedContextIsUsedAndRefusesDeviceFlags) {
  on_fresh_thread([] {
    const int last = device_count() - 1;
    drv::CUcontext created = nullptr;
    ASSERT_EQ(driver().cuCtxCreate(&created, 0, last), drv::CUDA_SUCCESS);
    int device = -1;
    EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
    EXPECT_EQ(device, last);
    EXPECT_EQ(cudaSetDeviceFlags(cudaDeviceScheduleSpin), cudaErrorSetOnActiveProcess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(current_context(), created);
    EXPECT_EQ(driver().cuCtxDestroy(created), drv::CUDA_SUCCESS);
  });
}

TEST(CudartDevices, PciBusIdsRoundTrip) {
  const int count = device_count();
  for (int device = 0; device < count; ++device) {
    char id[32] = {};
    ASSERT_EQ(cudaDeviceGetPCIBusId(id, sizeof(id), device), cudaSuccess);
    int found = -1;
    EXPECT_EQ(cudaDeviceGetByPCIBusId(&found, id), cudaSuccess) << id;
    EXPECT_EQ(found, device) << id;
  }
  int found = -1;
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&found, "not a bus id"), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetByPCIBusId(&found, "7fff:ee:1d.0"), cudaErrorInvalidDevice);
  char id[32] = {};
  EXPECT_EQ(cudaDeviceGetPCIBusId(id, sizeof(id), count), cudaErrorInvalidDevice);
}

TEST(CudartDevices, AttributesAreTheDrivers) {
  const int count = device_count();
  for (int device = 0; device < count; ++device) {
    for (int attr : {1, 10, 16, 75, 76, 115}) {
      int ours = -1, theirs = -2;
      EXPECT_EQ(cudaDeviceGetAttribute(&ours, static_cast<cudaDeviceAttr>(attr), device),
                cudaSuccess);
      ASSERT_EQ(driver().cuDeviceGetAttribute(&theirs, static_cast<drv::CUdevice_attribute>(attr),
                                              device),
                drv::CUDA_SUCCESS);
      EXPECT_EQ(ours, theirs) << "attribute " << attr << " device " << device;
    }
  }
  int value = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, count), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaDeviceGetAttribute(&value, static_cast<cudaDeviceAttr>(9999), 0),
            cudaErrorInvalidValue);
}

TEST(CudartDevices, PropertiesAreTheDriversAttributes) {
  const int count = device_count();
  for (int device = 0; device < count; ++device) {
    cudaDeviceProp p;
    std::memset(&p, 0xab, sizeof(p));
    ASSERT_EQ(cudaGetDeviceProperties(&p, device), cudaSuccess);
    char name[256] = {};
    ASSERT_EQ(driver().cuDeviceGetName(name, sizeof(name), device), drv::CUDA_SUCCESS);
    EXPECT_STREQ(p.name, name);
    std::size_t total = 0;
    ASSERT_EQ(driver().cuDeviceTotalMem(&total, device), drv::CUDA_SUCCESS);
    EXPECT_EQ(p.totalGlobalMem, total);
    drv::CUuuid uuid{};
    ASSERT_EQ(driver().cuDeviceGetUuid(&uuid, device), drv::CUDA_SUCCESS);
    EXPECT_EQ(std::memcmp(&p.uuid, &uuid, sizeof(uuid)), 0);
    auto attr = [&](int a) {
      int v = -1;
      EXPECT_EQ(driver().cuDeviceGetAttribute(&v, static_cast<drv::CUdevice_attribute>(a), device),
                drv::CUDA_SUCCESS);
      return static_cast<long long>(v);
    };
#define EXPECT_FIELD(field, a) \
  EXPECT_EQ(static_cast<long long>(p.field), attr(a)) << #field " of device " << device;
    EXPECT_FIELD(sharedMemPerBlock, 8)
    EXPECT_FIELD(regsPerBlock, 12)
    EXPECT_FIELD(warpSize, 10)
    EXPECT_FIELD(memPitch, 11)
    EXPECT_FIELD(maxThreadsPerBlock, 1)
    EXPECT_FIELD(maxThreadsDim[0], 2)
    EXPECT_FIELD(maxThreadsDim[1], 3)
    EXPECT_FIELD(maxThreadsDim[2], 4)
    EXPECT_FIELD(maxGridSize[0], 5)
    EXPECT_FIELD(maxGridSize[1], 6)
    EXPECT_FIELD(maxGridSize[2], 7)
    EXPECT_FIELD(totalConstMem, 9)
    EXPECT_FIELD(major, 75)
    EXPECT_FIELD(minor, 76)
    EXPECT_FIELD(textureAlignment, 14)
    EXPECT_FIELD(texturePitchAlignment, 51)
    EXPECT_FIELD(multiProcessorCount, 16)
    EXPECT_FIELD(integrated, 18)
    EXPECT_FIELD(canMapHostMemory, 19)
    EXPECT_FIELD(maxTexture1D, 21)
    EXPECT_FIELD(maxTexture1DMipmap, 77)
    EXPECT_FIELD(maxTexture2D[0], 22)
    EXPECT_FIELD(maxTexture2D[1], 23)
    EXPECT_FIELD(maxTexture2DMipmap[0], 73)
    EXPECT_FIELD(maxTexture2DMipmap[1], 74)
    EXPECT_FIELD(maxTexture2DLinear[0], 70)
    EXPECT_FIELD(maxTexture2DLinear[1], 71)
    EXPECT_FIELD(maxTexture2DLinear[2], 72)
    EXPECT_FIELD(maxTexture2DGather[0], 45)
    EXPECT_FIELD(maxTexture2DGather[1], 46)
    EXPECT_FIELD(maxTexture3D[0], 24)
    EXPECT_FIELD(maxTexture3D[1], 25)
    EXPECT_FIELD(maxTexture3D[2], 26)
    EXPECT_FIELD(maxTexture3DAlt[0], 47)
    EXPECT_FIELD(maxTexture3DAlt[1], 48)
    EXPECT_FIELD(maxTexture3DAlt[2], 49)
    EXPECT_FIELD(maxTextureCubemap, 52)
    EXPECT_FIELD(maxTexture1DLayered[0], 42)
    EXPECT_FIELD(maxTexture1DLayered[1], 43)
    EXPECT_FIELD(maxTexture2DLayered[0], 27)
    EXPECT_FIELD(maxTexture2DLayered[1], 28)
    EXPECT_FIELD(maxTexture2DLayered[2], 29)
    EXPECT_FIELD(maxTextureCubemapLayered[0], 53)
    EXPECT_FIELD(maxTextureCubemapLayered[1], 54)
    EXPECT_FIELD(maxSurface1D, 55)
    EXPECT_FIELD(maxSurface2D[0], 56)
    EXPECT_FIELD(maxSurface2D[1], 57)
    EXPECT_FIELD(maxSurface3D[0], 58)
    EXPECT_FIELD(maxSurface3D[1], 59)
    EXPECT_FIELD(maxSurface3D[2], 60)
    EXPECT_FIELD(maxSurface1DLayered[0], 61)
    EXPECT_FIELD(maxSurface1DLayered[1], 62)
    EXPECT_FIELD(maxSurface2DLayered[0], 63)
    EXPECT_FIELD(maxSurface2DLayered[1], 64)
    EXPECT_FIELD(maxSurface2DLayered[2], 65)
    EXPECT_FIELD(maxSurfaceCubemap, 66)
    EXPECT_FIELD(maxSurfaceCubemapLayered[0], 67)
    EXPECT_FIELD(maxSurfaceCubemapLayered[1], 68)
    EXPECT_FIELD(surfaceAlignment, 30)
    EXPECT_FIELD(concurrentKernels, 31)
    EXPECT_FIELD(ECCEnabled, 32)
    EXPECT_FIELD(pciBusID, 33)
    EXPECT_FIELD(pciDeviceID, 34)
    EXPECT_FIELD(pciDomainID, 50)
    EXPECT_FIELD(tccDriver, 35)
    EXPECT_FIELD(asyncEngineCount, 40)
    EXPECT_FIELD(unifiedAddressing, 41)
    EXPECT_FIELD(memoryBusWidth, 37)
    EXPECT_FIELD(l2CacheSize, 38)
    EXPECT_FIELD(persistingL2CacheMaxSize, 108)
    EXPECT_FIELD(maxThreadsPerMultiProcessor, 39)
    EXPECT_FIELD(streamPrioritiesSupported, 78)
    EXPECT_FIELD(globalL1CacheSupported, 79)
    EXPECT_FIELD(localL1CacheSupported, 80)
    EXPECT_FIELD(sharedMemPerMultiprocessor, 81)
    EXPECT_FIELD(regsPerMultiprocessor, 82)
    EXPECT_FIELD(managedMemory, 83)
    EXPECT_FIELD(isMultiGpuBoard, 84)
    EXPECT_FIELD(multiGpuBoardGroupID, 85)
    EXPECT_FIELD(hostNativeAtomicSupported, 86)
    EXPECT_FIELD(pageableMemoryAccess, 88)
    EXPECT_FIELD(concurrentManagedAccess, 89)
    EXPECT_FIELD(computePreemptionSupported, 90)
    EXPECT_FIELD(canUseHostPointerForRegisteredMem, 91)
    EXPECT_FIELD(cooperativeLaunch, 95)
    EXPECT_FIELD(sharedMemPerBlockOptin, 97)
    EXPECT_FIELD(pageableMemoryAccessUsesHostPageTables, 100)
    EXPECT_FIELD(directManagedMemAccessFromHost, 101)
    EXPECT_FIELD(maxBlocksPerMultiProcessor, 106)
    EXPECT_FIELD(accessPolicyMaxWindowSize, 109)
    EXPECT_FIELD(reservedSharedMemPerBlock, 111)
    EXPECT_FIELD(hostRegisterSupported, 99)
    EXPECT_FIELD(sparseCudaArraySupported, 112)
    EXPECT_FIELD(hostRegisterReadOnlySupported, 113)
    EXPECT_FIELD(timelineSemaphoreInteropSupported, 114)
    EXPECT_FIELD(memoryPoolsSupported, 115)
    EXPECT_FIELD(gpuDirectRDMASupported, 116)
    EXPECT_FIELD(gpuDirectRDMAFlushWritesOptions, 117)
    EXPECT_FIELD(gpuDirectRDMAWritesOrdering, 118)
    EXPECT_FIELD(memoryPoolSupportedHandleTypes, 119)
    EXPECT_FIELD(deferredMappingCudaArraySupported, 121)
    EXPECT_FIELD(ipcEventSupported, 125)
    EXPECT_FIELD(clusterLaunch, 120)
    EXPECT_FIELD(unifiedFunctionPointers, 129)
    EXPECT_FIELD(deviceNumaConfig, 130)
    EXPECT_FIELD(deviceNumaId, 131)
    EXPECT_FIELD(mpsEnabled, 133)
    EXPECT_FIELD(hostNumaId, 134)
    EXPECT_FIELD(gpuPciDeviceID, 139)
    EXPECT_FIELD(gpuPciSubsystemID, 140)
    EXPECT_FIELD(hostNumaMultinodeIpcSupported, 143)
#undef EXPECT_FIELD
    // Not reported off Windows, and the reserved tail: zero.
    EXPECT_EQ(p.luidDeviceNodeMask, 0u);
    for (char c : p.luid) EXPECT_EQ(c, 0);
    for (int r : p.reserved) EXPECT_EQ(r, 0);
  }
  cudaDeviceProp p;
  EXPECT_EQ(cudaGetDeviceProperties(&p, count), cudaErrorInvalidDevice);
}

TEST(CudartDevices, PeerAccessFollowsTheDriver) {
  int can = -1;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 0, 1), cudaSuccess);
  EXPECT_EQ(cudaDeviceCanAccessPeer(&can, 0, device_count()), cudaErrorInvalidDevice);
  if (can != 1) GTEST_SKIP() << "devices 0 and 1 of this machine are no peers";
  on_fresh_thread([] {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaSuccess);
    EXPECT_EQ(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
    EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaSuccess);
    EXPECT_EQ(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    EXPECT_EQ(cudaGetLastError(), cudaErrorPeerAccessNotEnabled);
  });
}

TEST(CudartDevices, LimitsPrioritiesPoolAndChoice) {
  on_fresh_thread([] {
    std::size_t value = 0;
    EXPECT_EQ(cudaDeviceSetLimit(cudaLimitStackSize, 4096), cudaSuccess);
    EXPECT_EQ(cudaDeviceGetLimit(&value, cudaLimitStackSize), cudaSuccess);
    EXPECT_EQ(value, 4096u);
    int least = 1, greatest = 1;
    EXPECT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    EXPECT_EQ(least, 0);
    EXPECT_LT(greatest, 0);
    cudaMemPool_t pool = nullptr;
    EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, 0), cudaSuccess);
    EXPECT_NE(pool, nullptr);
    EXPECT_EQ(cudaDeviceGetDefaultMemPool(&pool, device_count()), cudaErrorInvalidDevice);
    cudaDeviceProp wanted;
    std::memset(&wanted, 0, sizeof(wanted));
    int major = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    wanted.major = major;
    int chosen = -1;
    EXPECT_EQ(cudaChooseDevice(&chosen, &wanted), cudaSuccess);
    EXPECT_EQ(chosen, 0);
  });
}

TEST(CudartNotImplemented, AnswersNotSupportedAndNamesItselfOnce) {
  testing::internal::CaptureStderr();
  const cudaError_t first = cudaDeviceFlushGPUDirectRDMAWrites(
      cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner);
  const cudaError_t second = cudaDeviceFlushGPUDirectRDMAWrites(
      cudaFlushGPUDirectRDMAWritesTargetCurrentDevice, cudaFlushGPUDirectRDMAWritesToOwner);
  const std::string printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(first, cudaErrorNotSupported);
  EXPECT_EQ(second, cudaErrorNotSupported);
  EXPECT_EQ(printed,
            "accel cudart: cudaDeviceFlushGPUDirectRDMAWrites is not implemented "
            "(cudaErrorNotSupported)\n");
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
}

}  // namespace
