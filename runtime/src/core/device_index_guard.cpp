// DeviceIndexGuard: exchange on entry, maybe-exchange on exit.
#include "accel/device_index_guard.h"

#include <cstdio>
#include <exception>

#include "accel/accelerator.h"
#include "core/thread_device.h"

namespace accel {

DeviceIndexGuard::DeviceIndexGuard(std::optional<int> device_index) {
  if (!device_index) return;  // device_index(None): nothing, not even initialisation
  original_ = exchange_device(*device_index);
  target_ = device_index;
}

DeviceIndexGuard::~DeviceIndexGuard() {
  if (!target_) return;
  try {
    maybe_exchange_device(*original_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel: DeviceIndexGuard: failed to restore device %d: %s\n", *original_,
                 e.what());
    detail::remember_thread_device_after_failed_restore(*original_);
  } catch (...) {
    std::fprintf(stderr, "accel: DeviceIndexGuard: failed to restore device %d\n", *original_);
    detail::remember_thread_device_after_failed_restore(*original_);
  }
}

}  // namespace accel
