#pragma once
// `accel topo`: the peer matrix of the devices of the backend serving the process, in the
// shape of `nvidia-smi topo -p2p r` (decision 209): one row and one column per device,
// each cell the driver's own answer to "can this device access that one's memory"
// (accel::can_device_access_peer: cuDeviceCanAccessPeer under cuda, zeDeviceCanAccessPeer
// under xpu), then the link matrix: each cell the driver's description of the link
// (accel::peer_link_info: cuDeviceGetP2PAttribute's performance rank and native atomics
// under cuda, zeDeviceGetP2PProperties' flags under xpu), each with its legend, then the
// devices' names.
//
// collect_topo() initialises the runtime (the answers need the driver), as any program
// asking would; a pair whose query fails gets "ERR" and its error is listed at the end,
// never ends the report. nvidia-smi topo -m's PCIe path kinds (PIX, PXB, PHB, SYS) are not
// shown: no driver API this project serves answers them (decision 216). Call from one
// thread.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "accel/peer_link.h"

namespace accel::tools {

struct TopoReport {
  std::string backend;             // the backend serving the process
  std::vector<std::string> names;  // one per device; "-" when its query failed
  // peer[i][j]: whether device i can access device j's memory (i != j); nullopt when the
  // query failed (the error is in `errors`) and on the diagonal.
  std::vector<std::vector<std::optional<bool>>> peer;
  // links[i][j]: the driver's description of the link from i to j; nullopt as for `peer`.
  std::vector<std::vector<std::optional<PeerLinkInfo>>> links;
  std::vector<std::string> errors;  // "GPU0 -> GPU1: <accel::Error text>"
};

// The matrix of every pair of visible devices. Throws accel::Error when the runtime
// cannot be used at all (the caller reports it as `accel info` does).
TopoReport collect_topo();

// The two matrices with their legends, then "GPU<i>: <name>" per device and any errors.
void render_topo(const TopoReport& report, std::ostream& out);

}  // namespace accel::tools
