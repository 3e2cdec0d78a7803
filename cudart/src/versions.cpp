// Version queries (spec cuda_runtime.md §1.1): the runtime's version needs no driver; the
// driver's is 0 when no libcuda.so.1 loads.

#include "api.h"
#include "driver.h"

namespace accel::cudart::impl {

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (version == nullptr) return cudaErrorInvalidValue;
  *version = kCudartVersion;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (version == nullptr) return cudaErrorInvalidValue;
  *version = driver_version_if_present();
  return cudaSuccess;
}

}  // namespace accel::cudart::impl
