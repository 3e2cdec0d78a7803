// Compile-time proof that the registration rows of nvcc's generated code
// (__cudaRegisterFatBinary .. __cudaPopCallConfiguration, ACCEL_CUDART_NVCC_TABLE in
// accel_abi/cuda_runtime.h) have the function types of the toolkit's crt/host_runtime.h. That
// header declares them only for the stub nvcc generates, which includes it after
// cuda_runtime.h with __CUDA_INTERNAL_COMPILATION__ set: this file includes it the same way
// (abi/CMakeLists.txt compiles it with the toolkit's folder as a system include, whose
// internal-header warnings are not ours). cudart_nvcc_abi_check.cu proves the other rows of
// that table. Nothing here runs.

#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <type_traits>
#define __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__
#define __CUDA_INTERNAL_COMPILATION__
#include <crt/host_runtime.h>
#undef __CUDA_INTERNAL_COMPILATION__
#undef __CUDA_INCLUDE_COMPILER_INTERNAL_HEADERS__

#include "accel_abi/cuda_runtime.h"
#include "to_toolkit.h"

namespace abi = accel::cudart_abi;
namespace drv = accel::cuda_abi;
using accel::abi_check::to_toolkit_t;

ACCEL_ABI_MAP_TYPE(drv::CUstream_st, ::CUstream_st)
ACCEL_ABI_MAP_TYPE(drv::CUkern_st, ::CUkern_st)
ACCEL_ABI_MAP_TYPE(abi::cudaError, ::cudaError)
ACCEL_ABI_MAP_TYPE(abi::uint3, ::uint3)
ACCEL_ABI_MAP_TYPE(abi::dim3, ::dim3)

namespace {

#define CHECK_ROW(ret, name, params, args, traits)                                       \
  static_assert(std::is_same_v<to_toolkit_t<abi::PFN_cudart_##name>, decltype(&::name)>, \
                "function type differs from crt/host_runtime.h: " #name);
CHECK_ROW(, __cudaRegisterFatBinary, , , )
CHECK_ROW(, __cudaRegisterFatBinaryEnd, , , )
CHECK_ROW(, __cudaUnregisterFatBinary, , , )
CHECK_ROW(, __cudaRegisterFunction, , , )
CHECK_ROW(, __cudaRegisterVar, , , )
CHECK_ROW(, __cudaRegisterManagedVar, , , )
CHECK_ROW(, __cudaInitModule, , , )
CHECK_ROW(, __cudaPopCallConfiguration, , , )
#undef CHECK_ROW

}  // namespace
