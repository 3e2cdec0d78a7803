#include "core/virtual_memory.h"

#include <algorithm>

#include "core/memory_state.h"

namespace mockdev::core {

using detail::DeviceMemory;
using detail::memory;
using detail::MemoryState;

namespace {

// Frees `h` (released and unmapped): its bytes and its share of the device's memory.
void free_handle(MemoryState& m, std::map<std::uint64_t, PhysicalMemory>::iterator h)
    MOCKDEV_REQUIRES(g_engine_mutex) {
  detail::drop_pages(m, h->second.physical, h->second.bytes);
  const int device = h->second.device;
  m.devices[static_cast<std::size_t>(device)].allocation_bytes -= h->second.bytes;
  m.handles.erase(h);
  detail::memory_changed(m, device);
}

// The mappings [base, base + bytes) covers, when they are whole and adjacent; first and end.
struct Covered {
  std::map<std::uint64_t, Mapping>::iterator first, end;
};
std::optional<Covered> covered(MemoryState& m, std::uint64_t base, std::uint64_t bytes) {
  if (bytes == 0 || base + bytes < base) return std::nullopt;
  auto it = m.mappings.find(base);
  if (it == m.mappings.end()) return std::nullopt;
  const auto first = it;
  std::uint64_t at = base;
  while (it != m.mappings.end() && it->first == at && at - base < bytes) {
    at += it->second.bytes;
    ++it;
  }
  if (at - base != bytes) return std::nullopt;
  return Covered{first, it};
}

}  // namespace

bool in_reservation_space(std::uint64_t address) {
  return address >= detail::kRangeBytes && address < detail::kPhysicalBase &&
         (address & (detail::kRangeBytes - 1)) >= detail::kHalfRange;
}

std::optional<std::uint64_t> reserve_address(int device, std::uint64_t bytes,
                                             std::uint64_t alignment) {
  MemoryState& m = memory();
  DeviceMemory& d = m.devices.at(static_cast<std::size_t>(device));
  const std::uint64_t align = std::max(alignment, d.granularity);
  if (bytes > detail::kHalfRange || align > detail::kHalfRange) return std::nullopt;
  const std::uint64_t offset = detail::round_up(d.next_va_offset, align);
  if (offset > detail::kHalfRange || bytes > detail::kHalfRange - offset) return std::nullopt;
  const std::uint64_t base =
      (static_cast<std::uint64_t>(device) + 1) * detail::kRangeBytes + detail::kHalfRange + offset;
  d.next_va_offset = offset + bytes;
  m.reservations.emplace(base, Reservation{device, bytes});
  return base;
}

VmResult free_address(std::uint64_t base, std::uint64_t bytes) {
  MemoryState& m = memory();
  auto it = m.reservations.find(base);
  if (it == m.reservations.end() || it->second.bytes != bytes) return VmResult::kInvalid;
  auto inside = m.mappings.lower_bound(base);
  if (inside != m.mappings.end() && inside->first < base + bytes) return VmResult::kInUse;
  m.reservations.erase(it);
  return VmResult::kOk;
}

std::optional<std::uint64_t> create_physical(int device, int owner_device, std::uint64_t bytes) {
  MemoryState& m = memory();
  if (!detail::admit(m, device, bytes, bytes)) return std::nullopt;
  const std::uint64_t handle = m.next_handle++;
  m.handles.emplace(handle, PhysicalMemory{device, owner_device, bytes, m.next_physical, false, 0});
  m.next_physical += bytes;
  detail::charge(m, device, bytes);
  return handle;
}

std::optional<PhysicalMemory> find_physical(std::uint64_t handle) {
  const MemoryState& m = memory();
  auto it = m.handles.find(handle);
  if (it == m.handles.end() || it->second.released) return std::nullopt;
  return it->second;
}

bool release_physical(std::uint64_t handle) {
  MemoryState& m = memory();
  auto it = m.handles.find(handle);
  if (it == m.handles.end() || it->second.released) return false;
  it->second.released = true;
  if (it->second.mappings == 0) free_handle(m, it);
  return true;
}

VmResult map_physical(std::uint64_t base, std::uint64_t bytes, std::uint64_t handle) {
  MemoryState& m = memory();
  auto h = m.handles.find(handle);
  if (h == m.handles.end() || h->second.released || h->second.bytes != bytes) {
    return VmResult::kInvalid;
  }
  if (bytes == 0 || base + bytes < base) return VmResult::kInvalid;
  auto r = m.reservations.upper_bound(base);
  if (r == m.reservations.begin()) return VmResult::kInvalid;
  --r;
  if (base - r->first >= r->second.bytes || bytes > r->second.bytes - (base - r->first)) {
    return VmResult::kInvalid;
  }
  auto next = m.mappings.lower_bound(base);
  if (next != m.mappings.end() && next->first < base + bytes) return VmResult::kInvalid;
  if (next != m.mappings.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes > base) return VmResult::kInvalid;
  }
  m.mappings.emplace(base, Mapping{bytes, handle, false});
  ++h->second.mappings;
  return VmResult::kOk;
}

std::optional<std::vector<MappedPiece>> mapped_pieces(std::uint64_t base, std::uint64_t bytes) {
  MemoryState& m = memory();
  std::optional<Covered> c = covered(m, base, bytes);
  if (!c) return std::nullopt;
  std::vector<MappedPiece> pieces;
  for (auto it = c->first; it != c->end; ++it) {
    pieces.push_back(
        MappedPiece{it->first, it->second.bytes, m.handles.at(it->second.handle).device});
  }
  return pieces;
}

void set_read_write(std::uint64_t base, std::uint64_t bytes, bool read_write) {
  MemoryState& m = memory();
  std::optional<Covered> c = covered(m, base, bytes);
  if (!c) return;
  for (auto it = c->first; it != c->end; ++it) it->second.read_write = read_write;
}

void unmap_range(std::uint64_t base, std::uint64_t bytes) {
  MemoryState& m = memory();
  std::optional<Covered> c = covered(m, base, bytes);
  if (!c) return;
  for (auto it = c->first; it != c->end;) {
    auto h = m.handles.find(it->second.handle);
    it = m.mappings.erase(it);
    if (--h->second.mappings == 0 && h->second.released) free_handle(m, h);
  }
}

void detail::free_context_handles(MemoryState& m, int owner_device) {
  for (auto h = m.handles.begin(); h != m.handles.end();) {
    if (h->second.owner_device != owner_device) {
      ++h;
      continue;
    }
    for (auto it = m.mappings.begin(); it != m.mappings.end();) {
      it = it->second.handle == h->first ? m.mappings.erase(it) : std::next(it);
    }
    auto dead = h++;
    free_handle(m, dead);
  }
}

const std::map<std::uint64_t, Reservation>& reservations() { return memory().reservations; }
const std::map<std::uint64_t, Mapping>& mappings() { return memory().mappings; }
const std::map<std::uint64_t, PhysicalMemory>& physical_handles() { return memory().handles; }

}  // namespace mockdev::core
