#include "core/memory.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "core/engine.h"

namespace mockdev::core {
namespace {

struct DeviceMemory {
  std::uint64_t used_bytes = 0;
  std::uint64_t next_offset = 0;  // bump pointer inside the device's address range
};

constexpr int kPageShift = 16;  // Note [Lazy backing]: 64 KiB pages
constexpr std::uint64_t kPageBytes = std::uint64_t{1} << kPageShift;

struct MemoryState {
  std::uint64_t generation = 0;  // the machine generation this state belongs to
  std::vector<DeviceMemory> devices;
  std::map<std::uint64_t, Allocation> allocations;
  std::map<std::uint64_t, std::unique_ptr<std::byte[]>> pages;  // by address >> kPageShift
};

// This module's state, started afresh for every installed machine. Never deleted: Note
// [Leaky state] in core/engine.h.
MemoryState& memory() MOCKDEV_REQUIRES(g_engine_mutex) {
  static MemoryState* const state = new MemoryState();
  const Engine& e = engine();
  if (state->generation != e.generation) {
    *state = MemoryState{e.generation, std::vector<DeviceMemory>(e.machine.devices.size()), {}, {}};
  }
  return *state;
}

}  // namespace

std::optional<std::uint64_t> allocate(Api owner, int device, std::uint64_t bytes) {
  MemoryState& m = memory();
  DeviceMemory& d = m.devices.at(static_cast<std::size_t>(device));
  const std::uint64_t capacity =
      engine().machine.devices[static_cast<std::size_t>(device)].memory_bytes;
  if (bytes > capacity - d.used_bytes) return std::nullopt;
  // Note [Device addresses]: never reused within a device's range.
  const std::uint64_t range = std::uint64_t{1} << kAddressRangeShift;
  const std::uint64_t rounded =
      (bytes + kAllocationAlignment - 1) / kAllocationAlignment * kAllocationAlignment;
  if (rounded > range - d.next_offset) return std::nullopt;  // address space spent
  const std::uint64_t address = (static_cast<std::uint64_t>(device) + 1) * range + d.next_offset;
  d.next_offset += rounded;
  d.used_bytes += bytes;
  m.allocations.emplace(address, Allocation{owner, device, bytes});
  return address;
}

std::optional<Allocation> find_allocation(std::uint64_t address) {
  const MemoryState& m = memory();
  auto it = m.allocations.find(address);
  if (it == m.allocations.end()) return std::nullopt;
  return it->second;
}

namespace {

// Drops the pages wholly inside the allocation at `base` (Note [Lazy backing]).
void drop_pages(MemoryState& m, std::uint64_t base, std::uint64_t bytes) {
  const std::uint64_t first = (base + kPageBytes - 1) >> kPageShift;
  const std::uint64_t end = (base + bytes) >> kPageShift;  // exclusive
  if (first >= end) return;
  m.pages.erase(m.pages.lower_bound(first), m.pages.lower_bound(end));
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

// Calls fn(page or nullptr, offset in page, chunk bytes, offset in range) page by page.
template <typename Fn>
void for_each_chunk(MemoryState& m, std::uint64_t address, std::uint64_t bytes, bool create,
                    Fn&& fn) {
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t at = address + done;
    const std::uint64_t offset = at & (kPageBytes - 1);
    const std::uint64_t chunk = std::min(bytes - done, kPageBytes - offset);
    fn(page_of(m, at, create), offset, chunk, done);
    done += chunk;
  }
}

}  // namespace

std::optional<Allocation> find_containing(std::uint64_t address, std::uint64_t bytes,
                                          std::uint64_t* base) {
  const MemoryState& m = memory();
  auto it = m.allocations.upper_bound(address);
  if (it == m.allocations.begin()) return std::nullopt;
  --it;
  const std::uint64_t offset = address - it->first;
  if (offset >= it->second.bytes || bytes > it->second.bytes - offset) return std::nullopt;
  if (base != nullptr) *base = it->first;
  return it->second;
}

void write_bytes(std::uint64_t address, const void* src, std::uint64_t bytes) {
  const auto* from = static_cast<const std::byte*>(src);
  for_each_chunk(memory(), address, bytes, true,
                 [&](std::byte* page, std::uint64_t offset, std::uint64_t chunk,
                     std::uint64_t done) { std::memcpy(page + offset, from + done, chunk); });
}

void read_bytes(std::uint64_t address, void* dst, std::uint64_t bytes) {
  auto* to = static_cast<std::byte*>(dst);
  for_each_chunk(memory(), address, bytes, false,
                 [&](std::byte* page, std::uint64_t offset, std::uint64_t chunk,
                     std::uint64_t done) {
                   if (page == nullptr) {
                     std::memset(to + done, 0, chunk);
                   } else {
                     std::memcpy(to + done, page + offset, chunk);
                   }
                 });
}

void fill_bytes(std::uint64_t address, std::uint64_t bytes, std::uint32_t pattern,
                unsigned pattern_size) {
  MemoryState& m = memory();
  std::uint64_t done = 0;
  while (done < bytes) {
    const std::uint64_t at = address + done;
    const std::uint64_t offset = at & (kPageBytes - 1);
    const std::uint64_t chunk = std::min(bytes - done, kPageBytes - offset);
    std::byte* page = page_of(m, at, pattern != 0);  // zeros into an absent page: nothing
    if (page != nullptr) {
      if (pattern_size == 1) {
        std::memset(page + offset, static_cast<int>(pattern & 0xffu), chunk);
      } else {
        // The pattern's phase follows the position in the whole range (4-byte aligned).
        for (std::uint64_t i = 0; i < chunk; ++i) {
          const std::uint64_t k = (done + i) % pattern_size;
          page[offset + i] = static_cast<std::byte>((pattern >> (8 * k)) & 0xffu);
        }
      }
    }
    done += chunk;
  }
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

bool free_allocation(std::uint64_t address) {
  MemoryState& m = memory();
  auto it = m.allocations.find(address);
  if (it == m.allocations.end()) return false;
  drop_pages(m, it->first, it->second.bytes);
  m.devices[static_cast<std::size_t>(it->second.device)].used_bytes -= it->second.bytes;
  m.allocations.erase(it);
  return true;
}

void free_device_allocations(Api owner, int device) {
  MemoryState& m = memory();
  for (auto it = m.allocations.begin(); it != m.allocations.end();) {
    if (it->second.owner == owner && it->second.device == device) {
      drop_pages(m, it->first, it->second.bytes);
      m.devices[static_cast<std::size_t>(device)].used_bytes -= it->second.bytes;
      it = m.allocations.erase(it);
    } else {
      ++it;
    }
  }
}

std::uint64_t used_bytes(int device) {
  const MemoryState& m = memory();
  if (device < 0 || static_cast<std::size_t>(device) >= m.devices.size()) return 0;
  return m.devices[static_cast<std::size_t>(device)].used_bytes;
}

const std::map<std::uint64_t, Allocation>& allocations() { return memory().allocations; }

}  // namespace mockdev::core
