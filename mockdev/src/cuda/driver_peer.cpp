// Peer queries and peer access of the simulated driver (declared in driver_api.h), over the
// machine's topology (Topology in mockdev/machine.h, the `topology:` section).
//
// Note [Peer access]
// Which pairs can be peers, and over what, is the topology's, in physical devices; the
// entry points take visible ordinals (CUDA_VISIBLE_DEVICES reorders them) and contexts,
// whose physical device is known. A device is never its own peer (cuDeviceCanAccessPeer
// answers 0 for dev == peer, as the driver does). Enabled access is kept per pair of
// devices in CudaState::peer_access (a created context shares its device's pairs, decision
// 199); releasing a primary context's last retain drops every pair its device is part of. Choices marked [inferred] are listed for the next GPU
// machine in docs/HARDWARE.md, "Device attributes and peers".

#include "core/engine.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"

namespace mockdev::cuda {

void drop_peer_access(int physical) {
  std::set<std::pair<int, int>>& pairs = cuda_state().peer_access;
  std::erase_if(pairs, [physical](const std::pair<int, int>& p) {
    return p.first == physical || p.second == physical;
  });
}

namespace {

PeerLinkSpec link_between(int a, int b) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (a == b) return {};
  return core::engine().machine.topology.between(a, b);
}

// The peer context of cuCtxEnablePeerAccess / cuCtxDisablePeerAccess: a context this
// machine handed out and that is still retained. [inferred] A released (destroyed) peer
// context is CUDA_ERROR_INVALID_CONTEXT, like one never handed out.
bool usable_peer(const CUctx_st* peer) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return peer != nullptr && is_registered(peer) && peer->refcount > 0;
}

}  // namespace

namespace impl {

CUresult cuDeviceCanAccessPeer(int* can_access, CUdevice device, CUdevice peer) {
  if (can_access == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> d = physical_device(device);
  std::optional<int> p = physical_device(peer);
  if (!d || !p) return CUDA_ERROR_INVALID_DEVICE;
  *can_access = link_between(*d, *p).link != PeerLink::kNone ? 1 : 0;
  return CUDA_SUCCESS;
}

// [inferred] Argument order: the pointer, then the devices (CUDA_ERROR_INVALID_DEVICE,
// also for src == dst), then the attribute (CUDA_ERROR_INVALID_VALUE).
CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute attrib, CUdevice src,
                                 CUdevice dst) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> s = physical_device(src);
  std::optional<int> d = physical_device(dst);
  if (!s || !d || *s == *d) return CUDA_ERROR_INVALID_DEVICE;
  const PeerLinkSpec link = link_between(*s, *d);
  const bool peers = link.link != PeerLink::kNone;
  switch (attrib) {
    case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
      *value = peers ? link.performance_rank : 0;
      return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
      *value = peers ? 1 : 0;
      return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
      *value = peers && link.native_atomics ? 1 : 0;
      return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
      // [inferred] Arrays are reachable over NVLink only.
      *value = link.link == PeerLink::kNvlink ? 1 : 0;
      return CUDA_SUCCESS;
    case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
      *value = 0;  // a simulated link supports every atomic or none
      return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// Order of checks [inferred]: the current context (CUDA_ERROR_INVALID_CONTEXT, or
// CUDA_ERROR_CONTEXT_IS_DESTROYED when it was released), flags, the peer context, the
// peer on the current context's own device (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, as the H100
// answered for the current context itself: Recording 2), the topology
// (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED), then a second enable
// (CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED).
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (!usable_peer(peer)) return CUDA_ERROR_INVALID_CONTEXT;
  const int from = current.ctx->physical_device;
  const int to = peer->physical_device;
  if (from == to) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;  // a device is not its own peer
  if (link_between(from, to).link == PeerLink::kNone) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  if (!cuda_state().peer_access.insert({from, to}).second)
    return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  return CUDA_SUCCESS;
}

CUresult cuCtxDisablePeerAccess(CUcontext peer) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (!usable_peer(peer)) return CUDA_ERROR_INVALID_CONTEXT;
  if (cuda_state().peer_access.erase({current.ctx->physical_device, peer->physical_device}) == 0)
    return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
