#include "core/memory.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/engine.h"
#include "core/memory_state.h"
#include "core/pinned_host.h"
#include "core/race_call_site.h"
#include "core/timeline.h"

namespace mockdev::core {
namespace detail {

namespace {

// The machine file's `faults.memory`, as if the control API had set them at installation.
void apply_machine_memory_faults(MemoryState& m, const FaultSchedule& schedule) {
  for (const MemoryFault& f : schedule.memory) {
    DeviceMemory& d = m.devices.at(static_cast<std::size_t>(f.device));
    if (f.fail_nth_allocation) d.faults.fail_nth = *f.fail_nth_allocation;
    if (f.fail_allocations_above) d.faults.fail_above = *f.fail_allocations_above;
    if (f.capacity) d.capacity = *f.capacity;
  }
}

}  // namespace

// This module's state, started afresh for every installed machine. Never deleted: Note
// [Leaky state] in core/engine.h.
MemoryState& memory() {
  static MemoryState* const state = new MemoryState();
  const Engine& e = engine();
  if (state->generation != e.generation) {
    *state = MemoryState{};
    state->generation = e.generation;
    for (const DeviceSpec& spec : e.machine.devices) {
      DeviceMemory d;
      d.capacity = spec.memory_bytes;
      d.granularity = spec.allocation_granularity;
      d.context_reserve = spec.context_reserve_bytes;
      state->devices.push_back(d);
    }
    state->next_physical = kPhysicalBase;
    apply_machine_memory_faults(*state, e.machine.faults);
  }
  return *state;
}

bool admit(MemoryState& m, int device, std::uint64_t requested, std::uint64_t rounded) {
  DeviceMemory& d = m.devices.at(static_cast<std::size_t>(device));
  MemoryFaults& f = d.faults;
  ++f.attempts;
  if (f.fail_nth && f.attempts == *f.fail_nth) {
    f.fail_nth.reset();  // fires once
    return false;
  }
  if (f.fail_above && requested > *f.fail_above) return false;
  return d.used() <= d.capacity && rounded <= d.capacity - d.used();
}

void memory_changed(MemoryState& m, int device) {
  const std::uint64_t used = m.devices[static_cast<std::size_t>(device)].used();
  const auto& observers = engine().observers;
  if (observers.empty()) return;
  const std::uint64_t now = host_time_ns();
  for (const auto& o : observers) o->on_memory(device, used, now);
}

void charge(MemoryState& m, int device, std::uint64_t bytes) {
  DeviceMemory& d = m.devices[static_cast<std::size_t>(device)];
  d.allocation_bytes += bytes;
  d.peak = std::max(d.peak, d.used());
  memory_changed(m, device);
}

void drop_pages(MemoryState& m, std::uint64_t base, std::uint64_t bytes) {
  const std::uint64_t first = (base + kPageBytes - 1) >> kPageShift;
  const std::uint64_t end = (base + bytes) >> kPageShift;  // exclusive
  if (first >= end) return;
  m.pages.erase(m.pages.lower_bound(first), m.pages.lower_bound(end));
}

}  // namespace detail

using detail::DeviceMemory;
using detail::kPageBytes;
using detail::kPageShift;
using detail::memory;
using detail::MemoryState;

namespace {

DeviceMemory* device_memory(MemoryState& m, int device) {
  if (device < 0 || static_cast<std::size_t>(device) >= m.devices.size()) return nullptr;
  return &m.devices[static_cast<std::size_t>(device)];
}

// The page holding `address`, created (zeroed) when `create`; nullptr when absent.
std::byte* page_of(MemoryState& m, std::uint64_t address, bool create) {
  const std::uint64_t index = address >> kPageShift;
  auto it = m.pages.find(index);
  if (it != m.pages.end()) return it->second.get();
  if (!create) return nullptr;
  auto page = std::make_unique<std::byte[]>(kPageBytes);  // value-initialised: zeros
  std::byte* raw = page.get();
  m.pages.emplace(index, std::move(page));
  return raw;
}

// Where the bytes of `address` live, and how many bytes from there on are contiguous:
// itself for cuMemAlloc memory; the handle's bytes for mapped memory (Note [Virtual
// memory]).
struct Backing {
  std::uint64_t address = 0;
  std::uint64_t contiguous = 0;
};
Backing backing_of(const MemoryState& m, std::uint64_t address) {
  if (in_reservation_space(address)) {
    auto it = m.mappings.upper_bound(address);
    if (it != m.mappings.begin()) {
      --it;
      const std::uint64_t offset = address - it->first;
      if (offset < it->second.bytes) {
        const PhysicalMemory& h = m.handles.at(it->second.handle);
        return Backing{h.physical + offset, it->second.bytes - offset};
      }
    }
  }
  return Backing{address, UINT64_MAX};
}

// Calls fn(page or nullptr, offset in page, chunk bytes, offset in range) chunk by chunk,
// no chunk crossing a page or a mapping.
template <typename Fn>
void for_each_chunk(MemoryState& m, std::uint64_t address, std::uint64_t bytes, bool create,
                    Fn&& fn) {
  std::uint64_t done = 0;
  while (done < bytes) {
    const Backing b = backing_of(m, address + done);
    const std::uint64_t offset = b.address & (kPageBytes - 1);
    const std::uint64_t chunk = std::min({bytes - done, kPageBytes - offset, b.contiguous});
    fn(page_of(m, b.address, create), offset, chunk, done);
    done += chunk;
  }
}

// Host memory device work may use at its own address (Note [Device-accessible host memory]
// in core/pinned_host.h): the host bytes of [address, address + bytes), or nullptr.
std::byte* host_window(std::uint64_t address, std::uint64_t bytes)
    MOCKDEV_REQUIRES(g_engine_mutex) {
  if (!device_accessible_host(address, bytes == 0 ? 1 : bytes)) return nullptr;
  return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(address));
}

}  // namespace

namespace {

// Note [Small allocations]: the lowest offset of a granule with `span` bytes free, if any.
std::optional<std::uint64_t> free_offset(const SharedGranule& g, std::uint64_t span) {
  std::uint64_t at = 0;
  for (const auto& [offset, block_span] : g.blocks) {
    if (offset - at >= span) return at;
    at = offset + block_span;
  }
  if (g.bytes - at >= span) return at;
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> allocate(Api owner, int device, std::uint64_t bytes,
                                      std::uint64_t context, bool shared_granule) {
  MemoryState& m = memory();
  DeviceMemory& d = m.devices.at(static_cast<std::size_t>(device));
  if (bytes > detail::kHalfRange) return std::nullopt;  // also keeps round_up from wrapping
  const bool small = shared_granule && bytes < d.granularity;
  if (small) {
    const std::uint64_t span = detail::round_up(bytes, kSmallBlockAlignment);
    for (auto& [base, g] : m.granules) {
      if (g.owner != owner || g.device != device || g.context != context) continue;
      const std::optional<std::uint64_t> offset = free_offset(g, span);
      if (!offset) continue;
      if (!detail::admit(m, device, bytes, 0)) return std::nullopt;
      g.blocks.emplace(*offset, span);
      m.allocations.emplace(base + *offset,
                            Allocation{owner, device, context, bytes, 0, base, current_caller()});
      return base + *offset;
    }
  }
  const std::uint64_t rounded = detail::round_up(bytes, d.granularity);
  // Note [Device addresses]: never reused within the lower half of the device's window.
  if (rounded > detail::kHalfRange - d.next_offset) return std::nullopt;  // addresses spent
  if (!detail::admit(m, device, bytes, rounded)) return std::nullopt;
  const std::uint64_t address =
      (static_cast<std::uint64_t>(device) + 1) * detail::kRangeBytes + d.next_offset;
  d.next_offset += rounded;
  detail::charge(m, device, rounded);
  if (small) {
    SharedGranule g{owner, device, context, rounded, {}};
    g.blocks.emplace(0, detail::round_up(bytes, kSmallBlockAlignment));
    m.granules.emplace(address, std::move(g));
    m.allocations.emplace(address,
                          Allocation{owner, device, context, bytes, 0, address, current_caller()});
    return address;
  }
  m.allocations.emplace(address,
                        Allocation{owner, device, context, bytes, rounded, 0, current_caller()});
  return address;
}

std::vector<std::pair<std::uint64_t, Allocation>> live_allocations(Api owner) {
  std::vector<std::pair<std::uint64_t, Allocation>> out;
  for (const auto& [address, a] : memory().allocations) {
    if (a.owner == owner) out.emplace_back(address, a);
  }
  return out;
}

std::optional<Allocation> find_allocation(std::uint64_t address) {
  const MemoryState& m = memory();
  auto it = m.allocations.find(address);
  if (it == m.allocations.end()) return std::nullopt;
  return it->second;
}

std::optional<Allocation> find_containing(std::uint64_t address, std::uint64_t bytes,
                                          std::uint64_t* base) {
  const MemoryState& m = memory();
  // Device-accessible host memory answers like an allocation of its adapter's API (Note
  // [Device-accessible host memory] in core/pinned_host.h). Host addresses may fall in the
  // numeric range of reservations, so they are looked up first.
  if (std::optional<PinnedRange> r = pinned_containing(address, bytes == 0 ? 1 : bytes)) {
    if (!r->device_accessible) return std::nullopt;
    if (base != nullptr) *base = r->base;
    return Allocation{Api::kCuda, r->device, r->context, r->bytes, 0};
  }
  if (in_reservation_space(address)) {
    // A run of adjacent mappings with read-write access (Note [Virtual memory]).
    auto it = m.mappings.upper_bound(address);
    if (it == m.mappings.begin()) return std::nullopt;
    --it;
    const std::uint64_t start = it->first;
    if (address - start >= it->second.bytes) return std::nullopt;
    const int device = m.handles.at(it->second.handle).device;
    std::uint64_t end = start;  // end of the accessible run so far
    while (it != m.mappings.end() && it->first == end && it->second.read_write) {
      end += it->second.bytes;
      if (address + bytes <= end) break;
      ++it;
    }
    if (address + bytes < address || address + bytes > end) return std::nullopt;
    if (base != nullptr) *base = start;
    return Allocation{Api::kCuda, device, 0, end - start, end - start};
  }
  auto it = m.allocations.upper_bound(address);
  if (it == m.allocations.begin()) return std::nullopt;
  --it;
  const std::uint64_t offset = address - it->first;
  if (offset >= it->second.bytes || bytes > it->second.bytes - offset) return std::nullopt;
  if (base != nullptr) *base = it->first;
  return it->second;
}

void write_bytes(std::uint64_t address, const void* src, std::uint64_t bytes) {
  if (std::byte* host = host_window(address, bytes)) {
    std::memmove(host, src, bytes);
    return;
  }
  const auto* from = static_cast<const std::byte*>(src);
  for_each_chunk(memory(), address, bytes, true,
                 [&](std::byte* page, std::uint64_t offset, std::uint64_t chunk,
                     std::uint64_t done) { std::memcpy(page + offset, from + done, chunk); });
}

void read_bytes(std::uint64_t address, void* dst, std::uint64_t bytes) {
  if (const std::byte* host = host_window(address, bytes)) {
    std::memmove(dst, host, bytes);
    return;
  }
  auto* to = static_cast<std::byte*>(dst);
  for_each_chunk(
      memory(), address, bytes, false,
      [&](std::byte* page, std::uint64_t offset, std::uint64_t chunk, std::uint64_t done) {
        if (page == nullptr) {
          std::memset(to + done, 0, chunk);
        } else {
          std::memcpy(to + done, page + offset, chunk);
        }
      });
}

void fill_bytes(std::uint64_t address, std::uint64_t bytes, std::uint32_t pattern,
                unsigned pattern_size) {
  if (std::byte* host = host_window(address, bytes)) {
    for (std::uint64_t i = 0; i < bytes; ++i) {
      host[i] = static_cast<std::byte>((pattern >> (8 * (i % pattern_size))) & 0xffu);
    }
    return;
  }
  // Zeros into an absent page create nothing (Note [Lazy backing]).
  for_each_chunk(
      memory(), address, bytes, pattern != 0,
      [&](std::byte* page, std::uint64_t offset, std::uint64_t chunk, std::uint64_t done) {
        if (page == nullptr) return;
        if (pattern_size == 1) {
          std::memset(page + offset, static_cast<int>(pattern & 0xffu), chunk);
          return;
        }
        // The pattern's phase follows the position in the whole range.
        for (std::uint64_t i = 0; i < chunk; ++i) {
          const std::uint64_t k = (done + i) % pattern_size;
          page[offset + i] = static_cast<std::byte>((pattern >> (8 * k)) & 0xffu);
        }
      });
}

void copy_bytes(std::uint64_t dst, std::uint64_t src, std::uint64_t bytes) {
  // Through a bounded buffer, from the end when the destination overlaps the source's tail.
  constexpr std::uint64_t kChunk = kPageBytes;
  auto buffer = std::make_unique<std::byte[]>(static_cast<std::size_t>(std::min(bytes, kChunk)));
  const bool backwards = dst > src && dst < src + bytes;
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t chunk = std::min(bytes - done, kChunk);
    const std::uint64_t at = backwards ? bytes - done - chunk : done;
    read_bytes(src + at, buffer.get(), chunk);
    write_bytes(dst + at, buffer.get(), chunk);
    done += chunk;
  }
}

std::uint64_t backed_bytes() { return memory().pages.size() * kPageBytes; }

namespace {

// Frees the block at `address` of granule `granule`, and the granule once it is empty.
void free_block(MemoryState& m, std::uint64_t address, std::uint64_t granule)
    MOCKDEV_REQUIRES(g_engine_mutex) {
  auto g = m.granules.find(granule);
  if (g == m.granules.end()) return;
  g->second.blocks.erase(address - granule);
  if (!g->second.blocks.empty()) return;
  detail::drop_pages(m, granule, g->second.bytes);
  const int device = g->second.device;
  m.devices[static_cast<std::size_t>(device)].allocation_bytes -= g->second.bytes;
  m.granules.erase(g);
  detail::memory_changed(m, device);
}

}  // namespace

bool free_allocation(std::uint64_t address) {
  MemoryState& m = memory();
  auto it = m.allocations.find(address);
  if (it == m.allocations.end()) return false;
  const std::uint64_t granule = it->second.granule;
  const int device = it->second.device;
  if (granule == 0) {
    detail::drop_pages(m, it->first, it->second.bytes);
    m.devices[static_cast<std::size_t>(device)].allocation_bytes -= it->second.accounted_bytes;
  }
  m.allocations.erase(it);
  if (granule == 0) detail::memory_changed(m, device);
  if (granule != 0) free_block(m, address, granule);
  return true;
}

void free_device_allocations(Api owner, int device, std::uint64_t context) {
  MemoryState& m = memory();
  for (auto it = m.allocations.begin(); it != m.allocations.end();) {
    const Allocation& a = it->second;
    if (a.owner == owner && a.device == device && a.context == context) {
      if (a.granule == 0) {
        detail::drop_pages(m, it->first, it->second.bytes);
        m.devices[static_cast<std::size_t>(device)].allocation_bytes -= it->second.accounted_bytes;
      }
      it = m.allocations.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = m.granules.begin(); it != m.granules.end();) {
    const SharedGranule& g = it->second;
    if (g.owner == owner && g.device == device && g.context == context) {
      detail::drop_pages(m, it->first, g.bytes);
      m.devices[static_cast<std::size_t>(device)].allocation_bytes -= g.bytes;
      it = m.granules.erase(it);
    } else {
      ++it;
    }
  }
  detail::memory_changed(m, device);
}

void release_context_memory(Api owner, int device) {
  free_device_allocations(owner, device, 0);
  detail::free_context_handles(memory(), device);
  return_context_reserve(device);
}

void release_other_context_memory(Api owner, int device, std::uint64_t context) {
  free_device_allocations(owner, device, context);
  return_context_reserve(device);
}

std::uint64_t used_bytes(int device) {
  const DeviceMemory* d = device_memory(memory(), device);
  return d == nullptr ? 0 : d->used();
}

std::uint64_t capacity_bytes(int device) {
  const DeviceMemory* d = device_memory(memory(), device);
  return d == nullptr ? 0 : d->capacity;
}

std::uint64_t granularity(int device) {
  const DeviceMemory* d = device_memory(memory(), device);
  return d == nullptr ? 0 : d->granularity;
}

bool take_context_reserve(int device) {
  DeviceMemory& d = memory().devices.at(static_cast<std::size_t>(device));
  if (d.used() > d.capacity || d.context_reserve > d.capacity - d.used()) return false;
  d.reserve_bytes += d.context_reserve;
  d.peak = std::max(d.peak, d.used());
  if (d.context_reserve != 0) detail::memory_changed(memory(), device);
  return true;
}

void return_context_reserve(int device) {
  DeviceMemory& d = memory().devices.at(static_cast<std::size_t>(device));
  const std::uint64_t before = d.reserve_bytes;
  d.reserve_bytes -= std::min(d.reserve_bytes, d.context_reserve);
  if (d.reserve_bytes != before) detail::memory_changed(memory(), device);
}

DeviceMemoryReport memory_report(int device) {
  const DeviceMemory& d = memory().devices.at(static_cast<std::size_t>(device));
  return DeviceMemoryReport{d.capacity, d.granularity, d.allocation_bytes, d.reserve_bytes, d.peak};
}

void reset_peak(int device) {
  DeviceMemory& d = memory().devices.at(static_cast<std::size_t>(device));
  d.peak = d.used();
}

void fail_nth_allocation(int device, std::uint64_t nth) {
  detail::MemoryFaults& f = memory().devices.at(static_cast<std::size_t>(device)).faults;
  f.fail_nth = nth;
  f.attempts = 0;
}

void fail_allocations_above(int device, std::uint64_t bytes) {
  memory().devices.at(static_cast<std::size_t>(device)).faults.fail_above = bytes;
}

void set_capacity(int device, std::uint64_t bytes) {
  memory().devices.at(static_cast<std::size_t>(device)).capacity = bytes;
}

void clear_memory_faults() {
  const Engine& e = engine();
  MemoryState& m = memory();
  for (std::size_t i = 0; i < m.devices.size(); ++i) {
    m.devices[i].faults = detail::MemoryFaults{};
    m.devices[i].capacity = e.machine.devices[i].memory_bytes;
  }
}

const std::map<std::uint64_t, SharedGranule>& shared_granules() { return memory().granules; }

const std::map<std::uint64_t, Allocation>& allocations() { return memory().allocations; }

}  // namespace mockdev::core
