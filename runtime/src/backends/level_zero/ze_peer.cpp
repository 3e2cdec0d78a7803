// The Level Zero backend's peer queries (spi/backend.h: can_access_peer, peer_link).
#include <string>

#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_status.h"

namespace accel::detail::level_zero {
namespace {

// A failed peer query as the backend's error: "<operation>: <call> (peer=<p>)".
Status peer_query_failed(ze_result_t rc, const char* operation, int index, int peer) noexcept {
  try {
    return ze_status(rc, std::string(operation) + " (peer=" + std::to_string(peer) + ")", index);
  } catch (...) {
    return host_out_of_memory();
  }
}

}  // namespace

// zeDeviceCanAccessPeer answers for the pair as the driver's topology says; a device is not
// its own peer (false, as the CUDA driver answers and the SPI asks), so the driver is not
// asked then.
Result<bool> LevelZeroBackend::can_access_peer(int index, int peer) noexcept {
  if (index == peer) return false;
  ze_bool_t value = 0;
  const ze_result_t rc =
      api().zeDeviceCanAccessPeer(device(index).handle, device(peer).handle, &value);
  if (rc != ZE_RESULT_SUCCESS) {
    return peer_query_failed(rc, "can_device_access_peer: zeDeviceCanAccessPeer", index, peer);
  }
  return value != 0;
}

// zeDeviceGetP2PProperties' flags; the API reports no performance rank.
Result<PeerLinkInfo> LevelZeroBackend::peer_link(int index, int peer) noexcept {
  ze_device_p2p_properties_t properties{};
  properties.stype = ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES;
  const ze_result_t rc =
      api().zeDeviceGetP2PProperties(device(index).handle, device(peer).handle, &properties);
  if (rc != ZE_RESULT_SUCCESS) {
    return peer_query_failed(rc, "peer_link_info: zeDeviceGetP2PProperties", index, peer);
  }
  return PeerLinkInfo{(properties.flags & ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS) != 0,
                      (properties.flags & ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS) != 0, std::nullopt};
}

}  // namespace accel::detail::level_zero
