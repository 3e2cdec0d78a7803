// The Level Zero backend's peer query (spi/backend.h: can_access_peer).
#include <string>

#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_status.h"

namespace accel::detail::level_zero {

// zeDeviceCanAccessPeer answers for the pair as the driver's topology says; a device is not
// its own peer (false, as the CUDA driver answers and the SPI asks), so the driver is not
// asked then.
Result<bool> LevelZeroBackend::can_access_peer(int index, int peer) noexcept {
  if (index == peer) return false;
  ze_bool_t value = 0;
  const ze_result_t rc =
      api().zeDeviceCanAccessPeer(device(index).handle, device(peer).handle, &value);
  if (rc != ZE_RESULT_SUCCESS) {
    try {
      return ze_status(rc, "can_access_peer: zeDeviceCanAccessPeer (peer=" +
                               std::to_string(peer) + ")", index);
    } catch (...) {
      return host_out_of_memory();
    }
  }
  return value != 0;
}

}  // namespace accel::detail::level_zero
