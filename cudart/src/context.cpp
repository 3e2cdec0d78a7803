#include "context.h"

#include <array>
#include <atomic>
#include <mutex>

#include "api.h"

namespace accel::cudart {
namespace {

// Devices beyond this many are served without the runtime's bookkeeping (no machine the
// driver reports has more: CUDA's own limit on visible devices is far below).
constexpr int kMaxDevices = 64;

// Note [Lock-free primary lookup]
// Every context-needing call asks which primary context (if any) is current, so that lookup
// reads without the mutex: the fields are atomics written under g_mutex (release) and read
// with acquire loads, and the scan stops at g_primary_end (one past the highest ordinal ever
// retained) instead of kMaxDevices. A call racing with cudaDeviceReset on another thread
// sees the state before or after it, as with the mutex.
struct PrimaryState {
  std::atomic<drv::CUcontext> context{nullptr};  // the primary context, once retained
  std::atomic<bool> active{false};               // the runtime holds a live retain of it
};

std::mutex g_mutex;
std::array<PrimaryState, kMaxDevices> g_primary{};
std::atomic<int> g_primary_end{0};
thread_local int t_selected_device = 0;

bool in_table(int ordinal) { return ordinal >= 0 && ordinal < kMaxDevices; }

PrimaryState& state_of(int ordinal) { return g_primary[static_cast<std::size_t>(ordinal)]; }

// The ordinal whose primary context is `ctx`, or -1 (Note [Lock-free primary lookup]).
int primary_ordinal(drv::CUcontext ctx) {
  const int end = g_primary_end.load(std::memory_order_acquire);
  for (int i = 0; i < end; ++i) {
    if (state_of(i).context.load(std::memory_order_acquire) == ctx) return i;
  }
  return -1;
}

}  // namespace

cudaError_t device_handle(const DriverTable& d, int ordinal, drv::CUdevice* dev) {
  int count = 0;
  if (const cudaError_t e = call(d.cuDeviceGetCount, &count); e != cudaSuccess) return e;
  if (ordinal < 0 || ordinal >= count) return cudaErrorInvalidDevice;
  return call(d.cuDeviceGet, dev, ordinal);
}

cudaError_t primary_context(const DriverTable& d, int ordinal, drv::CUcontext* ctx) {
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(d, ordinal, &dev); e != cudaSuccess) return e;
  if (!in_table(ordinal)) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(g_mutex);
  PrimaryState& state = state_of(ordinal);
  if (!state.active.load(std::memory_order_relaxed)) {
    drv::CUcontext retained = nullptr;
    if (const cudaError_t e = call(d.cuDevicePrimaryCtxRetain, &retained, dev); e != cudaSuccess) {
      return e;
    }
    state.context.store(retained, std::memory_order_release);
    state.active.store(true, std::memory_order_release);
    if (g_primary_end.load(std::memory_order_relaxed) <= ordinal) {
      g_primary_end.store(ordinal + 1, std::memory_order_release);
    }
  }
  *ctx = state.context.load(std::memory_order_relaxed);
  return cudaSuccess;
}

cudaError_t require_context(const DriverTable& d, int* device, drv::CUcontext* ctx) {
  drv::CUcontext current = nullptr;
  if (const cudaError_t e = call(d.cuCtxGetCurrent, &current); e != cudaSuccess) return e;
  int ordinal = current != nullptr ? primary_ordinal(current) : t_selected_device;
  if (current != nullptr && ordinal < 0) {
    // A context the program created with the driver API: the runtime uses it as it is.
    drv::CUdevice dev = 0;
    if (const cudaError_t e = call(d.cuCtxGetDevice, &dev); e != cudaSuccess) return e;
    *device = static_cast<int>(dev);
    if (ctx != nullptr) *ctx = current;
    return cudaSuccess;
  }
  // The common case: the runtime's own active primary context is current already, so
  // primary_context() below would neither retain nor switch (Note [Lock-free primary lookup]).
  if (current != nullptr && state_of(ordinal).active.load(std::memory_order_acquire)) {
    *device = ordinal;
    if (ctx != nullptr) *ctx = current;
    return cudaSuccess;
  }
  // No context, or a primary context of the runtime's (re-activated after a reset).
  drv::CUcontext primary = nullptr;
  if (const cudaError_t e = primary_context(d, ordinal, &primary); e != cudaSuccess) return e;
  if (primary != current) {
    if (const cudaError_t e = call(d.cuCtxSetCurrent, primary); e != cudaSuccess) return e;
  }
  *device = ordinal;
  if (ctx != nullptr) *ctx = primary;
  return cudaSuccess;
}

cudaError_t current_device(const DriverTable& d, int* device, bool* foreign) {
  drv::CUcontext current = nullptr;
  if (const cudaError_t e = call(d.cuCtxGetCurrent, &current); e != cudaSuccess) return e;
  if (foreign != nullptr) *foreign = false;
  if (current == nullptr) {
    *device = t_selected_device;
    return cudaSuccess;
  }
  if (const int ordinal = primary_ordinal(current); ordinal >= 0) {
    *device = ordinal;
    return cudaSuccess;
  }
  if (foreign != nullptr) *foreign = true;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = call(d.cuCtxGetDevice, &dev); e != cudaSuccess) return e;
  *device = static_cast<int>(dev);
  return cudaSuccess;
}

void select_device(int ordinal) noexcept { t_selected_device = ordinal; }

void mark_reset(int ordinal) noexcept {
  if (!in_table(ordinal)) return;
  std::lock_guard<std::mutex> lock(g_mutex);
  state_of(ordinal).active.store(false, std::memory_order_release);
}

namespace impl {

cudaError_t cudaSetDevice(int device) {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUcontext primary = nullptr;
  if (const cudaError_t e = primary_context(*d, device, &primary); e != cudaSuccess) return e;
  if (const cudaError_t e = call(d->cuCtxSetCurrent, primary); e != cudaSuccess) return e;
  select_device(device);
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (device == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  return current_device(*d, device);
}

cudaError_t cudaInitDevice(int device, unsigned int device_flags, unsigned int flags) {
  if ((flags & ~kInitDeviceFlagsAreValid) != 0) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  if ((flags & kInitDeviceFlagsAreValid) != 0) {
    if ((device_flags & ~kDeviceMask) != 0) return cudaErrorInvalidValue;
    if (const cudaError_t e = call(d->cuDevicePrimaryCtxSetFlags_v2, dev, device_flags);
        e != cudaSuccess) {
      return e;
    }
  }
  drv::CUcontext primary = nullptr;
  return primary_context(*d, device, &primary);
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  // Bits outside cudaDeviceMask, or two scheduling bits at once (spec §1.3, bit rule
  // [inferred]).
  const unsigned schedule = flags & kDeviceScheduleMask;
  if ((flags & ~kDeviceMask) != 0 ||
      (schedule != kDeviceScheduleAuto && schedule != kDeviceScheduleSpin &&
       schedule != kDeviceScheduleYield && schedule != kDeviceScheduleBlockingSync)) {
    return cudaErrorInvalidValue;
  }
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  int device = 0;
  bool foreign = false;
  if (const cudaError_t e = current_device(*d, &device, &foreign); e != cudaSuccess) return e;
  if (foreign) return cudaErrorSetOnActiveProcess;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  // cudaDeviceLmemResizeToMax is deprecated and always on: the driver gets it as given.
  if (const cudaError_t e = call(d->cuDevicePrimaryCtxSetFlags_v2, dev, flags); e != cudaSuccess) {
    return e;
  }
  // With no device current, a default device is selected and initialised with them.
  return require_context(*d, &device);
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  if (flags == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  int device = 0;
  bool foreign = false;
  if (const cudaError_t e = current_device(*d, &device, &foreign); e != cudaSuccess) return e;
  unsigned value = 0;
  if (foreign) {
    if (const cudaError_t e = call(d->cuCtxGetFlags, &value); e != cudaSuccess) return e;
  } else {
    drv::CUdevice dev = 0;
    if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
    int active = 0;
    if (const cudaError_t e = call(d->cuDevicePrimaryCtxGetState, dev, &value, &active);
        e != cudaSuccess) {
      return e;
    }
  }
  // Runtime contexts always support mapped pinned memory (spec §1.3): reported [inferred].
  *flags = value | kDeviceMapHost;
  return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
  const DriverTable* d = nullptr;
  if (const cudaError_t e = load_driver(&d); e != cudaSuccess) return e;
  int device = 0;
  bool foreign = false;
  if (const cudaError_t e = current_device(*d, &device, &foreign); e != cudaSuccess) return e;
  // With a created context current only the runtime's state for it goes: it has none yet.
  if (foreign) return cudaSuccess;
  drv::CUdevice dev = 0;
  if (const cudaError_t e = device_handle(*d, device, &dev); e != cudaSuccess) return e;
  if (const cudaError_t e = call(d->cuDevicePrimaryCtxReset_v2, dev); e != cudaSuccess) return e;
  mark_reset(device);
  return cudaSuccess;
}

}  // namespace impl
}  // namespace accel::cudart
