// WORK IN PROGRESS -- deleted before the streams work lands. Entry points of
// ACCEL_CUDA_DRIVER_TABLE whose implementation is being written (peer); each answers
// CUDA_ERROR_NOT_SUPPORTED until its real body replaces it here, so that the mock libcuda
// keeps loading with RTLD_NOW in the meantime.

#include "cuda/driver_api.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::cuda::impl {

CUresult cuDeviceCanAccessPeer(int* can_access, CUdevice device, CUdevice peer) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice src, CUdevice dst) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuCtxDisablePeerAccess(CUcontext peer) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace mockdev::cuda::impl
