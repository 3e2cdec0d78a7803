#pragma once
// The CUDA backend: the Backend SPI (spi/backend.h) over the CUDA driver API, resolved at
// run time (cuda_driver_library.h), with fork-safe counting through NVML
// (cuda_nvml_library.h).
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
// Thread safety: as Backend requires. The driver and NVML are loaded on first use without
// a lock: a thread that finds nothing loaded loads the library and publishes the result
// with a compare-and-swap (a loser discards its copy; dlopen is reference-counted and the
// files are never closed). So the paths a forked child may still take (the fork-safe
// count, report()) hold no lock a fork could catch, and the backend needs no fork hooks:
// its other locks (initialisation, primary contexts) are only taken on paths the core
// closes in a poisoned child, and a child of a parent that never attempted initialisation
// cannot inherit them held (Note [Fork safety]).
// Capabilities: device, memory_info, synchronize_device, streams, events and graphs, peers,
// raw, virtual and pinned host memory. The class and the file of each concern:
// cuda_backend_impl.h.

#include <memory>
#include <optional>
#include <string>

#include "spi/backend.h"

namespace accel::detail::cuda {

// Which files to load. A path given here is chosen by code and is treated like the default
// name when it does not work (no driver: kUnavailable); a path from ACCEL_CUDA_DRIVER /
// ACCEL_NVML_LIBRARY is the user's configuration, and one that does not work is kConfig
// naming the variable (Note [Misconfiguration is an error] in accel/accelerator.h).
// An empty variable counts as unset.
struct CudaBackendPaths {
  std::optional<std::string> driver;  // unset: ACCEL_CUDA_DRIVER, else "libcuda.so.1"
  std::optional<std::string> nvml;    // unset: ACCEL_NVML_LIBRARY, else "libnvidia-ml.so.1"
};

// A new CUDA backend. Loads nothing until first used; the paths are fixed at first use.
std::unique_ptr<Backend> create_cuda_backend(CudaBackendPaths paths = {});

// create_cuda_backend() with the environment's paths: the factory the generated registry
// table names (core/backend_registry.h).
std::unique_ptr<Backend> make_backend();

}  // namespace accel::detail::cuda
