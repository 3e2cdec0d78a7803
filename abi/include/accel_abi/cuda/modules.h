#pragma once
// A fragment of the CUDA driver ABI table (accel_abi/cuda_driver.h includes it; include
// that header, never this one). Modules, libraries, the JIT linker, function attributes,
// occupancy and the launch forms beyond cuLaunchKernel.
//
// ACCEL_CUDA_MODULE_ROWS_(R, P, X, E): rows in the format of accel_abi/cuda_driver.h. The
// runtime never resolves them; the simulated libcuda.so.1 implements and exports them.
// ACCEL_CUDA_MODULE_TYPES(T): every type declared here, by its cuda.h name; abi/check proves
// each the same size and alignment as cuda.h's, and maps it for the PFN checks.
// ACCEL_CUDA_MODULE_CONSTANTS(C): every enumerator declared here; abi/check proves each the
// same value as cuda.h's.

#ifndef ACCEL_CUDA_DRIVER_FRAGMENT_
#error "include accel_abi/cuda_driver.h, not its fragments"
#endif

namespace accel::cuda_abi {

struct CUlib_st;
using CUlibrary = CUlib_st*;
struct CUkern_st;
using CUkernel = CUkern_st*;
struct CUlinkState_st;
using CUlinkState = CUlinkState_st*;

enum CUjit_option : int {
  CU_JIT_MAX_REGISTERS = 0,
  CU_JIT_THREADS_PER_BLOCK = 1,
  CU_JIT_WALL_TIME = 2,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
  CU_JIT_TARGET_FROM_CUCONTEXT = 8,
  CU_JIT_TARGET = 9,
  CU_JIT_FALLBACK_STRATEGY = 10,
  CU_JIT_GENERATE_DEBUG_INFO = 11,
  CU_JIT_LOG_VERBOSE = 12,
  CU_JIT_GENERATE_LINE_INFO = 13,
  CU_JIT_CACHE_MODE = 14,
  CU_JIT_NEW_SM3X_OPT = 15,
  CU_JIT_FAST_COMPILE = 16,
  CU_JIT_GLOBAL_SYMBOL_NAMES = 17,
  CU_JIT_GLOBAL_SYMBOL_ADDRESSES = 18,
  CU_JIT_GLOBAL_SYMBOL_COUNT = 19,
  CU_JIT_LTO = 20,
  CU_JIT_FTZ = 21,
  CU_JIT_PREC_DIV = 22,
  CU_JIT_PREC_SQRT = 23,
  CU_JIT_FMA = 24,
  CU_JIT_REFERENCED_KERNEL_NAMES = 25,
  CU_JIT_REFERENCED_KERNEL_COUNT = 26,
  CU_JIT_REFERENCED_VARIABLE_NAMES = 27,
  CU_JIT_REFERENCED_VARIABLE_COUNT = 28,
  CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES = 29,
  CU_JIT_POSITION_INDEPENDENT_CODE = 30,
  CU_JIT_MIN_CTA_PER_SM = 31,
  CU_JIT_MAX_THREADS_PER_BLOCK = 32,
  CU_JIT_OVERRIDE_DIRECTIVE_VALUES = 33,
  CU_JIT_SPLIT_COMPILE = 34,
  CU_JIT_NUM_OPTIONS,
};

enum CUjitInputType : int {
  CU_JIT_INPUT_CUBIN = 0,
  CU_JIT_INPUT_PTX = 1,
  CU_JIT_INPUT_FATBINARY = 2,
  CU_JIT_INPUT_OBJECT = 3,
  CU_JIT_INPUT_LIBRARY = 4,
  CU_JIT_INPUT_NVVM = 5,
  CU_JIT_NUM_INPUT_TYPES = 6,
};

enum CUlibraryOption : int {
  CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE = 0,
  CU_LIBRARY_BINARY_IS_PRESERVED = 1,
  CU_LIBRARY_NUM_OPTIONS,
};

enum CUmoduleLoadingMode : int {
  CU_MODULE_EAGER_LOADING = 0x1,
  CU_MODULE_LAZY_LOADING = 0x2,
};

enum CUfunctionLoadingState : int {
  CU_FUNCTION_LOADING_STATE_UNLOADED = 0,
  CU_FUNCTION_LOADING_STATE_LOADED = 1,
  CU_FUNCTION_LOADING_STATE_MAX,
};

enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
  CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
  CU_FUNC_ATTRIBUTE_MAX,
};

enum CUoccupancy_flags : int {
  CU_OCCUPANCY_DEFAULT = 0x0,
  CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE = 0x1,
};

// The dynamic shared memory a block of `block_size` threads needs (cuOccupancyMaxPotential-
// BlockSize); CUDA_CB is the default calling convention on Linux.
using CUoccupancyB2DSize = std::size_t (*)(int block_size);

enum CUlaunchAttributeID : int {
  CU_LAUNCH_ATTRIBUTE_IGNORE = 0,
  CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1,
  CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 2,
  CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY = 3,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4,
  CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6,
  CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT = 7,
  CU_LAUNCH_ATTRIBUTE_PRIORITY = 8,
  CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP = 9,
  CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN = 10,
  CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION = 11,
  CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT = 12,
  CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE = 13,
  CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 14,
  CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING = 16,
};

// cuda.h's union is 64 bytes (its first member is `char pad[64]`); the members the
// simulation reads are declared, the rest are covered by the pad.
union CUlaunchAttributeValue {
  char pad[64];
  int cooperative;
  struct {
    unsigned int x;
    unsigned int y;
    unsigned int z;
  } clusterDim;
  int clusterSchedulingPolicyPreference;
  int programmaticStreamSerializationAllowed;
  struct {
    CUevent event;
    int flags;
    int triggerAtBlockStart;
  } programmaticEvent;
  struct {
    CUevent event;
    int flags;
  } launchCompletionEvent;
  int priority;
  unsigned int sharedMemCarveout;
};

struct CUlaunchAttribute {
  CUlaunchAttributeID id;
  char pad[8 - sizeof(CUlaunchAttributeID)];
  CUlaunchAttributeValue value;
};

struct CUlaunchConfig {
  unsigned int gridDimX;
  unsigned int gridDimY;
  unsigned int gridDimZ;
  unsigned int blockDimX;
  unsigned int blockDimY;
  unsigned int blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute* attrs;
  unsigned int numAttrs;
};

}  // namespace accel::cuda_abi

#define ACCEL_CUDA_MODULE_TYPES(T) \
  T(CUlibrary)                     \
  T(CUkernel)                      \
  T(CUlinkState)                   \
  T(CUjit_option)                  \
  T(CUjitInputType)                \
  T(CUlibraryOption)               \
  T(CUmoduleLoadingMode)           \
  T(CUfunctionLoadingState)        \
  T(CUfunction_attribute)          \
  T(CUoccupancy_flags)             \
  T(CUoccupancyB2DSize)            \
  T(CUlaunchAttributeID)           \
  T(CUlaunchAttributeValue)        \
  T(CUlaunchAttribute)             \
  T(CUlaunchConfig)

#define ACCEL_CUDA_MODULE_CONSTANTS(C)                        \
  C(CU_JIT_MAX_REGISTERS)                                     \
  C(CU_JIT_THREADS_PER_BLOCK)                                 \
  C(CU_JIT_WALL_TIME)                                         \
  C(CU_JIT_INFO_LOG_BUFFER)                                   \
  C(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)                        \
  C(CU_JIT_ERROR_LOG_BUFFER)                                  \
  C(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)                       \
  C(CU_JIT_OPTIMIZATION_LEVEL)                                \
  C(CU_JIT_TARGET_FROM_CUCONTEXT)                             \
  C(CU_JIT_TARGET)                                            \
  C(CU_JIT_FALLBACK_STRATEGY)                                 \
  C(CU_JIT_GENERATE_DEBUG_INFO)                               \
  C(CU_JIT_LOG_VERBOSE)                                       \
  C(CU_JIT_GENERATE_LINE_INFO)                                \
  C(CU_JIT_CACHE_MODE)                                        \
  C(CU_JIT_NEW_SM3X_OPT)                                      \
  C(CU_JIT_FAST_COMPILE)                                      \
  C(CU_JIT_GLOBAL_SYMBOL_NAMES)                               \
  C(CU_JIT_GLOBAL_SYMBOL_ADDRESSES)                           \
  C(CU_JIT_GLOBAL_SYMBOL_COUNT)                               \
  C(CU_JIT_LTO)                                               \
  C(CU_JIT_FTZ)                                               \
  C(CU_JIT_PREC_DIV)                                          \
  C(CU_JIT_PREC_SQRT)                                         \
  C(CU_JIT_FMA)                                               \
  C(CU_JIT_REFERENCED_KERNEL_NAMES)                           \
  C(CU_JIT_REFERENCED_KERNEL_COUNT)                           \
  C(CU_JIT_REFERENCED_VARIABLE_NAMES)                         \
  C(CU_JIT_REFERENCED_VARIABLE_COUNT)                         \
  C(CU_JIT_OPTIMIZE_UNUSED_DEVICE_VARIABLES)                  \
  C(CU_JIT_POSITION_INDEPENDENT_CODE)                         \
  C(CU_JIT_MIN_CTA_PER_SM)                                    \
  C(CU_JIT_MAX_THREADS_PER_BLOCK)                             \
  C(CU_JIT_OVERRIDE_DIRECTIVE_VALUES)                         \
  C(CU_JIT_SPLIT_COMPILE)                                     \
  C(CU_JIT_NUM_OPTIONS)                                       \
  C(CU_JIT_INPUT_CUBIN)                                       \
  C(CU_JIT_INPUT_PTX)                                         \
  C(CU_JIT_INPUT_FATBINARY)                                   \
  C(CU_JIT_INPUT_OBJECT)                                      \
  C(CU_JIT_INPUT_LIBRARY)                                     \
  C(CU_JIT_INPUT_NVVM)                                        \
  C(CU_JIT_NUM_INPUT_TYPES)                                   \
  C(CU_LIBRARY_HOST_UNIVERSAL_FUNCTION_AND_DATA_TABLE)        \
  C(CU_LIBRARY_BINARY_IS_PRESERVED)                           \
  C(CU_LIBRARY_NUM_OPTIONS)                                   \
  C(CU_MODULE_EAGER_LOADING)                                  \
  C(CU_MODULE_LAZY_LOADING)                                   \
  C(CU_FUNCTION_LOADING_STATE_UNLOADED)                       \
  C(CU_FUNCTION_LOADING_STATE_LOADED)                         \
  C(CU_FUNCTION_LOADING_STATE_MAX)                            \
  C(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)                  \
  C(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)                      \
  C(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)                       \
  C(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)                       \
  C(CU_FUNC_ATTRIBUTE_NUM_REGS)                               \
  C(CU_FUNC_ATTRIBUTE_PTX_VERSION)                            \
  C(CU_FUNC_ATTRIBUTE_BINARY_VERSION)                         \
  C(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA)                          \
  C(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)          \
  C(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)       \
  C(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET)               \
  C(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH)                 \
  C(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT)                \
  C(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)                 \
  C(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED)      \
  C(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)   \
  C(CU_FUNC_ATTRIBUTE_MAX)                                    \
  C(CU_OCCUPANCY_DEFAULT)                                     \
  C(CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)                    \
  C(CU_LAUNCH_ATTRIBUTE_IGNORE)                               \
  C(CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW)                 \
  C(CU_LAUNCH_ATTRIBUTE_COOPERATIVE)                          \
  C(CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY)               \
  C(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)                    \
  C(CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) \
  C(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION)    \
  C(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT)                   \
  C(CU_LAUNCH_ATTRIBUTE_PRIORITY)                             \
  C(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP)                  \
  C(CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN)                      \
  C(CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION)          \
  C(CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT)              \
  C(CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE)         \
  C(CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)     \
  C(CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING)

// Loading (Note [Module images] in mockdev/src/cuda/module_image.h): the module calls, the
// CUDA 12 library API (context-independent: a library loads into a context when first used
// there), the JIT linker; then a function's attributes, occupancy (computed from the
// device's attributes and the function's), and the launch forms. Loading is legal during
// capture (cuda.h lists no module call as capture-unsafe [inferred]); launches are captured
// like cuLaunchKernel.
#define ACCEL_CUDA_MODULE_ROWS_(R, P, X, E)                                                        \
  R(X, E, cuModuleLoad, 2000, cuModuleLoad, (CUmodule * module, const char* fname),                \
    (module, fname), kNeedsInit | kLegalInCapture)                                                 \
  R(X, E, cuModuleLoadDataEx, 2010, cuModuleLoadDataEx,                                            \
    (CUmodule * module, const void* image, unsigned int num_options, CUjit_option* options,        \
     void** option_values),                                                                        \
    (module, image, num_options, options, option_values), kNeedsInit | kLegalInCapture)            \
  R(X, E, cuModuleLoadFatBinary, 2000, cuModuleLoadFatBinary,                                      \
    (CUmodule * module, const void* fat_cubin), (module, fat_cubin), kNeedsInit | kLegalInCapture) \
  R(X, E, cuModuleGetGlobal, 3020, cuModuleGetGlobal_v2,                                           \
    (CUdeviceptr * dptr, std::size_t * bytes, CUmodule hmod, const char* name),                    \
    (dptr, bytes, hmod, name), kNeedsInit | kLegalInCapture)                                       \
  R(X, E, cuModuleGetFunctionCount, 12040, cuModuleGetFunctionCount,                               \
    (unsigned int* count, CUmodule mod), (count, mod), kNeedsInit | kLegalInCapture)               \
  R(X, E, cuModuleEnumerateFunctions, 12040, cuModuleEnumerateFunctions,                           \
    (CUfunction * functions, unsigned int num_functions, CUmodule mod),                            \
    (functions, num_functions, mod), kNeedsInit | kLegalInCapture)                                 \
  R(X, E, cuModuleGetLoadingMode, 11070, cuModuleGetLoadingMode, (CUmoduleLoadingMode * mode),     \
    (mode), kNeedsInit | kLegalInCapture)                                                          \
  R(X, E, cuLibraryLoadData, 12000, cuLibraryLoadData,                                             \
    (CUlibrary * library, const void* code, CUjit_option* jit_options, void** jit_options_values,  \
     unsigned int num_jit_options, CUlibraryOption* library_options, void** library_option_values, \
     unsigned int num_library_options),                                                            \
    (library, code, jit_options, jit_options_values, num_jit_options, library_options,             \
     library_option_values, num_library_options),                                                  \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLibraryLoadFromFile, 12000, cuLibraryLoadFromFile,                                     \
    (CUlibrary * library, const char* file_name, CUjit_option* jit_options,                        \
     void** jit_options_values, unsigned int num_jit_options, CUlibraryOption* library_options,    \
     void** library_option_values, unsigned int num_library_options),                              \
    (library, file_name, jit_options, jit_options_values, num_jit_options, library_options,        \
     library_option_values, num_library_options),                                                  \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLibraryUnload, 12000, cuLibraryUnload, (CUlibrary library), (library),                 \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLibraryGetKernel, 12000, cuLibraryGetKernel,                                           \
    (CUkernel * kernel, CUlibrary library, const char* name), (kernel, library, name),             \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLibraryGetKernelCount, 12040, cuLibraryGetKernelCount,                                 \
    (unsigned int* count, CUlibrary lib), (count, lib), kNeedsInit | kLegalInCapture)              \
  R(X, E, cuLibraryEnumerateKernels, 12040, cuLibraryEnumerateKernels,                             \
    (CUkernel * kernels, unsigned int num_kernels, CUlibrary lib), (kernels, num_kernels, lib),    \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLibraryGetModule, 12000, cuLibraryGetModule, (CUmodule * module, CUlibrary library),   \
    (module, library), kNeedsInit | kLegalInCapture)                                               \
  R(X, E, cuLibraryGetGlobal, 12000, cuLibraryGetGlobal,                                           \
    (CUdeviceptr * dptr, std::size_t * bytes, CUlibrary library, const char* name),                \
    (dptr, bytes, library, name), kNeedsInit | kLegalInCapture)                                    \
  R(X, E, cuLibraryGetManaged, 12000, cuLibraryGetManaged,                                         \
    (CUdeviceptr * dptr, std::size_t * bytes, CUlibrary library, const char* name),                \
    (dptr, bytes, library, name), kNeedsInit | kLegalInCapture)                                    \
  R(X, E, cuKernelGetFunction, 12000, cuKernelGetFunction,                                         \
    (CUfunction * function, CUkernel kernel), (function, kernel), kNeedsInit | kLegalInCapture)    \
  R(X, E, cuKernelGetLibrary, 12050, cuKernelGetLibrary, (CUlibrary * library, CUkernel kernel),   \
    (library, kernel), kNeedsInit | kLegalInCapture)                                               \
  R(X, E, cuKernelGetName, 12030, cuKernelGetName, (const char** name, CUkernel kernel),           \
    (name, kernel), kNeedsInit | kLegalInCapture)                                                  \
  R(X, E, cuKernelGetParamInfo, 12040, cuKernelGetParamInfo,                                       \
    (CUkernel kernel, std::size_t param_index, std::size_t * param_offset,                         \
     std::size_t * param_size),                                                                    \
    (kernel, param_index, param_offset, param_size), kNeedsInit | kLegalInCapture)                 \
  R(X, E, cuKernelGetAttribute, 12000, cuKernelGetAttribute,                                       \
    (int* value, CUfunction_attribute attribute, CUkernel kernel, CUdevice dev),                   \
    (value, attribute, kernel, dev), kNeedsInit | kLegalInCapture)                                 \
  R(X, E, cuKernelSetAttribute, 12000, cuKernelSetAttribute,                                       \
    (CUfunction_attribute attribute, int value, CUkernel kernel, CUdevice dev),                    \
    (attribute, value, kernel, dev), kNeedsInit | kLegalInCapture)                                 \
  R(X, E, cuKernelSetCacheConfig, 12000, cuKernelSetCacheConfig,                                   \
    (CUkernel kernel, CUfunc_cache config, CUdevice dev), (kernel, config, dev),                   \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLinkCreate, 6050, cuLinkCreate_v2,                                                     \
    (unsigned int num_options, CUjit_option* options, void** option_values,                        \
     CUlinkState* state_out),                                                                      \
    (num_options, options, option_values, state_out), kNeedsInit | kLegalInCapture)                \
  R(X, E, cuLinkAddData, 6050, cuLinkAddData_v2,                                                   \
    (CUlinkState state, CUjitInputType type, void* data, std::size_t size, const char* name,       \
     unsigned int num_options, CUjit_option* options, void** option_values),                       \
    (state, type, data, size, name, num_options, options, option_values),                          \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLinkAddFile, 6050, cuLinkAddFile_v2,                                                   \
    (CUlinkState state, CUjitInputType type, const char* path, unsigned int num_options,           \
     CUjit_option* options, void** option_values),                                                 \
    (state, type, path, num_options, options, option_values), kNeedsInit | kLegalInCapture)        \
  R(X, E, cuLinkComplete, 5050, cuLinkComplete,                                                    \
    (CUlinkState state, void** cubin_out, std::size_t* size_out), (state, cubin_out, size_out),    \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuLinkDestroy, 5050, cuLinkDestroy, (CUlinkState state), (state),                        \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuFuncGetAttribute, 2020, cuFuncGetAttribute,                                            \
    (int* value, CUfunction_attribute attribute, CUfunction function),                             \
    (value, attribute, function), kNeedsInit | kLegalInCapture)                                    \
  R(X, E, cuFuncSetAttribute, 9000, cuFuncSetAttribute,                                            \
    (CUfunction function, CUfunction_attribute attribute, int value),                              \
    (function, attribute, value), kNeedsInit | kLegalInCapture)                                    \
  R(X, E, cuFuncSetCacheConfig, 3000, cuFuncSetCacheConfig,                                        \
    (CUfunction function, CUfunc_cache config), (function, config), kNeedsInit | kLegalInCapture)  \
  R(X, E, cuFuncGetModule, 11000, cuFuncGetModule, (CUmodule * module, CUfunction function),       \
    (module, function), kNeedsInit | kLegalInCapture)                                              \
  R(X, E, cuFuncGetName, 12030, cuFuncGetName, (const char** name, CUfunction function),           \
    (name, function), kNeedsInit | kLegalInCapture)                                                \
  R(X, E, cuFuncGetParamInfo, 12040, cuFuncGetParamInfo,                                           \
    (CUfunction function, std::size_t param_index, std::size_t * param_offset,                     \
     std::size_t * param_size),                                                                    \
    (function, param_index, param_offset, param_size), kNeedsInit | kLegalInCapture)               \
  R(X, E, cuFuncIsLoaded, 12040, cuFuncIsLoaded,                                                   \
    (CUfunctionLoadingState * state, CUfunction function), (state, function),                      \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuFuncLoad, 12040, cuFuncLoad, (CUfunction function), (function),                        \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050,                                       \
    cuOccupancyMaxActiveBlocksPerMultiprocessor,                                                   \
    (int* num_blocks, CUfunction function, int block_size, std::size_t dynamic_smem_size),         \
    (num_blocks, function, block_size, dynamic_smem_size), kNeedsInit | kLegalInCapture)           \
  R(X, E, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, 7000,                              \
    cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags,                                          \
    (int* num_blocks, CUfunction function, int block_size, std::size_t dynamic_smem_size,          \
     unsigned int flags),                                                                          \
    (num_blocks, function, block_size, dynamic_smem_size, flags), kNeedsInit | kLegalInCapture)    \
  R(X, E, cuOccupancyMaxPotentialBlockSize, 6050, cuOccupancyMaxPotentialBlockSize,                \
    (int* min_grid_size, int* block_size, CUfunction function,                                     \
     CUoccupancyB2DSize block_size_to_dynamic_smem_size, std::size_t dynamic_smem_size,            \
     int block_size_limit),                                                                        \
    (min_grid_size, block_size, function, block_size_to_dynamic_smem_size, dynamic_smem_size,      \
     block_size_limit),                                                                            \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuOccupancyMaxPotentialBlockSizeWithFlags, 7000,                                         \
    cuOccupancyMaxPotentialBlockSizeWithFlags,                                                     \
    (int* min_grid_size, int* block_size, CUfunction function,                                     \
     CUoccupancyB2DSize block_size_to_dynamic_smem_size, std::size_t dynamic_smem_size,            \
     int block_size_limit, unsigned int flags),                                                    \
    (min_grid_size, block_size, function, block_size_to_dynamic_smem_size, dynamic_smem_size,      \
     block_size_limit, flags),                                                                     \
    kNeedsInit | kLegalInCapture)                                                                  \
  R(X, E, cuOccupancyAvailableDynamicSMemPerBlock, 10020, cuOccupancyAvailableDynamicSMemPerBlock, \
    (std::size_t * dynamic_smem_size, CUfunction function, int num_blocks, int block_size),        \
    (dynamic_smem_size, function, num_blocks, block_size), kNeedsInit | kLegalInCapture)           \
  R(X, E, cuOccupancyMaxPotentialClusterSize, 11070, cuOccupancyMaxPotentialClusterSize,           \
    (int* cluster_size, CUfunction function, const CUlaunchConfig* config),                        \
    (cluster_size, function, config), kNeedsInit | kLegalInCapture)                                \
  R(X, E, cuOccupancyMaxActiveClusters, 11070, cuOccupancyMaxActiveClusters,                       \
    (int* num_clusters, CUfunction function, const CUlaunchConfig* config),                        \
    (num_clusters, function, config), kNeedsInit | kLegalInCapture)                                \
  P(X, E, cuLaunchKernelEx, 11060, cuLaunchKernelEx,                                               \
    (const CUlaunchConfig* config, CUfunction function, void** params, void** extra),              \
    (config, function, params, extra), kNeedsInit | kTouchesDevice | kLegalInCapture, 11060,       \
    _ptsz)                                                                                         \
  P(X, E, cuLaunchCooperativeKernel, 9000, cuLaunchCooperativeKernel,                              \
    (CUfunction function, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,           \
     unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes,  \
     CUstream stream, void** params),                                                              \
    (function, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes, stream, params),   \
    kNeedsInit | kTouchesDevice | kLegalInCapture, 9000, _ptsz)
