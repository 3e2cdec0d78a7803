// WORK IN PROGRESS -- deleted before the streams work lands. Entry points of
// ACCEL_CUDA_DRIVER_TABLE whose implementation is being written (kernels: the race
// detector's part, which adds them on top of cuda::submit); each answers
// CUDA_ERROR_NOT_SUPPORTED until its real body replaces it here, so that the mock libcuda
// keeps loading with RTLD_NOW in the meantime.

#include "cuda/driver_api.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::cuda::impl {

CUresult cuModuleLoadData(CUmodule * module, const void* image) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuModuleUnload(CUmodule module) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuModuleGetFunction(CUfunction * function, CUmodule module, const char* name) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z, unsigned int block_x, unsigned int block_y, unsigned int block_z, unsigned int shared_bytes, CUstream stream, void** params, void** extra) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace mockdev::cuda::impl
