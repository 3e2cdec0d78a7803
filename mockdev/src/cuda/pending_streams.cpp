// WORK IN PROGRESS -- deleted before the streams work lands. Entry points of
// ACCEL_CUDA_DRIVER_TABLE whose implementation is being written (streams); each answers
// CUDA_ERROR_NOT_SUPPORTED until its real body replaces it here, so that the mock libcuda
// keeps loading with RTLD_NOW in the meantime.

#include "cuda/driver_api.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::cuda::impl {

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventCreate(CUevent * event, unsigned int flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned int flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventQuery(CUevent event) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventSynchronize(CUevent event) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventDestroy(CUevent event) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuEventElapsedTime(float* milliseconds, CUevent start, CUevent end) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemAllocHost(void** pointer, std::size_t bytes) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemHostAlloc(void** pointer, std::size_t bytes, unsigned int flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemFreeHost(void* pointer) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemHostRegister(void* pointer, std::size_t bytes, unsigned int flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemHostUnregister(void* pointer) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, std::size_t bytes) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, std::size_t bytes) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, std::size_t bytes) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, std::size_t bytes, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

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
