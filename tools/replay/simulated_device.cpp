// The replay's device (simulated_device.h).
#include "simulated_device.h"

#include <fmt/format.h>

#include <algorithm>

namespace accel::replay {

using detail::DevicePointer;
using detail::EventHandle;
using detail::PhysicalMemoryHandle;
using detail::Result;
using detail::Status;

namespace {
// Far from 0 so that a fake address is never mistaken for "none"; each range is followed
// by one unused granule so that neighbouring segments never look contiguous.
constexpr std::uint64_t kFirstAddress = std::uint64_t{0x7f} << 40;
Status out_of_memory(std::uint64_t bytes, std::uint64_t used, std::uint64_t capacity) {
  return Status(ErrorKind::kOutOfMemory,
                fmt::format("simulated device: out of memory allocating {} bytes ({} of {} in "
                            "use)",
                            bytes, used, capacity));
}
}  // namespace

SimulatedDevice::SimulatedDevice(std::uint64_t capacity, std::uint64_t granularity)
    : capacity_(capacity), granularity_(granularity), next_address_(kFirstAddress) {}

std::uint64_t SimulatedDevice::rounded(std::uint64_t bytes) const noexcept {
  return (bytes + granularity_ - 1) / granularity_ * granularity_;
}

void SimulatedDevice::take(std::uint64_t bytes) noexcept {
  used_ += bytes;
  peak_used_ = std::max(peak_used_, used_);
}

std::uint64_t SimulatedDevice::fresh_range(std::uint64_t bytes) noexcept {
  const std::uint64_t address = next_address_;
  next_address_ += rounded(bytes) + granularity_;
  return address;
}

Result<MemoryInfo> SimulatedDevice::memory_info() noexcept {
  return MemoryInfo{static_cast<std::size_t>(capacity_ - used_),
                    static_cast<std::size_t>(capacity_)};
}

Result<DevicePointer> SimulatedDevice::allocate(std::size_t bytes) noexcept {
  const std::uint64_t size = rounded(std::max<std::uint64_t>(bytes, 1));
  if (!fits(size)) return out_of_memory(bytes, used_, capacity_);
  const std::uint64_t address = fresh_range(size);
  allocations_.emplace(address, size);
  take(size);
  return DevicePointer{static_cast<std::uintptr_t>(address)};
}

Status SimulatedDevice::deallocate(DevicePointer pointer) noexcept {
  const auto it = allocations_.find(pointer.value);
  if (it == allocations_.end()) {
    return Status(ErrorKind::kValue,
                  fmt::format("simulated device: free of unknown address {:#x}", pointer.value));
  }
  used_ -= it->second;
  allocations_.erase(it);
  return {};
}

Result<EventHandle> SimulatedDevice::record_event(detail::alloc::StreamId) noexcept {
  return EventHandle{static_cast<std::uintptr_t>(next_handle_++)};
}
Result<bool> SimulatedDevice::query_event(EventHandle) noexcept { return true; }
Status SimulatedDevice::synchronize_event(EventHandle) noexcept { return {}; }
Status SimulatedDevice::destroy_event(EventHandle) noexcept { return {}; }

Result<std::size_t> SimulatedDevice::granularity() noexcept {
  return static_cast<std::size_t>(granularity_);
}

Result<DevicePointer> SimulatedDevice::reserve_address_range(std::size_t bytes) noexcept {
  return DevicePointer{static_cast<std::uintptr_t>(fresh_range(bytes))};
}
Status SimulatedDevice::free_address_range(DevicePointer, std::size_t) noexcept { return {}; }

Result<PhysicalMemoryHandle> SimulatedDevice::create_physical(std::size_t bytes) noexcept {
  const std::uint64_t size = rounded(std::max<std::uint64_t>(bytes, 1));
  if (!fits(size)) return out_of_memory(bytes, used_, capacity_);
  const std::uint64_t handle = next_handle_++;
  physical_.emplace(handle, size);
  take(size);
  return PhysicalMemoryHandle{static_cast<std::uintptr_t>(handle)};
}

Status SimulatedDevice::release_physical(PhysicalMemoryHandle memory) noexcept {
  const auto it = physical_.find(memory.value);
  if (it == physical_.end()) {
    return Status(ErrorKind::kValue, fmt::format("simulated device: release of unknown physical "
                                                 "memory {:#x}",
                                                 memory.value));
  }
  used_ -= it->second;
  physical_.erase(it);
  return {};
}

Status SimulatedDevice::map(DevicePointer, std::size_t, PhysicalMemoryHandle) noexcept { return {}; }
Status SimulatedDevice::unmap(DevicePointer, std::size_t) noexcept { return {}; }

}  // namespace accel::replay
