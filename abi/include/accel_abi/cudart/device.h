#pragma once
// A fragment of the CUDA runtime ABI table (accel_abi/cuda_runtime.h includes it; include
// that header, never this one). Device management, version queries and errors: cudaError_t
// with every CUDA 13.0 value, cudaDeviceProp in its CUDA 13.0 layout, cudaDeviceAttr, the
// limits and the device flags.
//
// ACCEL_CUDART_DEVICE_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_runtime.h;
// cudart/src/device.cpp, context.cpp, errors.cpp and versions.cpp implement them.
// ACCEL_CUDART_DEVICE_TYPES(T): every type declared here, by its cuda_runtime_api.h name;
// ACCEL_CUDART_DEVICE_CONSTANTS(C): every enumerator declared here (abi/check proves both).

#ifndef ACCEL_CUDART_FRAGMENT_
#error "include accel_abi/cuda_runtime.h, not its fragments"
#endif

namespace accel::cudart_abi {

// Every cudaError_t value of CUDA 13.0: X(name, value).
#define ACCEL_CUDART_ERRORS(X)                    \
  X(cudaSuccess, 0)                               \
  X(cudaErrorInvalidValue, 1)                     \
  X(cudaErrorMemoryAllocation, 2)                 \
  X(cudaErrorInitializationError, 3)              \
  X(cudaErrorCudartUnloading, 4)                  \
  X(cudaErrorProfilerDisabled, 5)                 \
  X(cudaErrorProfilerNotInitialized, 6)           \
  X(cudaErrorProfilerAlreadyStarted, 7)           \
  X(cudaErrorProfilerAlreadyStopped, 8)           \
  X(cudaErrorInvalidConfiguration, 9)             \
  X(cudaErrorInvalidPitchValue, 12)               \
  X(cudaErrorInvalidSymbol, 13)                   \
  X(cudaErrorInvalidHostPointer, 16)              \
  X(cudaErrorInvalidDevicePointer, 17)            \
  X(cudaErrorInvalidTexture, 18)                  \
  X(cudaErrorInvalidTextureBinding, 19)           \
  X(cudaErrorInvalidChannelDescriptor, 20)        \
  X(cudaErrorInvalidMemcpyDirection, 21)          \
  X(cudaErrorAddressOfConstant, 22)               \
  X(cudaErrorTextureFetchFailed, 23)              \
  X(cudaErrorTextureNotBound, 24)                 \
  X(cudaErrorSynchronizationError, 25)            \
  X(cudaErrorInvalidFilterSetting, 26)            \
  X(cudaErrorInvalidNormSetting, 27)              \
  X(cudaErrorMixedDeviceExecution, 28)            \
  X(cudaErrorNotYetImplemented, 31)               \
  X(cudaErrorMemoryValueTooLarge, 32)             \
  X(cudaErrorStubLibrary, 34)                     \
  X(cudaErrorInsufficientDriver, 35)              \
  X(cudaErrorCallRequiresNewerDriver, 36)         \
  X(cudaErrorInvalidSurface, 37)                  \
  X(cudaErrorDuplicateVariableName, 43)           \
  X(cudaErrorDuplicateTextureName, 44)            \
  X(cudaErrorDuplicateSurfaceName, 45)            \
  X(cudaErrorDevicesUnavailable, 46)              \
  X(cudaErrorIncompatibleDriverContext, 49)       \
  X(cudaErrorMissingConfiguration, 52)            \
  X(cudaErrorPriorLaunchFailure, 53)              \
  X(cudaErrorLaunchMaxDepthExceeded, 65)          \
  X(cudaErrorLaunchFileScopedTex, 66)             \
  X(cudaErrorLaunchFileScopedSurf, 67)            \
  X(cudaErrorSyncDepthExceeded, 68)               \
  X(cudaErrorLaunchPendingCountExceeded, 69)      \
  X(cudaErrorInvalidDeviceFunction, 98)           \
  X(cudaErrorNoDevice, 100)                       \
  X(cudaErrorInvalidDevice, 101)                  \
  X(cudaErrorDeviceNotLicensed, 102)              \
  X(cudaErrorSoftwareValidityNotEstablished, 103) \
  X(cudaErrorStartupFailure, 127)                 \
  X(cudaErrorInvalidKernelImage, 200)             \
  X(cudaErrorDeviceUninitialized, 201)            \
  X(cudaErrorMapBufferObjectFailed, 205)          \
  X(cudaErrorUnmapBufferObjectFailed, 206)        \
  X(cudaErrorArrayIsMapped, 207)                  \
  X(cudaErrorAlreadyMapped, 208)                  \
  X(cudaErrorNoKernelImageForDevice, 209)         \
  X(cudaErrorAlreadyAcquired, 210)                \
  X(cudaErrorNotMapped, 211)                      \
  X(cudaErrorNotMappedAsArray, 212)               \
  X(cudaErrorNotMappedAsPointer, 213)             \
  X(cudaErrorECCUncorrectable, 214)               \
  X(cudaErrorUnsupportedLimit, 215)               \
  X(cudaErrorDeviceAlreadyInUse, 216)             \
  X(cudaErrorPeerAccessUnsupported, 217)          \
  X(cudaErrorInvalidPtx, 218)                     \
  X(cudaErrorInvalidGraphicsContext, 219)         \
  X(cudaErrorNvlinkUncorrectable, 220)            \
  X(cudaErrorJitCompilerNotFound, 221)            \
  X(cudaErrorUnsupportedPtxVersion, 222)          \
  X(cudaErrorJitCompilationDisabled, 223)         \
  X(cudaErrorUnsupportedExecAffinity, 224)        \
  X(cudaErrorUnsupportedDevSideSync, 225)         \
  X(cudaErrorContained, 226)                      \
  X(cudaErrorInvalidSource, 300)                  \
  X(cudaErrorFileNotFound, 301)                   \
  X(cudaErrorSharedObjectSymbolNotFound, 302)     \
  X(cudaErrorSharedObjectInitFailed, 303)         \
  X(cudaErrorOperatingSystem, 304)                \
  X(cudaErrorInvalidResourceHandle, 400)          \
  X(cudaErrorIllegalState, 401)                   \
  X(cudaErrorLossyQuery, 402)                     \
  X(cudaErrorSymbolNotFound, 500)                 \
  X(cudaErrorNotReady, 600)                       \
  X(cudaErrorIllegalAddress, 700)                 \
  X(cudaErrorLaunchOutOfResources, 701)           \
  X(cudaErrorLaunchTimeout, 702)                  \
  X(cudaErrorLaunchIncompatibleTexturing, 703)    \
  X(cudaErrorPeerAccessAlreadyEnabled, 704)       \
  X(cudaErrorPeerAccessNotEnabled, 705)           \
  X(cudaErrorSetOnActiveProcess, 708)             \
  X(cudaErrorContextIsDestroyed, 709)             \
  X(cudaErrorAssert, 710)                         \
  X(cudaErrorTooManyPeers, 711)                   \
  X(cudaErrorHostMemoryAlreadyRegistered, 712)    \
  X(cudaErrorHostMemoryNotRegistered, 713)        \
  X(cudaErrorHardwareStackError, 714)             \
  X(cudaErrorIllegalInstruction, 715)             \
  X(cudaErrorMisalignedAddress, 716)              \
  X(cudaErrorInvalidAddressSpace, 717)            \
  X(cudaErrorInvalidPc, 718)                      \
  X(cudaErrorLaunchFailure, 719)                  \
  X(cudaErrorCooperativeLaunchTooLarge, 720)      \
  X(cudaErrorTensorMemoryLeak, 721)               \
  X(cudaErrorNotPermitted, 800)                   \
  X(cudaErrorNotSupported, 801)                   \
  X(cudaErrorSystemNotReady, 802)                 \
  X(cudaErrorSystemDriverMismatch, 803)           \
  X(cudaErrorCompatNotSupportedOnDevice, 804)     \
  X(cudaErrorMpsConnectionFailed, 805)            \
  X(cudaErrorMpsRpcFailure, 806)                  \
  X(cudaErrorMpsServerNotReady, 807)              \
  X(cudaErrorMpsMaxClientsReached, 808)           \
  X(cudaErrorMpsMaxConnectionsReached, 809)       \
  X(cudaErrorMpsClientTerminated, 810)            \
  X(cudaErrorCdpNotSupported, 811)                \
  X(cudaErrorCdpVersionMismatch, 812)             \
  X(cudaErrorStreamCaptureUnsupported, 900)       \
  X(cudaErrorStreamCaptureInvalidated, 901)       \
  X(cudaErrorStreamCaptureMerge, 902)             \
  X(cudaErrorStreamCaptureUnmatched, 903)         \
  X(cudaErrorStreamCaptureUnjoined, 904)          \
  X(cudaErrorStreamCaptureIsolation, 905)         \
  X(cudaErrorStreamCaptureImplicit, 906)          \
  X(cudaErrorCapturedEvent, 907)                  \
  X(cudaErrorStreamCaptureWrongThread, 908)       \
  X(cudaErrorTimeout, 909)                        \
  X(cudaErrorGraphExecUpdateFailure, 910)         \
  X(cudaErrorExternalDevice, 911)                 \
  X(cudaErrorInvalidClusterSize, 912)             \
  X(cudaErrorFunctionNotLoaded, 913)              \
  X(cudaErrorInvalidResourceType, 914)            \
  X(cudaErrorInvalidResourceConfiguration, 915)   \
  X(cudaErrorUnknown, 999)                        \
  X(cudaErrorApiFailureBase, 10000)

enum cudaError : int {
#define ACCEL_CUDART_ERROR_ENUMERATOR(name, value) name = value,
  ACCEL_CUDART_ERRORS(ACCEL_CUDART_ERROR_ENUMERATOR)
#undef ACCEL_CUDART_ERROR_ENUMERATOR
};
using cudaError_t = cudaError;

// Every cudaDeviceAttr of CUDA 13.0: X(name, value). Each value equals the
// CU_DEVICE_ATTRIBUTE_* of the same meaning (the runtime passes it to the driver as is).
#define ACCEL_CUDART_DEVICE_ATTRIBUTES(X)                   \
  X(cudaDevAttrMaxThreadsPerBlock, 1)                       \
  X(cudaDevAttrMaxBlockDimX, 2)                             \
  X(cudaDevAttrMaxBlockDimY, 3)                             \
  X(cudaDevAttrMaxBlockDimZ, 4)                             \
  X(cudaDevAttrMaxGridDimX, 5)                              \
  X(cudaDevAttrMaxGridDimY, 6)                              \
  X(cudaDevAttrMaxGridDimZ, 7)                              \
  X(cudaDevAttrMaxSharedMemoryPerBlock, 8)                  \
  X(cudaDevAttrTotalConstantMemory, 9)                      \
  X(cudaDevAttrWarpSize, 10)                                \
  X(cudaDevAttrMaxPitch, 11)                                \
  X(cudaDevAttrMaxRegistersPerBlock, 12)                    \
  X(cudaDevAttrClockRate, 13)                               \
  X(cudaDevAttrTextureAlignment, 14)                        \
  X(cudaDevAttrGpuOverlap, 15)                              \
  X(cudaDevAttrMultiProcessorCount, 16)                     \
  X(cudaDevAttrKernelExecTimeout, 17)                       \
  X(cudaDevAttrIntegrated, 18)                              \
  X(cudaDevAttrCanMapHostMemory, 19)                        \
  X(cudaDevAttrComputeMode, 20)                             \
  X(cudaDevAttrMaxTexture1DWidth, 21)                       \
  X(cudaDevAttrMaxTexture2DWidth, 22)                       \
  X(cudaDevAttrMaxTexture2DHeight, 23)                      \
  X(cudaDevAttrMaxTexture3DWidth, 24)                       \
  X(cudaDevAttrMaxTexture3DHeight, 25)                      \
  X(cudaDevAttrMaxTexture3DDepth, 26)                       \
  X(cudaDevAttrMaxTexture2DLayeredWidth, 27)                \
  X(cudaDevAttrMaxTexture2DLayeredHeight, 28)               \
  X(cudaDevAttrMaxTexture2DLayeredLayers, 29)               \
  X(cudaDevAttrSurfaceAlignment, 30)                        \
  X(cudaDevAttrConcurrentKernels, 31)                       \
  X(cudaDevAttrEccEnabled, 32)                              \
  X(cudaDevAttrPciBusId, 33)                                \
  X(cudaDevAttrPciDeviceId, 34)                             \
  X(cudaDevAttrTccDriver, 35)                               \
  X(cudaDevAttrMemoryClockRate, 36)                         \
  X(cudaDevAttrGlobalMemoryBusWidth, 37)                    \
  X(cudaDevAttrL2CacheSize, 38)                             \
  X(cudaDevAttrMaxThreadsPerMultiProcessor, 39)             \
  X(cudaDevAttrAsyncEngineCount, 40)                        \
  X(cudaDevAttrUnifiedAddressing, 41)                       \
  X(cudaDevAttrMaxTexture1DLayeredWidth, 42)                \
  X(cudaDevAttrMaxTexture1DLayeredLayers, 43)               \
  X(cudaDevAttrMaxTexture2DGatherWidth, 45)                 \
  X(cudaDevAttrMaxTexture2DGatherHeight, 46)                \
  X(cudaDevAttrMaxTexture3DWidthAlt, 47)                    \
  X(cudaDevAttrMaxTexture3DHeightAlt, 48)                   \
  X(cudaDevAttrMaxTexture3DDepthAlt, 49)                    \
  X(cudaDevAttrPciDomainId, 50)                             \
  X(cudaDevAttrTexturePitchAlignment, 51)                   \
  X(cudaDevAttrMaxTextureCubemapWidth, 52)                  \
  X(cudaDevAttrMaxTextureCubemapLayeredWidth, 53)           \
  X(cudaDevAttrMaxTextureCubemapLayeredLayers, 54)          \
  X(cudaDevAttrMaxSurface1DWidth, 55)                       \
  X(cudaDevAttrMaxSurface2DWidth, 56)                       \
  X(cudaDevAttrMaxSurface2DHeight, 57)                      \
  X(cudaDevAttrMaxSurface3DWidth, 58)                       \
  X(cudaDevAttrMaxSurface3DHeight, 59)                      \
  X(cudaDevAttrMaxSurface3DDepth, 60)                       \
  X(cudaDevAttrMaxSurface1DLayeredWidth, 61)                \
  X(cudaDevAttrMaxSurface1DLayeredLayers, 62)               \
  X(cudaDevAttrMaxSurface2DLayeredWidth, 63)                \
  X(cudaDevAttrMaxSurface2DLayeredHeight, 64)               \
  X(cudaDevAttrMaxSurface2DLayeredLayers, 65)               \
  X(cudaDevAttrMaxSurfaceCubemapWidth, 66)                  \
  X(cudaDevAttrMaxSurfaceCubemapLayeredWidth, 67)           \
  X(cudaDevAttrMaxSurfaceCubemapLayeredLayers, 68)          \
  X(cudaDevAttrMaxTexture1DLinearWidth, 69)                 \
  X(cudaDevAttrMaxTexture2DLinearWidth, 70)                 \
  X(cudaDevAttrMaxTexture2DLinearHeight, 71)                \
  X(cudaDevAttrMaxTexture2DLinearPitch, 72)                 \
  X(cudaDevAttrMaxTexture2DMipmappedWidth, 73)              \
  X(cudaDevAttrMaxTexture2DMipmappedHeight, 74)             \
  X(cudaDevAttrComputeCapabilityMajor, 75)                  \
  X(cudaDevAttrComputeCapabilityMinor, 76)                  \
  X(cudaDevAttrMaxTexture1DMipmappedWidth, 77)              \
  X(cudaDevAttrStreamPrioritiesSupported, 78)               \
  X(cudaDevAttrGlobalL1CacheSupported, 79)                  \
  X(cudaDevAttrLocalL1CacheSupported, 80)                   \
  X(cudaDevAttrMaxSharedMemoryPerMultiprocessor, 81)        \
  X(cudaDevAttrMaxRegistersPerMultiprocessor, 82)           \
  X(cudaDevAttrManagedMemory, 83)                           \
  X(cudaDevAttrIsMultiGpuBoard, 84)                         \
  X(cudaDevAttrMultiGpuBoardGroupID, 85)                    \
  X(cudaDevAttrHostNativeAtomicSupported, 86)               \
  X(cudaDevAttrSingleToDoublePrecisionPerfRatio, 87)        \
  X(cudaDevAttrPageableMemoryAccess, 88)                    \
  X(cudaDevAttrConcurrentManagedAccess, 89)                 \
  X(cudaDevAttrComputePreemptionSupported, 90)              \
  X(cudaDevAttrCanUseHostPointerForRegisteredMem, 91)       \
  X(cudaDevAttrReserved92, 92)                              \
  X(cudaDevAttrReserved93, 93)                              \
  X(cudaDevAttrReserved94, 94)                              \
  X(cudaDevAttrCooperativeLaunch, 95)                       \
  X(cudaDevAttrReserved96, 96)                              \
  X(cudaDevAttrMaxSharedMemoryPerBlockOptin, 97)            \
  X(cudaDevAttrCanFlushRemoteWrites, 98)                    \
  X(cudaDevAttrHostRegisterSupported, 99)                   \
  X(cudaDevAttrPageableMemoryAccessUsesHostPageTables, 100) \
  X(cudaDevAttrDirectManagedMemAccessFromHost, 101)         \
  X(cudaDevAttrMaxBlocksPerMultiprocessor, 106)             \
  X(cudaDevAttrMaxPersistingL2CacheSize, 108)               \
  X(cudaDevAttrMaxAccessPolicyWindowSize, 109)              \
  X(cudaDevAttrReservedSharedMemoryPerBlock, 111)           \
  X(cudaDevAttrSparseCudaArraySupported, 112)               \
  X(cudaDevAttrHostRegisterReadOnlySupported, 113)          \
  X(cudaDevAttrTimelineSemaphoreInteropSupported, 114)      \
  X(cudaDevAttrMemoryPoolsSupported, 115)                   \
  X(cudaDevAttrGPUDirectRDMASupported, 116)                 \
  X(cudaDevAttrGPUDirectRDMAFlushWritesOptions, 117)        \
  X(cudaDevAttrGPUDirectRDMAWritesOrdering, 118)            \
  X(cudaDevAttrMemoryPoolSupportedHandleTypes, 119)         \
  X(cudaDevAttrClusterLaunch, 120)                          \
  X(cudaDevAttrDeferredMappingCudaArraySupported, 121)      \
  X(cudaDevAttrReserved122, 122)                            \
  X(cudaDevAttrReserved123, 123)                            \
  X(cudaDevAttrReserved124, 124)                            \
  X(cudaDevAttrIpcEventSupport, 125)                        \
  X(cudaDevAttrMemSyncDomainCount, 126)                     \
  X(cudaDevAttrReserved127, 127)                            \
  X(cudaDevAttrReserved128, 128)                            \
  X(cudaDevAttrReserved129, 129)                            \
  X(cudaDevAttrNumaConfig, 130)                             \
  X(cudaDevAttrNumaId, 131)                                 \
  X(cudaDevAttrReserved132, 132)                            \
  X(cudaDevAttrMpsEnabled, 133)                             \
  X(cudaDevAttrHostNumaId, 134)                             \
  X(cudaDevAttrD3D12CigSupported, 135)                      \
  X(cudaDevAttrVulkanCigSupported, 138)                     \
  X(cudaDevAttrGpuPciDeviceId, 139)                         \
  X(cudaDevAttrGpuPciSubsystemId, 140)                      \
  X(cudaDevAttrReserved141, 141)                            \
  X(cudaDevAttrHostNumaMemoryPoolsSupported, 142)           \
  X(cudaDevAttrHostNumaMultinodeIpcSupported, 143)          \
  X(cudaDevAttrHostMemoryPoolsSupported, 144)               \
  X(cudaDevAttrReserved145, 145)                            \
  X(cudaDevAttrOnlyPartialHostNativeAtomicSupported, 147)

enum cudaDeviceAttr : int {
#define ACCEL_CUDART_DEVICE_ATTRIBUTE_ENUMERATOR(name, value) name = value,
  ACCEL_CUDART_DEVICE_ATTRIBUTES(ACCEL_CUDART_DEVICE_ATTRIBUTE_ENUMERATOR)
#undef ACCEL_CUDART_DEVICE_ATTRIBUTE_ENUMERATOR
};

enum cudaLimit : int {
  cudaLimitStackSize = 0x00,
  cudaLimitPrintfFifoSize = 0x01,
  cudaLimitMallocHeapSize = 0x02,
  cudaLimitDevRuntimeSyncDepth = 0x03,
  cudaLimitDevRuntimePendingLaunchCount = 0x04,
  cudaLimitMaxL2FetchGranularity = 0x05,
  cudaLimitPersistingL2CacheSize = 0x06,
};

enum cudaDeviceP2PAttr : int {
  cudaDevP2PAttrPerformanceRank = 1,
  cudaDevP2PAttrAccessSupported = 2,
  cudaDevP2PAttrNativeAtomicSupported = 3,
  cudaDevP2PAttrCudaArrayAccessSupported = 4,
  cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5,
};

enum cudaFlushGPUDirectRDMAWritesTarget : int {
  cudaFlushGPUDirectRDMAWritesTargetCurrentDevice = 0,
};
enum cudaFlushGPUDirectRDMAWritesScope : int {
  cudaFlushGPUDirectRDMAWritesToOwner = 100,
  cudaFlushGPUDirectRDMAWritesToAllDevices = 200,
};

// driver_types.h defines the device flags as macros, so they cannot keep the vendor's
// spelling here (abi/check would not compile); each names its macro. Values equal the
// driver's CU_CTX_* flags.
inline constexpr unsigned kDeviceScheduleAuto = 0x00;          // cudaDeviceScheduleAuto
inline constexpr unsigned kDeviceScheduleSpin = 0x01;          // cudaDeviceScheduleSpin
inline constexpr unsigned kDeviceScheduleYield = 0x02;         // cudaDeviceScheduleYield
inline constexpr unsigned kDeviceScheduleBlockingSync = 0x04;  // cudaDeviceScheduleBlockingSync
inline constexpr unsigned kDeviceScheduleMask = 0x07;          // cudaDeviceScheduleMask
inline constexpr unsigned kDeviceMapHost = 0x08;               // cudaDeviceMapHost
inline constexpr unsigned kDeviceLmemResizeToMax = 0x10;       // cudaDeviceLmemResizeToMax
inline constexpr unsigned kDeviceSyncMemops = 0x80;            // cudaDeviceSyncMemops
inline constexpr unsigned kDeviceMask = 0xff;                  // cudaDeviceMask
inline constexpr unsigned kInitDeviceFlagsAreValid = 0x01;     // cudaInitDeviceFlagsAreValid
inline constexpr int kCpuDeviceId = -1;                        // cudaCpuDeviceId
inline constexpr int kInvalidDeviceId = -2;                    // cudaInvalidDeviceId

// The CUDA 13.0 layout (clockRate, computeMode and the other fields 13.0 dropped are gone).
struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  std::size_t totalGlobalMem;
  std::size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  std::size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  std::size_t totalConstMem;
  int major;
  int minor;
  std::size_t textureAlignment;
  std::size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  std::size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  std::size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  std::size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  std::size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

// cudaDeviceProp's fields in declaration order (abi/check proves each offset).
#define ACCEL_CUDART_DEVICE_PROP_FIELDS(F)  \
  F(name)                                   \
  F(uuid)                                   \
  F(luid)                                   \
  F(luidDeviceNodeMask)                     \
  F(totalGlobalMem)                         \
  F(sharedMemPerBlock)                      \
  F(regsPerBlock)                           \
  F(warpSize)                               \
  F(memPitch)                               \
  F(maxThreadsPerBlock)                     \
  F(maxThreadsDim)                          \
  F(maxGridSize)                            \
  F(totalConstMem)                          \
  F(major)                                  \
  F(minor)                                  \
  F(textureAlignment)                       \
  F(texturePitchAlignment)                  \
  F(multiProcessorCount)                    \
  F(integrated)                             \
  F(canMapHostMemory)                       \
  F(maxTexture1D)                           \
  F(maxTexture1DMipmap)                     \
  F(maxTexture2D)                           \
  F(maxTexture2DMipmap)                     \
  F(maxTexture2DLinear)                     \
  F(maxTexture2DGather)                     \
  F(maxTexture3D)                           \
  F(maxTexture3DAlt)                        \
  F(maxTextureCubemap)                      \
  F(maxTexture1DLayered)                    \
  F(maxTexture2DLayered)                    \
  F(maxTextureCubemapLayered)               \
  F(maxSurface1D)                           \
  F(maxSurface2D)                           \
  F(maxSurface3D)                           \
  F(maxSurface1DLayered)                    \
  F(maxSurface2DLayered)                    \
  F(maxSurfaceCubemap)                      \
  F(maxSurfaceCubemapLayered)               \
  F(surfaceAlignment)                       \
  F(concurrentKernels)                      \
  F(ECCEnabled)                             \
  F(pciBusID)                               \
  F(pciDeviceID)                            \
  F(pciDomainID)                            \
  F(tccDriver)                              \
  F(asyncEngineCount)                       \
  F(unifiedAddressing)                      \
  F(memoryBusWidth)                         \
  F(l2CacheSize)                            \
  F(persistingL2CacheMaxSize)               \
  F(maxThreadsPerMultiProcessor)            \
  F(streamPrioritiesSupported)              \
  F(globalL1CacheSupported)                 \
  F(localL1CacheSupported)                  \
  F(sharedMemPerMultiprocessor)             \
  F(regsPerMultiprocessor)                  \
  F(managedMemory)                          \
  F(isMultiGpuBoard)                        \
  F(multiGpuBoardGroupID)                   \
  F(hostNativeAtomicSupported)              \
  F(pageableMemoryAccess)                   \
  F(concurrentManagedAccess)                \
  F(computePreemptionSupported)             \
  F(canUseHostPointerForRegisteredMem)      \
  F(cooperativeLaunch)                      \
  F(sharedMemPerBlockOptin)                 \
  F(pageableMemoryAccessUsesHostPageTables) \
  F(directManagedMemAccessFromHost)         \
  F(maxBlocksPerMultiProcessor)             \
  F(accessPolicyMaxWindowSize)              \
  F(reservedSharedMemPerBlock)              \
  F(hostRegisterSupported)                  \
  F(sparseCudaArraySupported)               \
  F(hostRegisterReadOnlySupported)          \
  F(timelineSemaphoreInteropSupported)      \
  F(memoryPoolsSupported)                   \
  F(gpuDirectRDMASupported)                 \
  F(gpuDirectRDMAFlushWritesOptions)        \
  F(gpuDirectRDMAWritesOrdering)            \
  F(memoryPoolSupportedHandleTypes)         \
  F(deferredMappingCudaArraySupported)      \
  F(ipcEventSupported)                      \
  F(clusterLaunch)                          \
  F(unifiedFunctionPointers)                \
  F(deviceNumaConfig)                       \
  F(deviceNumaId)                           \
  F(mpsEnabled)                             \
  F(hostNumaId)                             \
  F(gpuPciDeviceID)                         \
  F(gpuPciSubsystemID)                      \
  F(hostNumaMultinodeIpcSupported)          \
  F(reserved)

}  // namespace accel::cudart_abi

#define ACCEL_CUDART_DEVICE_TYPES(T)    \
  T(cudaError)                          \
  T(cudaDeviceAttr)                     \
  T(cudaLimit)                          \
  T(cudaDeviceP2PAttr)                  \
  T(cudaFlushGPUDirectRDMAWritesTarget) \
  T(cudaFlushGPUDirectRDMAWritesScope)  \
  T(cudaDeviceProp)
#define ACCEL_CUDART_DEVICE_CONSTANTS(C)             \
  C(cudaLimitStackSize)                              \
  C(cudaLimitPrintfFifoSize)                         \
  C(cudaLimitMallocHeapSize)                         \
  C(cudaLimitDevRuntimeSyncDepth)                    \
  C(cudaLimitDevRuntimePendingLaunchCount)           \
  C(cudaLimitMaxL2FetchGranularity)                  \
  C(cudaLimitPersistingL2CacheSize)                  \
  C(cudaDevP2PAttrPerformanceRank)                   \
  C(cudaDevP2PAttrAccessSupported)                   \
  C(cudaDevP2PAttrNativeAtomicSupported)             \
  C(cudaDevP2PAttrCudaArrayAccessSupported)          \
  C(cudaDevP2PAttrOnlyPartialNativeAtomicSupported)  \
  C(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice) \
  C(cudaFlushGPUDirectRDMAWritesToOwner)             \
  C(cudaFlushGPUDirectRDMAWritesToAllDevices)

// clang-format off
#define ACCEL_CUDART_DEVICE_ROWS_(R, P, X, E) \
  R(X, E, cudaError_t, cudaDeviceReset, (), (), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceSynchronize, (), (), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceSetLimit, (cudaLimit limit, std::size_t value), (limit, value), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetLimit, (std::size_t* value, cudaLimit limit), (value, limit), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetStreamPriorityRange, (int* least_priority, int* greatest_priority), (least_priority, greatest_priority), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetByPCIBusId, (int* device, const char* pci_bus_id), (device, pci_bus_id), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetPCIBusId, (char* pci_bus_id, int length, int device), (pci_bus_id, length, device), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceFlushGPUDirectRDMAWrites, (cudaFlushGPUDirectRDMAWritesTarget target, cudaFlushGPUDirectRDMAWritesScope scope), (target, scope), kNotImplemented) \
  R(X, E, cudaError_t, cudaGetLastError, (), (), kDriverFree | kKeepsLastError) \
  R(X, E, cudaError_t, cudaPeekAtLastError, (), (), kDriverFree | kKeepsLastError) \
  R(X, E, const char*, cudaGetErrorName, (cudaError_t error), (error), kDriverFree) \
  R(X, E, const char*, cudaGetErrorString, (cudaError_t error), (error), kDriverFree) \
  R(X, E, cudaError_t, cudaGetDeviceCount, (int* count), (count), kNoTraits) \
  R(X, E, cudaError_t, cudaGetDeviceProperties, (cudaDeviceProp* prop, int device), (prop, device), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetAttribute, (int* value, cudaDeviceAttr attr, int device), (value, attr, device), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetDefaultMemPool, (cudaMemPool_t* pool, int device), (pool, device), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceGetP2PAttribute, (int* value, cudaDeviceP2PAttr attr, int src_device, int dst_device), (value, attr, src_device, dst_device), kNoTraits) \
  R(X, E, cudaError_t, cudaChooseDevice, (int* device, const cudaDeviceProp* prop), (device, prop), kNoTraits) \
  R(X, E, cudaError_t, cudaInitDevice, (int device, unsigned int device_flags, unsigned int flags), (device, device_flags, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaSetDevice, (int device), (device), kNoTraits) \
  R(X, E, cudaError_t, cudaGetDevice, (int* device), (device), kNoTraits) \
  R(X, E, cudaError_t, cudaSetDeviceFlags, (unsigned int flags), (flags), kNoTraits) \
  R(X, E, cudaError_t, cudaGetDeviceFlags, (unsigned int* flags), (flags), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceCanAccessPeer, (int* can_access, int device, int peer_device), (can_access, device, peer_device), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceEnablePeerAccess, (int peer_device, unsigned int flags), (peer_device, flags), kNoTraits) \
  R(X, E, cudaError_t, cudaDeviceDisablePeerAccess, (int peer_device), (peer_device), kNoTraits) \
  R(X, E, cudaError_t, cudaDriverGetVersion, (int* version), (version), kDriverFree) \
  R(X, E, cudaError_t, cudaRuntimeGetVersion, (int* version), (version), kDriverFree)
// clang-format on
