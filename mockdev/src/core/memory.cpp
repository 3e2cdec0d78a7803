#include "core/memory.h"

#include "core/engine.h"

namespace mockdev::core {
namespace {

struct DeviceMemory {
  std::uint64_t used_bytes = 0;
  std::uint64_t next_offset = 0;  // bump pointer inside the device's address range
};

struct MemoryState {
  std::uint64_t generation = 0;  // the machine generation this state belongs to
  std::vector<DeviceMemory> devices;
  std::map<std::uint64_t, Allocation> allocations;
};

// This module's state, started afresh for every installed machine. Never deleted: Note
// [Leaky state] in core/engine.h.
MemoryState& memory() MOCKDEV_REQUIRES(g_engine_mutex) {
  static MemoryState* const state = new MemoryState();
  const Engine& e = engine();
  if (state->generation != e.generation) {
    *state = MemoryState{e.generation, std::vector<DeviceMemory>(e.machine.devices.size()), {}};
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

bool free_allocation(std::uint64_t address) {
  MemoryState& m = memory();
  auto it = m.allocations.find(address);
  if (it == m.allocations.end()) return false;
  m.devices[static_cast<std::size_t>(it->second.device)].used_bytes -= it->second.bytes;
  m.allocations.erase(it);
  return true;
}

void free_device_allocations(Api owner, int device) {
  MemoryState& m = memory();
  for (auto it = m.allocations.begin(); it != m.allocations.end();) {
    if (it->second.owner == owner && it->second.device == device) {
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
