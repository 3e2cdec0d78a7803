#pragma once
// The runtime's devices and contexts (spec cuda_runtime.md §1.2-1.5): per host thread the
// selected device (0 until cudaSetDevice), per device the primary context the runtime
// retained and whether it is active.
//
// Note [Implicit primary contexts]
// To the runtime a device is its primary context. A call that needs a context
// (require_context) uses the context current to the calling thread when there is one (a
// context the program created with the driver API included); when none is current it
// retains the selected device's primary context, makes it current and initialises it, as
// CUDA 12+ does. cudaSetDevice does that at once for its device. The runtime holds one
// retain per device: cudaDeviceReset resets the primary context (cuDevicePrimaryCtxReset),
// which ends that retain; the context stays current wherever it was, and the next
// context-needing call retains it again. Flags set with cudaSetDeviceFlags go to the driver
// (cuDevicePrimaryCtxSetFlags_v2), which keeps them for the next activation.
// Thread-safe; never throws.

#include "driver.h"

namespace accel::cudart {

// The driver's handle of device `ordinal`; cudaErrorInvalidDevice outside [0, count).
[[nodiscard]] cudaError_t device_handle(const DriverTable& d, int ordinal, drv::CUdevice* dev);

// The context every context-needing call runs on (Note [Implicit primary contexts]):
// cudaSuccess with `*device` (ordinal) and optionally `*ctx`.
[[nodiscard]] cudaError_t require_context(const DriverTable& d, int* device,
                                          drv::CUcontext* ctx = nullptr);

// The active primary context of `ordinal`, retained (activated) if it was not: what
// cudaSetDevice and cudaInitDevice initialise, and the peer of the peer-access calls.
[[nodiscard]] cudaError_t primary_context(const DriverTable& d, int ordinal, drv::CUcontext* ctx);

// The device the calling thread's runtime calls act on without initialising anything: the
// current context's device, else the thread's selected device. `*foreign` (optional) is set
// when the current context is not a primary context of the runtime's.
[[nodiscard]] cudaError_t current_device(const DriverTable& d, int* device,
                                         bool* foreign = nullptr);

// The calling thread's selected device.
void select_device(int ordinal) noexcept;

// Forgets that the primary context of `ordinal` is active (after cuDevicePrimaryCtxReset).
void mark_reset(int ordinal) noexcept;

}  // namespace accel::cudart
