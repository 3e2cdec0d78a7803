#pragma once
// DeviceIndexGuard: torch.accelerator.device_index as an RAII scope.
//
// Constructed with an index, it makes that device current on this thread and restores
// the previous one when the scope ends, whether normally or by an exception. Constructed
// with nullopt it does nothing at all and initialises nothing (PyTorch's
// `device_index(None)`). Guards nest; each remembers its own previous index. A guard is
// bound to the thread that created it: not copyable, not movable.
//
// Restoration uses maybe_exchange_device(), so leaving a scope never creates a context
// on the previous device, and never throws: a failure while restoring is reported on
// stderr and the thread's device index is still set to the previous value.
//
// Cost: entering and leaving a guard whose index is already current (the common case in
// code that guards every operation) is tested inline against the thread's cached device
// (accel/detail/thread_device_cache.h) and makes no call into the library; only a real
// switch, a first use, or a stale cache takes the out-of-line path.

#include <optional>

#include "accel/detail/thread_device_cache.h"

namespace accel {

class DeviceIndexGuard {
 public:
  // Throws what exchange_device() throws; on a throw nothing was changed.
  explicit DeviceIndexGuard(std::optional<int> device_index) {
    if (!device_index) return;  // device_index(None): nothing, not even initialisation
    if (detail::thread_device_is_current(*device_index)) [[likely]] {
      original_ = device_index;
      target_ = device_index;
      return;
    }
    enter(*device_index);
  }
  ~DeviceIndexGuard() {
    if (!target_) return;
    if (detail::thread_device_is(*original_)) [[likely]]
      return;
    leave();
  }

  DeviceIndexGuard(const DeviceIndexGuard&) = delete;
  DeviceIndexGuard& operator=(const DeviceIndexGuard&) = delete;
  DeviceIndexGuard(DeviceIndexGuard&&) = delete;
  DeviceIndexGuard& operator=(DeviceIndexGuard&&) = delete;

  // The index that was current before the guard (nullopt for an empty guard).
  std::optional<int> original_index() const noexcept { return original_; }
  // The index the guard selected (nullopt for an empty guard).
  std::optional<int> target_index() const noexcept { return target_; }

 private:
  void enter(int device_index);  // exchange_device(), out of line
  void leave() noexcept;         // maybe_exchange_device(), out of line, never throws

  std::optional<int> target_;
  std::optional<int> original_;
};

}  // namespace accel
