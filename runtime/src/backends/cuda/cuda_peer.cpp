// The CUDA backend's peer capability (Backend::can_access_peer): cuDeviceCanAccessPeer on
// the visible devices' driver handles. Needs no context and changes none.
#include "backends/cuda/cuda_backend_impl.h"

namespace accel::detail::cuda {

Result<bool> CudaBackend::can_access_peer(int index, int peer) noexcept {
  try {
    int can_access = 0;
    const int rc =
        library().api().cuDeviceCanAccessPeer(&can_access, devices_[index], devices_[peer]);
    if (rc != accel::cuda_abi::CUDA_SUCCESS) {
      return driver_status(library(), rc, "can_device_access_peer: cuDeviceCanAccessPeer", index);
    }
    return can_access != 0;
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace accel::detail::cuda
