// The CUDA backend's peer capability (Backend::can_access_peer, peer_link):
// cuDeviceCanAccessPeer and cuDeviceGetP2PAttribute on the visible devices' driver handles.
// Need no context and change none.
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

Result<PeerLinkInfo> CudaBackend::peer_link(int index, int peer) noexcept {
  namespace abi = accel::cuda_abi;
  try {
    const auto attribute = [&](abi::CUdevice_P2PAttribute which, const char* name) -> Result<int> {
      int value = 0;
      const int rc = library().api().cuDeviceGetP2PAttribute(&value, which, devices_[index],
                                                             devices_[peer]);
      if (rc != abi::CUDA_SUCCESS) {
        return driver_status(library(), rc,
                             std::string("peer_link_info: cuDeviceGetP2PAttribute(") + name +
                                 ", peer=" + std::to_string(peer) + ")",
                             index);
      }
      return value;
    };
    Result<int> access = attribute(abi::CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, "ACCESS_SUPPORTED");
    if (!access.ok()) return access.status();
    Result<int> atomics =
        attribute(abi::CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, "NATIVE_ATOMIC_SUPPORTED");
    if (!atomics.ok()) return atomics.status();
    Result<int> rank = attribute(abi::CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, "PERFORMANCE_RANK");
    if (!rank.ok()) return rank.status();
    return PeerLinkInfo{access.value() != 0, atomics.value() != 0, rank.value()};
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace accel::detail::cuda
