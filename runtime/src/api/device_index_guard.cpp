// DeviceIndexGuard's out-of-line paths: exchange on entry, maybe-exchange on exit. The
// inline fast paths in the header cover a guard whose index is already current.
#include "accel/device_index_guard.h"

#include <cstdio>
#include <exception>

#include "accel/accelerator.h"
#include "spi/thread_device.h"

namespace accel {

void DeviceIndexGuard::enter(int device_index) {
  target_ = -1;  // should exchange_device() throw, no destructor runs; be tidy anyway
  entry_key_ = detail::kNeverMatchingKey;
  original_ = exchange_device(device_index);
  target_ = device_index;
}

void DeviceIndexGuard::leave() noexcept {
  try {
    maybe_exchange_device(original_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: DeviceIndexGuard: failed to restore device %d: %s\n", original_,
                 e.what());
    detail::remember_thread_device_after_failed_restore(original_);
  } catch (...) {
    std::fprintf(stderr, "accel: DeviceIndexGuard: failed to restore device %d\n", original_);
    detail::remember_thread_device_after_failed_restore(original_);
  }
}

}  // namespace accel
