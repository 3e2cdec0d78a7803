#include "allocator_scripted_provider.h"

#include <string>

namespace accel::test::alloc_model {

using detail::DevicePointer;
using detail::EventHandle;
using detail::PhysicalMemoryHandle;

ScriptedDeviceProvider::ScriptedDeviceProvider(int device, std::size_t capacity_bytes,
                                               std::size_t granularity_bytes)
    : device_(device), capacity_bytes_(capacity_bytes), granularity_bytes_(granularity_bytes) {}

std::uint64_t ScriptedDeviceProvider::queued(StreamId stream) const {
  const auto it = streams_.find(stream);
  return it == streams_.end() ? 0 : it->second.queued;
}

bool ScriptedDeviceProvider::completed(StreamId stream, std::uint64_t count) const {
  const auto it = streams_.find(stream);
  return (it == streams_.end() ? 0 : it->second.completed) >= count;
}

Status ScriptedDeviceProvider::misused(const char* what) {
  ++misuse_;
  return Status(ErrorKind::kValue, std::string("scripted provider: ") + what);
}

std::uint64_t ScriptedDeviceProvider::take_addresses(std::size_t bytes) {
  const std::uint64_t address = next_address_;
  // Keep every range 2 MiB aligned and leave a gap, so neighbouring segments never touch.
  const std::uint64_t step = (bytes + (4ull << 20) - 1) / (2ull << 20) * (2ull << 20);
  next_address_ += step;
  return address;
}

Result<MemoryInfo> ScriptedDeviceProvider::memory_info() noexcept {
  return MemoryInfo{capacity_bytes_ - used_bytes_, capacity_bytes_};
}

Result<DevicePointer> ScriptedDeviceProvider::allocate(std::size_t bytes) noexcept {
  if (bytes == 0) return misused("allocate of 0 bytes");
  if (bytes > capacity_bytes_ - used_bytes_) {
    return Status(ErrorKind::kOutOfMemory, "scripted provider: out of memory (bytes=" +
                                               std::to_string(bytes) + ")");
  }
  const std::uint64_t address = take_addresses(bytes);
  allocations_[address] = bytes;
  used_bytes_ += bytes;
  return DevicePointer{address};
}

Status ScriptedDeviceProvider::deallocate(DevicePointer pointer) noexcept {
  const auto it = allocations_.find(pointer.value);
  if (it == allocations_.end()) return misused("deallocate of an unknown pointer");
  used_bytes_ -= it->second;
  allocations_.erase(it);
  return {};
}

Result<EventHandle> ScriptedDeviceProvider::record_event(StreamId stream) noexcept {
  const std::uint64_t handle = next_handle_++;
  events_[handle] = Event{stream, streams_[stream].queued};
  return EventHandle{handle};
}

Result<bool> ScriptedDeviceProvider::query_event(EventHandle event) noexcept {
  const auto it = events_.find(event.value);
  if (it == events_.end()) return misused("query of an unknown event");
  return completed(it->second.stream, it->second.target);
}

Status ScriptedDeviceProvider::synchronize_event(EventHandle event) noexcept {
  const auto it = events_.find(event.value);
  if (it == events_.end()) return misused("synchronize of an unknown event");
  StreamWork& work = streams_[it->second.stream];
  if (work.completed < it->second.target) work.completed = it->second.target;
  ++event_waits_;
  return {};
}

Status ScriptedDeviceProvider::destroy_event(EventHandle event) noexcept {
  if (events_.erase(event.value) == 0) return misused("destroy of an unknown event");
  return {};
}

Result<DevicePointer> ScriptedDeviceProvider::reserve_address_range(std::size_t bytes) noexcept {
  if (bytes == 0 || bytes % granularity_bytes_ != 0) return misused("reserve of a bad size");
  const std::uint64_t address = take_addresses(bytes);
  ranges_[address] = bytes;
  return DevicePointer{address};
}

Status ScriptedDeviceProvider::free_address_range(DevicePointer base, std::size_t bytes) noexcept {
  const auto it = ranges_.find(base.value);
  if (it == ranges_.end() || it->second != bytes) return misused("free of an unknown range");
  for (const auto& [address, size] : mappings_) {
    if (address >= base.value && address < base.value + bytes) {
      return misused("free of a range that is still mapped");
    }
  }
  ranges_.erase(it);
  return {};
}

Result<PhysicalMemoryHandle> ScriptedDeviceProvider::create_physical(std::size_t bytes) noexcept {
  if (bytes == 0 || bytes % granularity_bytes_ != 0) return misused("create of a bad size");
  if (bytes > capacity_bytes_ - used_bytes_) {
    return Status(ErrorKind::kOutOfMemory, "scripted provider: out of memory (bytes=" +
                                               std::to_string(bytes) + ")");
  }
  const std::uint64_t handle = next_handle_++;
  physical_[handle] = bytes;
  used_bytes_ += bytes;
  return PhysicalMemoryHandle{handle};
}

Status ScriptedDeviceProvider::release_physical(PhysicalMemoryHandle memory) noexcept {
  const auto it = physical_.find(memory.value);
  if (it == physical_.end()) return misused("release of an unknown handle");
  used_bytes_ -= it->second;
  physical_.erase(it);
  return {};
}

Status ScriptedDeviceProvider::map(DevicePointer address, std::size_t bytes,
                                   PhysicalMemoryHandle memory) noexcept {
  const auto handle = physical_.find(memory.value);
  if (handle == physical_.end() || handle->second != bytes) return misused("map of a bad handle");
  bool inside = false;
  for (const auto& [base, size] : ranges_) {
    inside = inside || (address.value >= base && address.value + bytes <= base + size);
  }
  if (!inside) return misused("map outside every reserved range");
  if (!mappings_.emplace(address.value, bytes).second) return misused("map over a mapping");
  return {};
}

Status ScriptedDeviceProvider::unmap(DevicePointer address, std::size_t bytes) noexcept {
  // An unmap may cover several mappings made one granule at a time.
  std::size_t covered = 0;
  auto it = mappings_.lower_bound(address.value);
  while (it != mappings_.end() && it->first < address.value + bytes) {
    covered += it->second;
    it = mappings_.erase(it);
  }
  if (covered != bytes) return misused("unmap of memory that was not mapped");
  return {};
}

}  // namespace accel::test::alloc_model
