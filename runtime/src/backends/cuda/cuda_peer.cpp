// The CUDA backend's peer capability (cuda_peer.h).

#include "backends/cuda/cuda_peer.h"

#include "backends/cuda/cuda_status.h"

namespace accel::detail::cuda {

Result<bool> can_access_peer(const DriverLibrary& driver, int index,
                             accel::cuda_abi::CUdevice device,
                             accel::cuda_abi::CUdevice peer_device) noexcept {
  try {
    int can_access = 0;
    const int rc = driver.api().cuDeviceCanAccessPeer(&can_access, device, peer_device);
    if (rc != accel::cuda_abi::CUDA_SUCCESS) {
      return driver_status(driver, rc, "can_device_access_peer: cuDeviceCanAccessPeer", index);
    }
    return can_access != 0;
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace accel::detail::cuda
