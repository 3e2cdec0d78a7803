#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Contexts beyond the primary ones: the per-thread context
// stack, created contexts, their flags, limits and configuration; primary-context reset and
// flags.
//
// ACCEL_CUDA_CONTEXT_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_CONTEXT_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_CONTEXT_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {

// Context creation flags (cuCtxCreate, cuDevicePrimaryCtxSetFlags, cuCtxSetFlags).
enum CUctx_flags : int {
  CU_CTX_SCHED_AUTO = 0x00,
  CU_CTX_SCHED_SPIN = 0x01,
  CU_CTX_SCHED_YIELD = 0x02,
  CU_CTX_SCHED_BLOCKING_SYNC = 0x04,
  CU_CTX_SCHED_MASK = 0x07,
  CU_CTX_MAP_HOST = 0x08,
  CU_CTX_LMEM_RESIZE_TO_MAX = 0x10,
  CU_CTX_COREDUMP_ENABLE = 0x20,
  CU_CTX_USER_COREDUMP_ENABLE = 0x40,
  CU_CTX_SYNC_MEMOPS = 0x80,
  CU_CTX_FLAGS_MASK = 0xFF,
};

enum CUlimit : int {
  CU_LIMIT_STACK_SIZE = 0x00,
  CU_LIMIT_PRINTF_FIFO_SIZE = 0x01,
  CU_LIMIT_MALLOC_HEAP_SIZE = 0x02,
  CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH = 0x03,
  CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT = 0x04,
  CU_LIMIT_MAX_L2_FETCH_GRANULARITY = 0x05,
  CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06,
  CU_LIMIT_SHMEM_SIZE = 0x07,
  CU_LIMIT_CIG_ENABLED = 0x08,
  CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED = 0x09,
  CU_LIMIT_MAX,
};

enum CUfunc_cache : int {
  CU_FUNC_CACHE_PREFER_NONE = 0x00,
  CU_FUNC_CACHE_PREFER_SHARED = 0x01,
  CU_FUNC_CACHE_PREFER_L1 = 0x02,
  CU_FUNC_CACHE_PREFER_EQUAL = 0x03,
};

enum CUsharedconfig : int {
  CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE = 0x00,
  CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE = 0x01,
  CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE = 0x02,
};

enum CUexecAffinityType : int {
  CU_EXEC_AFFINITY_TYPE_SM_COUNT = 0,
  CU_EXEC_AFFINITY_TYPE_MAX,
};

struct CUexecAffinitySmCount {
  unsigned int val;
};

struct CUexecAffinityParam {
  CUexecAffinityType type;
  union {
    CUexecAffinitySmCount smCount;
  } param;
};

enum CUcigDataType : int {
  CIG_DATA_TYPE_D3D12_COMMAND_QUEUE = 0x1,
  CIG_DATA_TYPE_NV_BLOB = 0x2,
};

struct CUctxCigParam {
  CUcigDataType sharedDataType;
  void* sharedData;
};

// cuCtxCreate_v4's parameters: at most one of the two arrays is non-null.
struct CUctxCreateParams {
  CUexecAffinityParam* execAffinityParams;
  int numExecAffinityParams;
  CUctxCigParam* cigParams;
};

}  // namespace accel::cuda_abi

#define ACCEL_CUDA_CONTEXT_TYPES(T) \
  T(CUctx_flags)                    \
  T(CUlimit)                        \
  T(CUfunc_cache)                   \
  T(CUsharedconfig)                 \
  T(CUexecAffinityType)             \
  T(CUexecAffinitySmCount)          \
  T(CUexecAffinityParam)            \
  T(CUcigDataType)                  \
  T(CUctxCigParam)                  \
  T(CUctxCreateParams)

#define ACCEL_CUDA_CONTEXT_CONSTANTS(C)          \
  C(CU_CTX_SCHED_AUTO)                           \
  C(CU_CTX_SCHED_SPIN)                           \
  C(CU_CTX_SCHED_YIELD)                          \
  C(CU_CTX_SCHED_BLOCKING_SYNC)                  \
  C(CU_CTX_SCHED_MASK)                           \
  C(CU_CTX_MAP_HOST)                             \
  C(CU_CTX_LMEM_RESIZE_TO_MAX)                   \
  C(CU_CTX_COREDUMP_ENABLE)                      \
  C(CU_CTX_USER_COREDUMP_ENABLE)                 \
  C(CU_CTX_SYNC_MEMOPS)                          \
  C(CU_CTX_FLAGS_MASK)                           \
  C(CU_LIMIT_STACK_SIZE)                         \
  C(CU_LIMIT_PRINTF_FIFO_SIZE)                   \
  C(CU_LIMIT_MALLOC_HEAP_SIZE)                   \
  C(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH)             \
  C(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT)   \
  C(CU_LIMIT_MAX_L2_FETCH_GRANULARITY)           \
  C(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)           \
  C(CU_LIMIT_SHMEM_SIZE)                         \
  C(CU_LIMIT_CIG_ENABLED)                        \
  C(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED)         \
  C(CU_LIMIT_MAX)                                \
  C(CU_FUNC_CACHE_PREFER_NONE)                   \
  C(CU_FUNC_CACHE_PREFER_SHARED)                 \
  C(CU_FUNC_CACHE_PREFER_L1)                     \
  C(CU_FUNC_CACHE_PREFER_EQUAL)                  \
  C(CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE)      \
  C(CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE)    \
  C(CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE)   \
  C(CU_EXEC_AFFINITY_TYPE_SM_COUNT)              \
  C(CU_EXEC_AFFINITY_TYPE_MAX)                   \
  C(CIG_DATA_TYPE_D3D12_COMMAND_QUEUE)           \
  C(CIG_DATA_TYPE_NV_BLOB)

// The context stack and created contexts (cuda.h: cuCtxCreate is cuCtxCreate_v4 since
// CUDA 12.5; _v2 and _v3 stay exported for programs built earlier), primary-context reset
// and flags, the current context's flags, limits and configuration, and CUDA 13's
// cuCtxGetDevice_v2 and cuCtxSynchronize_v2, which name their context (cuGetProcAddress
// serves them for 13000 and later, as the H100's driver 580 did: docs/HARDWARE.md,
// Recording 2). The simulated CUDA 12 facade (drivers/cuda12/) leaves the 13000 rows out,
// as a 12.x driver has none: bindings that probe for a `_v2` symbol and call it with the
// older signature (Numba 0.56) run against that one. None is legal during a GLOBAL capture
// except the pure queries, as cuThreadExchangeStreamCaptureMode lists no context call as
// safe [inferred: the queries answer from host state].
#define ACCEL_CUDA_CONTEXT_ROWS_(R, P, X, E)                                                       \
  R(X, E, cuCtxGetDevice, 13000, cuCtxGetDevice_v2, (CUdevice * device, CUcontext ctx),            \
    (device, ctx), kNeedsInit | kLegalInCapture)                                                   \
  R(X, E, cuCtxSynchronize, 13000, cuCtxSynchronize_v2, (CUcontext ctx), (ctx),                    \
    kNeedsInit | kTouchesDevice)                                                                   \
  R(X, E, cuCtxCreate, 3020, cuCtxCreate_v2, (CUcontext * pctx, unsigned int flags, CUdevice dev), \
    (pctx, flags, dev), kNeedsInit)                                                                \
  R(X, E, cuCtxCreate, 11040, cuCtxCreate_v3,                                                      \
    (CUcontext * pctx, CUexecAffinityParam * params_array, int num_params, unsigned int flags,     \
     CUdevice dev),                                                                                \
    (pctx, params_array, num_params, flags, dev), kNeedsInit)                                      \
  R(X, E, cuCtxCreate, 12050, cuCtxCreate_v4,                                                      \
    (CUcontext * pctx, CUctxCreateParams * ctx_create_params, unsigned int flags, CUdevice dev),   \
    (pctx, ctx_create_params, flags, dev), kNeedsInit)                                             \
  R(X, E, cuCtxDestroy, 4000, cuCtxDestroy_v2, (CUcontext ctx), (ctx), kNeedsInit)                 \
  R(X, E, cuCtxPushCurrent, 4000, cuCtxPushCurrent_v2, (CUcontext ctx), (ctx),                     \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxPopCurrent, 4000, cuCtxPopCurrent_v2, (CUcontext * pctx), (pctx),                   \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxGetFlags, 7000, cuCtxGetFlags, (unsigned int* flags), (flags),                      \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxSetFlags, 12010, cuCtxSetFlags, (unsigned int flags), (flags),                      \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxGetApiVersion, 3020, cuCtxGetApiVersion, (CUcontext ctx, unsigned int* version),    \
    (ctx, version), kNeedsInit | kLegalInCapture)                                                  \
  R(X, E, cuCtxGetId, 12000, cuCtxGetId, (CUcontext ctx, unsigned long long* ctx_id),              \
    (ctx, ctx_id), kNeedsInit | kLegalInCapture)                                                   \
  R(X, E, cuCtxGetLimit, 3010, cuCtxGetLimit, (std::size_t * pvalue, CUlimit limit),               \
    (pvalue, limit), kNeedsInit | kLegalInCapture)                                                 \
  R(X, E, cuCtxSetLimit, 3010, cuCtxSetLimit, (CUlimit limit, std::size_t value), (limit, value),  \
    kNeedsInit)                                                                                    \
  R(X, E, cuCtxGetCacheConfig, 3020, cuCtxGetCacheConfig, (CUfunc_cache * pconfig), (pconfig),     \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxSetCacheConfig, 3020, cuCtxSetCacheConfig, (CUfunc_cache config), (config),         \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuCtxGetSharedMemConfig, 4020, cuCtxGetSharedMemConfig, (CUsharedconfig * pconfig),      \
    (pconfig), kNeedsInit | kLegalInCapture)                                                       \
  R(X, E, cuCtxSetSharedMemConfig, 4020, cuCtxSetSharedMemConfig, (CUsharedconfig config),         \
    (config), kNeedsInit | kLegalInCapture)                                                        \
  R(X, E, cuCtxResetPersistingL2Cache, 11000, cuCtxResetPersistingL2Cache, (), (), kNeedsInit)     \
  R(X, E, cuDevicePrimaryCtxReset, 11000, cuDevicePrimaryCtxReset_v2, (CUdevice dev), (dev),       \
    kNeedsInit)                                                                                    \
  R(X, E, cuDevicePrimaryCtxSetFlags, 11000, cuDevicePrimaryCtxSetFlags_v2,                        \
    (CUdevice dev, unsigned int flags), (dev, flags), kNeedsInit | kLegalInCapture)
