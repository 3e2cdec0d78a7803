#pragma once
// The CUDA backend: the Backend SPI (core/backend.h) over the CUDA driver API, resolved at
// run time (driver_library.h), with fork-safe counting through NVML (nvml_library.h).
//
// It never includes cuda.h and never links libcuda: the driver file is chosen at run time
// (ACCEL_CUDA_DRIVER, default "libcuda.so.1"), so the same binary runs on a GPU machine,
// on the simulated hardware (mockdev's libcuda.so.1) and with no driver at all (no
// device; every device call fails with the reason).
//
// Per-thread device state follows CUDA >= 12 and c10: the current device is the thread's
// current context; set_device retains the device's primary context (once per device,
// kept for the life of the backend: primary contexts are never released, which is what
// the CUDA runtime does too) and makes it current; maybe_set_device switches only when the
// device's primary context is already active, otherwise it records a thread-local
// "target" that current_device() reports and the next set_device() clears.
// memory_info/synchronize_device switch the calling thread to the device's primary
// context for the call and switch back.
// Thread safety: as Backend requires. Loading the driver and NVML is done once, under a
// lock; afterwards the count path is lock-free (Note [Fork-safe device count]).

#include <memory>
#include <optional>
#include <string>

#include "core/backend.h"

namespace accel::detail::cuda {

struct CudaBackendPaths {
  std::optional<std::string> driver;  // unset: ACCEL_CUDA_DRIVER, else "libcuda.so.1"
  std::optional<std::string> nvml;    // unset: ACCEL_NVML_LIBRARY, else "libnvidia-ml.so.1"
};

// A new CUDA backend. Loads nothing until first used; the paths are fixed at first use.
std::unique_ptr<Backend> create_cuda_backend(CudaBackendPaths paths = {});

}  // namespace accel::detail::cuda
