// accel::can_device_access_peer (accel/accelerator.h): torch.cuda.can_device_access_peer
// over the backend's peer capability; accel::peer_link_info (accel/peer_link.h) the same way.
//
// PyTorch's order: initialise (so a poisoned fork child gets ForkError first, whatever the
// arguments), resolve `device` (the current device when empty) and `peer`, check both
// against the device count ("Invalid device id" / "Invalid peer device id", raised as
// AssertionError there; kIndex here, with the value), then ask the driver. dev == peer is
// the driver's answer (false), not a special case here.

#include <string>

#include "accel/accelerator.h"
#include "accel/peer_link.h"
#include "core/device_resolution.h"
#include "core/runtime.h"

namespace accel {
namespace {

void check_peer_index(int index, int count, const char* what) {
  if (index >= 0 && index < count) return;
  ErrorDetail detail;
  detail.device = index;
  throw Error(ErrorKind::kIndex,
              std::string(what) + ": " + std::to_string(index) +
                  " (device_count=" + std::to_string(count) + ")",
              detail);
}

struct PeerPair {
  detail::RuntimeState& state;
  int index;
  int peer;
};

PeerPair resolve_pair(DeviceArg device, DeviceArg peer) {
  detail::RuntimeState& state = detail::current_state();
  detail::ensure_initialized(state);  // ForkError in a poisoned child, before anything else
  const int index = detail::resolve_device_index(device, /*optional=*/true);
  const int peer_index = detail::resolve_device_index(peer, /*optional=*/false);
  const int count = state.device_count();
  check_peer_index(index, count, "Invalid device id");
  check_peer_index(peer_index, count, "Invalid peer device id");
  return {state, index, peer_index};
}

}  // namespace

bool can_device_access_peer(DeviceArg device, DeviceArg peer) {
  const PeerPair p = resolve_pair(device, peer);
  return detail::check(p.state.backend()->can_access_peer(p.index, p.peer));
}

PeerLinkInfo peer_link_info(DeviceArg device, DeviceArg peer) {
  const PeerPair p = resolve_pair(device, peer);
  if (p.index == p.peer) return PeerLinkInfo{};
  return detail::check(p.state.backend()->peer_link(p.index, p.peer));
}

}  // namespace accel
