#pragma once
// FakeMachine: the state behind MockBackend's default actions — a 4-device (by default)
// accelerator whose per-thread current device and primary contexts behave as the
// Backend SPI contract describes (set_device / maybe_set_device / current_device).
//
// Ownership: shared between a MockBackend and the test (std::shared_ptr), so a test can
// inspect contexts after handing the backend to the runtime. Thread safety: every member
// may be called from any thread; per-thread state is keyed by std::this_thread::get_id().

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "accel/accelerator.h"
#include "spi/status.h"

namespace accel::test {

class FakeMachine {
 public:
  static constexpr std::size_t kMemoryBytes = std::size_t{80} << 30;

  explicit FakeMachine(int device_count = 4) : device_count_(device_count) {}

  int device_count() const noexcept { return device_count_; }

  // "CUDA error: invalid device ordinal" (kDriver) unless 0 <= index < device_count().
  detail::Status set_device(int index);
  // Switches only when `index` already has a context; otherwise records it as the
  // thread's target device (what current_device() then reports).
  detail::Status maybe_set_device(int index);
  // The thread's target if recorded, else its current device (0 on a new thread).
  int current_device();

  detail::Result<DeviceProperties> device_properties(int index) const;
  // Compute capability 9.0: every dtype supported.
  detail::Result<DeviceCapability> device_capability(int index) const;
  detail::Result<MemoryInfo> memory_info(int index);

  // Devices that have a primary context (created by set_device / memory_info).
  std::set<int> contexts() const;
  // "GPU-0000000<i>-1111-2222-3333-444444444444".
  static std::string uuid(int index);

 private:
  struct ThreadState {
    int current = 0;
    std::optional<int> target;
  };
  detail::Status check_index(int index) const;

  const int device_count_;
  mutable std::mutex mutex_;
  std::map<std::thread::id, ThreadState> threads_;
  std::set<int> contexts_;
};

}  // namespace accel::test
