#pragma once
// The CUDA backend's peer capability (Backend::can_access_peer): cuDeviceCanAccessPeer
// through the resolved driver table. Stateless; thread-safe.

#include "backends/cuda/driver_library.h"
#include "spi/status.h"

namespace accel::detail::cuda {

// Whether visible device `index` (driver handle `device`) can access `peer` (handle
// `peer_device`). A driver failure is a Status naming the operation and `index`.
Result<bool> can_access_peer(const DriverLibrary& driver, int index,
                             accel::cuda_abi::CUdevice device,
                             accel::cuda_abi::CUdevice peer_device) noexcept;

}  // namespace accel::detail::cuda
