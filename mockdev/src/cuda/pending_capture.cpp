// WORK IN PROGRESS -- deleted before the streams work lands. Entry points of
// ACCEL_CUDA_DRIVER_TABLE whose implementation is being written (capture); each answers
// CUDA_ERROR_NOT_SUPPORTED until its real body replaces it here, so that the mock libcuda
// keeps loading with RTLD_NOW in the meantime.

#include "cuda/driver_api.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace mockdev::cuda::impl {

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  return CUDA_ERROR_NOT_SUPPORTED;
}

}  // namespace mockdev::cuda::impl
