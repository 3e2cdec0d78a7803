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

#include <cstdint>
#include <optional>

#include "accel/detail/thread_device_cache.h"

namespace accel {

class DeviceIndexGuard {
 public:
  // Throws what exchange_device() throws; on a throw nothing was changed.
  // Each path writes every member exactly once (no default member initialisers), which
  // keeps the fast path to a handful of instructions.
  explicit DeviceIndexGuard(std::optional<int> device_index) {
    if (!device_index) {  // device_index(None): nothing, not even initialisation
      target_ = -1;
      original_ = -1;
      entry_key_ = detail::kNeverMatchingKey;
      return;
    }
    const int index = *device_index;
    if (static_cast<unsigned>(index) <= detail::kMaxCachedIndex) [[likely]] {
      const std::uint64_t key = detail::current_thread_device_key(index);
      if (detail::t_thread_device_key == key) [[likely]] {
        target_ = index;
        original_ = index;
        entry_key_ = key;
        return;
      }
    }
    enter(index);
  }
  // When the thread still holds the key it had on entry, the original device is current:
  // nothing to restore. Otherwise (a switch, a changed cache, an empty guard) decide out of
  // line.
  ~DeviceIndexGuard() {
    if (detail::t_thread_device_key == entry_key_) [[likely]]
      return;
    if (target_ >= 0) leave();
  }

  DeviceIndexGuard(const DeviceIndexGuard&) = delete;
  DeviceIndexGuard& operator=(const DeviceIndexGuard&) = delete;
  DeviceIndexGuard(DeviceIndexGuard&&) = delete;
  DeviceIndexGuard& operator=(DeviceIndexGuard&&) = delete;

  // The index that was current before the guard (nullopt for an empty guard).
  std::optional<int> original_index() const noexcept {
    return target_ < 0 ? std::nullopt : std::optional<int>(original_);
  }
  // The index the guard selected (nullopt for an empty guard).
  std::optional<int> target_index() const noexcept {
    return target_ < 0 ? std::nullopt : std::optional<int>(target_);
  }

 private:
  void enter(int device_index);  // exchange_device(), out of line; sets every member
  void leave() noexcept;         // maybe_exchange_device(), out of line, never throws

  // -1 for an empty guard (device indices are never negative once selected).
  int target_;
  int original_;
  // The thread's key on a fast-path entry (the original device current and unchanged);
  // kNeverMatchingKey after a real switch, so that leaving restores.
  std::uint64_t entry_key_;
};

}  // namespace accel
