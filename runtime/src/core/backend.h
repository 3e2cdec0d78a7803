#pragma once
// The backend SPI: what the runtime core needs from one vendor driver stack.
//
// One Backend instance serves the whole process (the core owns it). It talks to the
// vendor's driver through the driver's C ABI only, and never throws: every method returns
// Status/Result, and must be safe to call in a forked child (where the core normally
// stops calls first) and from destructors. The core, not the backend, owns lazy
// initialisation, fork poisoning, argument resolution and the per-thread cache of the
// current device index; a backend only does what its driver does.
//
// Thread safety: every method may be called concurrently from several threads. The
// "current device" methods act on the calling thread only.
//
// Contract of the device-index methods, per thread (mirrors c10's DeviceGuardImpl and
// CUDA's SetDevice/MaybeSetDevice):
//   set_device(i)        makes i current, creating its context if needed.
//   maybe_set_device(i)  makes i current only if its context already exists; otherwise
//                        records i as this thread's target and reports it from
//                        current_device(), applying it on the next set_device-like use.
//   current_device()     the thread's device: its target if one is recorded, else the
//                        device of its current context, else 0.
// Callers have checked 0 <= i < device_count() except where noted.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "accel/accelerator.h"
#include "accel/device.h"
#include "core/status.h"

namespace accel::detail {

class Backend {
 public:
  virtual ~Backend() = default;

  virtual DeviceType type() const noexcept = 0;
  // "cuda"
  virtual std::string name() const = 0;

  // Counts visible devices without initialising the driver (CUDA: NVML with
  // CUDA_VISIBLE_DEVICES applied). -1 when it cannot answer that way. Reads the
  // environment on every call. Fork-safe.
  virtual int fork_safe_device_count() noexcept = 0;

  // Counts visible devices through the driver: initialises the driver (cuInit) but not the
  // runtime. 0 with a reason in the Status when there is no driver or no device.
  virtual Result<int> driver_device_count() noexcept = 0;

  // Brings the driver up for use: loads and initialises it and learns the device count.
  // Idempotent; fails (kUnavailable / kDriver) when no device can be used.
  virtual Status initialize() noexcept = 0;

  // The device count learned by initialize(). Requires a successful initialize().
  virtual int device_count() const noexcept = 0;

  virtual Status set_device(int index) noexcept = 0;
  virtual Status maybe_set_device(int index) noexcept = 0;
  virtual Result<int> current_device() noexcept = 0;

  virtual Result<DeviceProperties> device_properties(int index) noexcept = 0;
  virtual Result<MemoryInfo> memory_info(int index) noexcept = 0;
  // Blocks until all work on `index` is done.
  virtual Status synchronize_device(int index) noexcept = 0;

  // Diagnostics for accel info; never initialises the driver. Fills every field of
  // BackendReport except `backend` and `compiled_backends`, which the core sets.
  virtual BackendReport report() noexcept = 0;
};

}  // namespace accel::detail
