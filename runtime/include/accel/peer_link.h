#pragma once
// What the driver says of the link between two devices, beyond torch.cuda's
// can_device_access_peer: whether native atomics work over it and, where the API has one,
// its performance rank. An accel extension (PyTorch has no such query); `accel topo` draws
// its link matrix from it.
//
//   CUDA        cuDeviceGetP2PAttribute: ACCESS_SUPPORTED, NATIVE_ATOMIC_SUPPORTED,
//               PERFORMANCE_RANK (a relative value, lower is faster)
//   Level Zero  zeDeviceGetP2PProperties: ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS, _ATOMICS; the
//               API has no rank (performance_rank is nullopt)

#include <optional>

#include "accel/device.h"

namespace accel {

struct PeerLinkInfo {
  bool access_supported = false;  // the row's device can access the peer's memory
  bool native_atomics = false;    // atomic operations over the link are native
  std::optional<int> performance_rank;  // CUDA only; nullopt where the API has no rank

  friend bool operator==(const PeerLinkInfo&, const PeerLinkInfo&) = default;
};

// The link from `device` to `peer`, as the driver describes it. Initialises; creates no
// context. Argument and index errors as can_device_access_peer (accel/accelerator.h);
// device == peer is every field false and no rank (a device is not its own peer), without
// asking the driver. A backend without peers: accel::Error kUnsupported.
PeerLinkInfo peer_link_info(DeviceArg device, DeviceArg peer);

}  // namespace accel
