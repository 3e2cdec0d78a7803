#pragma once
// The Level Zero backend (device type xpu, ACCEL_BACKEND=xpu): the Backend SPI
// (spi/backend.h) over the real Level Zero loader, opened at run time
// (ze_loader_library.h: ACCEL_LEVEL_ZERO_LOADER, default "libze_loader.so.1"), so the runtime
// starts where libze1 is absent (xpu is then unavailable, with the reason in report()).
// It follows the Level Zero specification, Intel's driver (intel/compute-runtime) where
// the specification is silent, and PyTorch XPU's choices (c10/xpu, torch/xpu).
//
// Which devices: the first driver that has a discrete GPU, else the first with an integrated
// one (as c10/xpu/XPUFunctions.cpp); its devices are what zeDeviceGet returns, so
// ZE_FLAT_DEVICE_HIERARCHY and ZE_AFFINITY_MASK are the driver's business — the backend only
// validates their syntax first (configuration_status(): a malformed value is kConfig naming it).
// One context for all devices (as SYCL's default context).
//
// Fork-safe count (ze_counting.h): Sysman (zesInit, zesDriverGet, zesDeviceGet,
// zesDeviceGetProperties + ext properties) when the loader exports zesInit; otherwise a
// short-lived probe child that initialises, counts and reports over a pipe, with a
// bounded wait and no zombie. PyTorch's logical numbering and discrete-over-integrated rule
// (torch/xpu/__init__.py) are applied to what Sysman reports.
//
// Per-thread device: Level Zero has no current device; the backend keeps one per thread
// (set_device and maybe_set_device both just record it; there is no context to create),
// tagged with the backend instance's id so a new instance never inherits it.
//
// Thread safety and fork (spi/backend.h): the loader is loaded on first use without a
// lock (compare-and-swap publish, like the CUDA backend); the fork-safe count's cache is
// lock-free (ze_counting.h). The locks (init_mutex_, ze_init_mutex_) are taken only on paths
// the core closes in a poisoned child, after it marked the runtime fork-poisoning, so the
// backend needs no fork hooks. initialize() and driver_device_count() call zeInit at most
// once per process and, where the loader has no zesInit, set ZES_ENABLE_SYSMAN=1
// first unless the user set it (memory_info's free bytes need the legacy route).
//
// Capabilities: everything but graphs (Level Zero has no stream capture; begin_capture
// answers kUnsupported, as the conformance profile's branch explains). The class and the
// file of each concern: ze_backend_impl.h.

#include <memory>
#include <optional>
#include <string>

#include "spi/backend.h"

namespace accel::detail::level_zero {

struct LevelZeroBackendPaths {
  // unset: ACCEL_LEVEL_ZERO_LOADER, else "libze_loader.so.1". A path from the variable is
  // the user's configuration: one that does not load is kConfig naming the variable.
  std::optional<std::string> loader;
};

// A new Level Zero backend; loads nothing until first used.
std::unique_ptr<Backend> create_level_zero_backend(LevelZeroBackendPaths paths = {});

// create_level_zero_backend() with the environment's paths: the registry's factory.
std::unique_ptr<Backend> make_backend();

}  // namespace accel::detail::level_zero
