// Compile-time proof that the rows of nvcc's generated code (ACCEL_CUDART_NVCC_TABLE in
// accel_abi/cuda_runtime.h) have the function types the toolkit declares. The toolkit
// declares them only for nvcc's own compilation: __cudaPushCallConfiguration, __cudaGetKernel
// and __cudaLaunchKernel(_ptsz) in crt/device_functions.h under __CUDACC__ (this file, which
// nvcc compiles: abi/CMakeLists.txt), the registration rows in crt/host_runtime.h, which only
// nvcc's generated stub includes (cudart_host_runtime_check.cpp includes it as the stub
// does). Together they name every NVCC row (the count below); cudart_abi_check.cpp proves
// every other row. A mismatch fails the build naming the row. Nothing here runs.

#include <type_traits>

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
                "function type differs from the toolkit's crt/ headers: " #name);
CHECK_ROW(, __cudaPushCallConfiguration, , , )
CHECK_ROW(, __cudaGetKernel, , , )
CHECK_ROW(, __cudaLaunchKernel, , , )
CHECK_ROW(, __cudaLaunchKernel_ptsz, , , )
#undef CHECK_ROW

// 4 rows here, 8 in cudart_host_runtime_check.cpp: a new row must be checked in one of them.
#define COUNT_ROW(ret, name, params, args, traits) +1
static_assert(0 ACCEL_CUDART_NVCC_TABLE(COUNT_ROW) == 4 + 8,
              "a row of nvcc's generated code is not checked: add it here or to "
              "cudart_host_runtime_check.cpp");
#undef COUNT_ROW

static_assert(sizeof(abi::dim3) == sizeof(::dim3) && alignof(abi::dim3) == alignof(::dim3));
static_assert(sizeof(abi::uint3) == sizeof(::uint3));

}  // namespace
