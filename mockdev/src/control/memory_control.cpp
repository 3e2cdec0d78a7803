// The memory part of the control API (mockdev/memory.h) over the core's accounting
// (core/memory.h, core/virtual_memory.h) and pinned host ranges (core/pinned_host.h).

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/engine.h"
#include "core/engine_lock.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "core/virtual_memory.h"
#include "mockdev/memory.h"

namespace mockdev::control {
namespace {

using core::EngineLock;

// Throws std::out_of_range naming `device` unless it is a physical device of the machine.
void check_device(int device, const char* what) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const std::size_t count = core::engine().machine.devices.size();
  if (device < 0 || static_cast<std::size_t>(device) >= count) {
    throw std::out_of_range(std::string("mockdev::control::") + what + ": no device " +
                            std::to_string(device) + " (the machine has " + std::to_string(count) +
                            ")");
  }
}

// The device's default (primary) context, or another one by its key (core::Allocation).
std::string context_name(int device, std::uint64_t context = 0) {
  std::string name = "ctx dev=" + std::to_string(device);
  if (context != 0) name += " id=" + std::to_string(context);
  return name;
}

}  // namespace

DeviceMemoryUsage memory_usage(int device) {
  EngineLock lock;
  check_device(device, "memory_usage");
  const core::DeviceMemoryReport r = core::memory_report(device);
  DeviceMemoryUsage u;
  u.capacity_bytes = r.capacity;
  u.granularity_bytes = r.granularity;
  u.allocation_bytes = r.allocation_bytes;
  u.context_reserve_bytes = r.reserve_bytes;
  u.used_bytes = r.allocation_bytes + r.reserve_bytes;
  u.peak_used_bytes = r.peak;
  for (const auto& [address, a] : core::allocations()) {
    if (a.device != device) continue;
    u.allocations.push_back(LiveAllocation{address, a.accounted_bytes, a.bytes, "cuMemAlloc",
                                           context_name(a.device, a.context)});
  }
  for (const auto& [handle, h] : core::physical_handles()) {
    if (h.device != device) continue;
    std::uint64_t mapped_at = 0;  // the first mapping's address, if any
    for (const auto& [base, m] : core::mappings()) {
      if (m.handle == handle) {
        mapped_at = base;
        break;
      }
    }
    u.allocations.push_back(
        LiveAllocation{mapped_at, h.bytes, h.bytes, "cuMemCreate", context_name(h.owner_device)});
  }
  return u;
}

void reset_memory_peak(int device) {
  EngineLock lock;
  check_device(device, "reset_memory_peak");
  core::reset_peak(device);
}

std::uint64_t pinned_host_bytes() {
  EngineLock lock;
  return core::allocated_pinned_bytes();
}

void fail_nth_allocation(int device, std::uint64_t nth) {
  EngineLock lock;
  check_device(device, "fail_nth_allocation");
  if (nth == 0) {
    throw std::invalid_argument(
        "mockdev::control::fail_nth_allocation: expected nth >= 1 (1-based), got 0");
  }
  core::fail_nth_allocation(device, nth);
}

void fail_allocations_above(int device, std::uint64_t bytes) {
  EngineLock lock;
  check_device(device, "fail_allocations_above");
  core::fail_allocations_above(device, bytes);
}

void set_capacity(int device, std::uint64_t bytes) {
  EngineLock lock;
  check_device(device, "set_capacity");
  const std::uint64_t machine_bytes =
      core::engine().machine.devices[static_cast<std::size_t>(device)].memory_bytes;
  if (bytes > machine_bytes) {
    throw std::invalid_argument("mockdev::control::set_capacity: expected at most the device's " +
                                std::to_string(machine_bytes) + " bytes, got " +
                                std::to_string(bytes));
  }
  core::set_capacity(device, bytes);
}

}  // namespace mockdev::control
