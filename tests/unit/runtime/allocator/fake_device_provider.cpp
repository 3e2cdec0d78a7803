#include "fake_device_provider.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "accel_common/units.h"

namespace accel::detail::alloc::testing {

FakeDeviceProvider::FakeDeviceProvider() : FakeDeviceProvider(Options{}) {}
FakeDeviceProvider::FakeDeviceProvider(Options options) : options_(options) {
  if (options_.total_bytes == 0) options_.total_bytes = options_.capacity_bytes;
}
FakeDeviceProvider::~FakeDeviceProvider() = default;

Status FakeDeviceProvider::enter(const char* call) noexcept {
  ++counts_[call];
  if (options_.log_calls) calls_.emplace_back(call);
  auto fault = faults_.find(call);
  if (fault != faults_.end() && --fault->second.remaining == 0) {
    ErrorKind kind = fault->second.kind;
    faults_.erase(fault);
    return Status(kind, std::string("fake ") + call + ": injected failure");
  }
  return {};
}

Status FakeDeviceProvider::misused(std::string what) noexcept {
  ++misuse_;
  return Status(ErrorKind::kValue, std::move(what));
}

bool FakeDeviceProvider::take(std::size_t bytes) noexcept {
  if (bytes > options_.capacity_bytes || used_bytes_ > options_.capacity_bytes - bytes) {
    return false;
  }
  used_bytes_ += bytes;
  peak_used_bytes_ = std::max(peak_used_bytes_, used_bytes_);
  return true;
}
void FakeDeviceProvider::give(std::size_t bytes) noexcept { used_bytes_ -= bytes; }

Result<MemoryInfo> FakeDeviceProvider::memory_info() noexcept {
  if (Status s = enter("memory_info"); !s.ok()) return s;
  std::size_t free = options_.capacity_bytes > used_bytes_ ? options_.capacity_bytes - used_bytes_ : 0;
  return MemoryInfo{free, options_.total_bytes};
}

Result<DevicePointer> FakeDeviceProvider::allocate(std::size_t bytes) noexcept {
  if (Status s = enter("allocate"); !s.ok()) return s;
  if (bytes == 0) return misused("fake allocate: 0 bytes");
  if (!take(bytes)) return Status(ErrorKind::kOutOfMemory, "fake allocate: out of memory");
  std::uint64_t address = next_address_;
  // 2 MiB apart and aligned, like the driver's segments; never reused.
  next_address_ += (bytes + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB) + 2 * kMiB;
  segments_[address] = bytes;
  return DevicePointer{address};
}

Status FakeDeviceProvider::deallocate(DevicePointer pointer) noexcept {
  if (Status s = enter("deallocate"); !s.ok()) return s;
  auto it = segments_.find(pointer.value);
  if (it == segments_.end()) {
    return misused("fake deallocate: unknown pointer " + common::hex_address(pointer.value));
  }
  give(it->second);
  segments_.erase(it);
  return {};
}

Result<EventHandle> FakeDeviceProvider::record_event(StreamId stream) noexcept {
  if (Status s = enter("record_event"); !s.ok()) return s;
  std::uint64_t handle = next_handle_++;
  events_[handle] = Event{stream, queued_[stream]};
  return EventHandle{handle};
}

Result<bool> FakeDeviceProvider::query_event(EventHandle event) noexcept {
  if (Status s = enter("query_event"); !s.ok()) return s;
  auto it = events_.find(event.value);
  if (it == events_.end()) return misused("fake query_event: unknown event");
  return completed_[it->second.stream] >= it->second.ticket;
}

Status FakeDeviceProvider::synchronize_event(EventHandle event) noexcept {
  if (Status s = enter("synchronize_event"); !s.ok()) return s;
  auto it = events_.find(event.value);
  if (it == events_.end()) return misused("fake synchronize_event: unknown event");
  auto& done = completed_[it->second.stream];
  done = std::max(done, it->second.ticket);
  return {};
}

Status FakeDeviceProvider::destroy_event(EventHandle event) noexcept {
  if (Status s = enter("destroy_event"); !s.ok()) return s;
  if (events_.erase(event.value) == 0) {
    return misused("fake destroy_event: unknown event");
  }
  return {};
}

Result<std::size_t> FakeDeviceProvider::granularity() noexcept {
  if (Status s = enter("granularity"); !s.ok()) return s;
  if (!options_.virtual_memory) return Status(ErrorKind::kUnsupported, "fake: no virtual memory");
  return options_.granularity;
}

Result<DevicePointer> FakeDeviceProvider::reserve_address_range(std::size_t bytes) noexcept {
  if (Status s = enter("reserve_address_range"); !s.ok()) return s;
  if (!options_.virtual_memory) return Status(ErrorKind::kUnsupported, "fake: no virtual memory");
  if (bytes == 0 || bytes % options_.granularity != 0) {
    return misused("fake reserve_address_range: unaligned size");
  }
  std::uint64_t base = next_va_;
  next_va_ += bytes + options_.granularity;  // a guard gap between ranges
  ranges_[base] = Range{bytes, {}};
  return DevicePointer{base};
}

Status FakeDeviceProvider::free_address_range(DevicePointer base, std::size_t bytes) noexcept {
  if (Status s = enter("free_address_range"); !s.ok()) return s;
  auto it = ranges_.find(base.value);
  if (it == ranges_.end() || it->second.bytes != bytes) {
    return misused("fake free_address_range: not a reserved range");
  }
  if (!it->second.mapped.empty()) {
    return misused("fake free_address_range: range still mapped");
  }
  ranges_.erase(it);
  return {};
}

Result<PhysicalMemoryHandle> FakeDeviceProvider::create_physical(std::size_t bytes) noexcept {
  if (Status s = enter("create_physical"); !s.ok()) return s;
  if (!options_.virtual_memory) return Status(ErrorKind::kUnsupported, "fake: no virtual memory");
  if (bytes == 0 || bytes % options_.granularity != 0) {
    return misused("fake create_physical: unaligned size");
  }
  if (!take(bytes)) return Status(ErrorKind::kOutOfMemory, "fake create_physical: out of memory");
  std::uint64_t handle = next_handle_++;
  physical_[handle] = bytes;
  return PhysicalMemoryHandle{handle};
}

Status FakeDeviceProvider::release_physical(PhysicalMemoryHandle memory) noexcept {
  if (Status s = enter("release_physical"); !s.ok()) return s;
  auto it = physical_.find(memory.value);
  if (it == physical_.end()) return misused("fake release_physical: unknown");
  give(it->second);
  physical_.erase(it);
  return {};
}

Status FakeDeviceProvider::map(DevicePointer address, std::size_t bytes,
                               PhysicalMemoryHandle memory) noexcept {
  if (Status s = enter("map"); !s.ok()) return s;
  auto phys = physical_.find(memory.value);
  if (phys == physical_.end() || phys->second != bytes) {
    return misused("fake map: unknown handle or size mismatch");
  }
  auto range = ranges_.upper_bound(address.value);
  if (range == ranges_.begin()) return misused("fake map: not reserved");
  --range;
  std::uint64_t offset = address.value - range->first;
  if (offset % options_.granularity != 0 || offset + bytes > range->second.bytes) {
    return misused("fake map: outside the range or unaligned");
  }
  auto& mapped = range->second.mapped;
  auto next = mapped.lower_bound(offset);
  if (next != mapped.end() && next->first < offset + bytes) {
    return misused("fake map: already mapped");
  }
  if (next != mapped.begin() && std::prev(next)->first + std::prev(next)->second > offset) {
    return misused("fake map: already mapped");
  }
  mapped[offset] = bytes;
  return {};
}

Status FakeDeviceProvider::unmap(DevicePointer address, std::size_t bytes) noexcept {
  if (Status s = enter("unmap"); !s.ok()) return s;
  auto range = ranges_.upper_bound(address.value);
  if (range == ranges_.begin()) return misused("fake unmap: not reserved");
  --range;
  std::uint64_t offset = address.value - range->first;
  auto& mapped = range->second.mapped;
  // Unmapping may cover several mapped pieces, but must cover each exactly.
  std::uint64_t end = offset + bytes;
  auto it = mapped.find(offset);
  if (it == mapped.end()) return misused("fake unmap: not mapped");
  std::uint64_t at = offset;
  auto first = it;
  while (at < end) {
    if (it == mapped.end() || it->first != at) {
      return misused("fake unmap: not mapped");
    }
    at += it->second;
    ++it;
  }
  if (at != end) return misused("fake unmap: partial piece");
  mapped.erase(first, it);
  return {};
}

void FakeDeviceProvider::enqueue_work(StreamId stream) { ++queued_[stream]; }
void FakeDeviceProvider::complete_work(StreamId stream) { completed_[stream] = queued_[stream]; }
void FakeDeviceProvider::complete_all_work() {
  for (auto& [stream, queued] : queued_) completed_[stream] = queued;
}
bool FakeDeviceProvider::has_pending_work(StreamId stream) const {
  auto q = queued_.find(stream);
  if (q == queued_.end()) return false;
  auto c = completed_.find(stream);
  return c == completed_.end() ? q->second > 0 : c->second < q->second;
}

std::uint64_t FakeDeviceProvider::queued(StreamId stream) const {
  auto it = queued_.find(stream);
  return it == queued_.end() ? 0 : it->second;
}

bool FakeDeviceProvider::completed(StreamId stream, std::uint64_t count) const {
  auto it = completed_.find(stream);
  return (it == completed_.end() ? 0 : it->second) >= count;
}

std::size_t FakeDeviceProvider::mapped_bytes() const {
  std::size_t total = 0;
  for (const auto& [base, range] : ranges_) {
    for (const auto& [offset, bytes] : range.mapped) total += bytes;
  }
  return total;
}

std::size_t FakeDeviceProvider::count(const std::string& call) const {
  auto it = counts_.find(call);
  return it == counts_.end() ? 0 : it->second;
}

void FakeDeviceProvider::fail_call(const std::string& call, ErrorKind kind, int nth) {
  faults_[call] = Fault{kind, nth};
}

}  // namespace accel::detail::alloc::testing
