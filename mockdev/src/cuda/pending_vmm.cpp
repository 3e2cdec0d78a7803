// WORK IN PROGRESS -- deleted before the allocator work lands. The virtual-memory entry
// points of ACCEL_CUDA_DRIVER_TABLE whose implementation is being written; each answers
// CUDA_ERROR_NOT_SUPPORTED until its real body replaces it here, so that the mock libcuda
// keeps loading with RTLD_NOW in the meantime.

#include "cuda/driver_api.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::cuda::impl {

CUresult cuMemGetAllocationGranularity(std::size_t* granularity, const CUmemAllocationProp* prop,
                                       CUmemAllocationGranularity_flags option) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemAddressReserve(CUdeviceptr* ptr, std::size_t size, std::size_t alignment,
                             CUdeviceptr addr, unsigned long long flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemAddressFree(CUdeviceptr ptr, std::size_t size) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, std::size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemRelease(CUmemGenericAllocationHandle handle) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuMemMap(CUdeviceptr ptr, std::size_t size, std::size_t offset,
                  CUmemGenericAllocationHandle handle, unsigned long long flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuMemUnmap(CUdeviceptr ptr, std::size_t size) { return CUDA_ERROR_NOT_SUPPORTED; }
CUresult cuMemSetAccess(CUdeviceptr ptr, std::size_t size, const CUmemAccessDesc* desc,
                        std::size_t count) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace mockdev::cuda::impl
