#pragma once
// How the CUDA backend turns a failed CUresult into a Status.
//
// Message: "<operation>: CUDA error: <cuGetErrorString text> (device=<i>, driver=<NAME>)"
// (device omitted when the call concerns none). Kind: kOutOfMemory for
// CUDA_ERROR_OUT_OF_MEMORY, kUnavailable for CUDA_ERROR_NO_DEVICE, kDriver otherwise; the
// detail carries the device, the code and its name. Stateless; thread-safe.

#include <optional>
#include <string_view>

#include "backends/cuda/cuda_driver_library.h"
#include "spi/status.h"

namespace accel::detail::cuda {

Status driver_status(const DriverLibrary& driver, int code, std::string_view operation,
                     std::optional<int> device = std::nullopt);

}  // namespace accel::detail::cuda
