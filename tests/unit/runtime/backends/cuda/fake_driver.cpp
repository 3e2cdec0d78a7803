// A scripted fake CUDA driver for the driver-loading tests: it exports one resolver
// (cuGetProcAddress_v2 when built with FAKE_CUDA_EXPORT_V2, else only the CUDA 11.3
// cuGetProcAddress) and answers as FAKE_CUDA_MODE says, read at every call:
//   ok                    every symbol resolves; cuDriverGetVersion reports 12080
//   version_not_sufficient cuDeviceGetUuid: CUDA_SUCCESS, null pointer, VERSION_NOT_SUFFICIENT
//   null_pfn              cuMemGetInfo: CUDA_SUCCESS and status SUCCESS but a null pointer
//   resolver_error        cuCtxSynchronize: CUDA_ERROR_INVALID_VALUE
//   stub_version          cuDriverGetVersion answers CUDA_ERROR_STUB_LIBRARY
// Only cuDriverGetVersion is ever called through the resolved pointers; every other
// symbol resolves to a function that fails with CUDA_ERROR_NOT_SUPPORTED.

#include <cstdlib>
#include <cstring>

#include "accel_abi/cuda_driver.h"

using namespace accel::cuda_abi;

namespace {

const char* mode() {
  const char* value = std::getenv("FAKE_CUDA_MODE");
  return value ? value : "ok";
}
bool mode_is(const char* name) { return std::strcmp(mode(), name) == 0; }

CUresult driver_get_version(int* version) {
  if (mode_is("stub_version")) return CUDA_ERROR_STUB_LIBRARY;
  *version = 12080;
  return CUDA_SUCCESS;
}

CUresult not_supported() { return CUDA_ERROR_NOT_SUPPORTED; }

CUresult resolve(const char* symbol, void** pfn, CUdriverProcAddressQueryResult* status) {
  *pfn = nullptr;
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  if (mode_is("version_not_sufficient") && std::strcmp(symbol, "cuDeviceGetUuid") == 0) {
    if (status) *status = CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
    return CUDA_SUCCESS;
  }
  if (mode_is("null_pfn") && std::strcmp(symbol, "cuMemGetInfo") == 0) return CUDA_SUCCESS;
  if (mode_is("resolver_error") && std::strcmp(symbol, "cuCtxSynchronize") == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *pfn = std::strcmp(symbol, "cuDriverGetVersion") == 0
             ? reinterpret_cast<void*>(&driver_get_version)
             : reinterpret_cast<void*>(&not_supported);
  return CUDA_SUCCESS;
}

}  // namespace

#ifdef FAKE_CUDA_EXPORT_V2
extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(
    const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* status) {
  return resolve(symbol, pfn, status);
}
#else
extern "C" __attribute__((visibility("default"))) CUresult cuGetProcAddress(const char* symbol,
                                                                            void** pfn, int,
                                                                            cuuint64_t) {
  return resolve(symbol, pfn, nullptr);
}
#endif
