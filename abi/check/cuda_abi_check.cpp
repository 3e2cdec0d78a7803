// Compile-time proof that abi/include/accel_abi/cuda_driver.h matches the toolkit.
//
// Built only where CMake finds the CUDA toolkit. It includes the toolkit's cuda.h and
// cudaTypedefs.h next to the project's own declarations and checks that every CUresult
// value is the same number and every PFN_* type is the same function type once the
// project's spellings are mapped to the toolkit's. A mismatch fails the build with the
// name of the entry point. The object file is empty: nothing here runs.

#include <cuda.h>
#include <cudaTypedefs.h>

#include <type_traits>

#include "accel_abi/cuda_driver.h"

namespace {

namespace abi = accel::cuda_abi;

// Maps a type spelled with the project's declarations to the toolkit's spelling.
template <class T>
struct ToToolkit {
  using type = T;
};
template <class T>
using to_toolkit_t = typename ToToolkit<T>::type;

template <>
struct ToToolkit<abi::CUresult> {
  using type = ::CUresult;
};
template <>
struct ToToolkit<abi::CUctx_st> {
  using type = ::CUctx_st;
};
template <>
struct ToToolkit<abi::CUuuid> {
  using type = ::CUuuid;
};
template <>
struct ToToolkit<abi::CUdevice_attribute> {
  using type = ::CUdevice_attribute;
};
template <>
struct ToToolkit<abi::CUdriverProcAddressQueryResult> {
  using type = ::CUdriverProcAddressQueryResult;
};
template <class T>
struct ToToolkit<T*> {
  using type = to_toolkit_t<T>*;
};
template <class T>
struct ToToolkit<const T> {
  using type = const to_toolkit_t<T>;
};
template <class R, class... A>
struct ToToolkit<R (*)(A...)> {
  using type = to_toolkit_t<R> (*)(to_toolkit_t<A>...);
};

#define CHECK_RESULT(name, value)                                          \
  static_assert(static_cast<int>(abi::name) == static_cast<int>(::name), \
                "CUresult value differs from cuda.h: " #name);
ACCEL_CUDA_RESULTS(CHECK_RESULT)
#undef CHECK_RESULT

#define CHECK_ENTRY_POINT(name, version, symbol, params)                            \
  static_assert(std::is_same_v<to_toolkit_t<abi::PFN_##name##_v##version>,         \
                               ::PFN_##name##_v##version>,                          \
                "function type differs from cudaTypedefs.h: " #name " v" #version);
ACCEL_CUDA_ENTRY_POINTS(CHECK_ENTRY_POINT)
#undef CHECK_ENTRY_POINT

static_assert(std::is_same_v<to_toolkit_t<abi::PFN_cuGetProcAddress_v12000>,
                             ::PFN_cuGetProcAddress_v12000>);
static_assert(std::is_same_v<to_toolkit_t<abi::PFN_cuGetProcAddress_v11030>,
                             ::PFN_cuGetProcAddress_v11030>);
static_assert(std::is_same_v<abi::CUdevice, ::CUdevice>);
static_assert(std::is_same_v<abi::CUdeviceptr, ::CUdeviceptr>);
static_assert(std::is_same_v<abi::cuuint64_t, ::cuuint64_t>);
static_assert(sizeof(abi::CUuuid) == sizeof(::CUuuid));
static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) ==
              static_cast<int>(::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) ==
              static_cast<int>(::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) ==
              static_cast<int>(::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_INTEGRATED) ==
              static_cast<int>(::CU_DEVICE_ATTRIBUTE_INTEGRATED));
static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) ==
              static_cast<int>(::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID));
static_assert(static_cast<int>(abi::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID) ==
              static_cast<int>(::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID));
static_assert(static_cast<int>(abi::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT) ==
              static_cast<int>(::CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT));
static_assert(static_cast<int>(abi::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND) ==
              static_cast<int>(::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND));
static_assert(abi::kCudaAbiVersion <= CUDA_VERSION);

}  // namespace
