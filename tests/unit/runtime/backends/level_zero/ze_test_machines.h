#pragma once
// Simulated machines with Intel devices for the Level Zero backend's tests, built in code
// from the 4xh100 preset's settings (streams, topology) so they do not depend on the
// machine-file reader: install one with mockdev::control::reset() before the backend
// touches the driver. Not thread-safe (tests call it first).
#include <string>
#include <vector>

#include "mockdev/machine.h"

namespace accel::test::level_zero {

// An Intel GPU: `tiles` sub-devices (0: untiled), discrete unless `integrated`.
inline mockdev::DeviceSpec intel_gpu(const std::string& name, int tiles, bool integrated,
                                     std::uint64_t memory_bytes, int index, bool fp64 = true) {
  mockdev::DeviceSpec device;
  device.name = name;
  device.vendor = mockdev::Vendor::kIntel;
  device.tiles = tiles;
  device.integrated = integrated;
  device.memory_bytes = memory_bytes;
  device.level_zero.fp64 = fp64;
  char uuid[64];
  std::snprintf(uuid, sizeof(uuid), "GPU-8680d50b-0000-0000-0000-0000000000%02x", index);
  device.uuid = uuid;
  char pci[32];
  std::snprintf(pci, sizeof(pci), "00000000:%02X:00.0", 0x20 + index);
  device.pci_bus_id = pci;
  return device;
}

inline mockdev::MachineSpec machine_with(std::vector<mockdev::DeviceSpec> devices,
                                         const std::string& default_hierarchy = "FLAT") {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.name = "test-intel";
  machine.source = "test";
  machine.devices = std::move(devices);
  machine.level_zero.default_hierarchy = default_hierarchy;
  return machine;
}

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// Two Data Center GPU Max 1550 cards, two tiles each (FLAT by default, as Intel's driver
// on Max).
inline mockdev::MachineSpec two_max_1550() {
  return machine_with({intel_gpu("Intel(R) Data Center GPU Max 1550", 2, false, 128 * kGiB, 0),
                       intel_gpu("Intel(R) Data Center GPU Max 1550", 2, false, 128 * kGiB, 1)});
}

// A laptop: one integrated GPU without fp64.
inline mockdev::MachineSpec laptop_igpu() {
  return machine_with({intel_gpu("Intel(R) Iris(R) Xe Graphics", 0, true, 8 * kGiB, 0,
                                 /*fp64=*/false)},
                      "COMPOSITE");
}

// NVIDIA and Intel together: two H100s (never seen by Level Zero) and one Max 1550.
inline mockdev::MachineSpec mixed_vendors() {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  std::vector<mockdev::DeviceSpec> devices{machine.devices[0], machine.devices[1]};
  devices.push_back(intel_gpu("Intel(R) Data Center GPU Max 1550", 2, false, 128 * kGiB, 2));
  return machine_with(std::move(devices));
}

// An integrated GPU listed before a discrete one (the discrete one is used).
inline mockdev::MachineSpec igpu_and_discrete() {
  return machine_with({intel_gpu("Intel(R) UHD Graphics 770", 0, true, 4 * kGiB, 0, false),
                       intel_gpu("Intel(R) Arc(TM) A770 Graphics", 0, false, 16 * kGiB, 1)},
                      "COMPOSITE");
}

}  // namespace accel::test::level_zero
