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

#include <optional>

namespace accel {

class DeviceIndexGuard {
 public:
  // Throws what exchange_device() throws; on a throw nothing was changed.
  explicit DeviceIndexGuard(std::optional<int> device_index);
  ~DeviceIndexGuard();

  DeviceIndexGuard(const DeviceIndexGuard&) = delete;
  DeviceIndexGuard& operator=(const DeviceIndexGuard&) = delete;
  DeviceIndexGuard(DeviceIndexGuard&&) = delete;
  DeviceIndexGuard& operator=(DeviceIndexGuard&&) = delete;

  // The index that was current before the guard (nullopt for an empty guard).
  std::optional<int> original_index() const noexcept { return original_; }
  // The index the guard selected (nullopt for an empty guard).
  std::optional<int> target_index() const noexcept { return target_; }

 private:
  std::optional<int> target_;
  std::optional<int> original_;
};

}  // namespace accel
