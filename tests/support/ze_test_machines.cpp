#include "ze_test_machines.h"

#include <cstdio>
#include <utility>

namespace ze_test {

mockdev::DeviceSpec intel_card(int index, int tiles, std::string pci_bus_id) {
  mockdev::DeviceSpec d;
  d.name = "Intel(R) Data Center GPU Max 1550";
  d.vendor = mockdev::Vendor::kIntel;
  d.tiles = tiles;
  d.memory_bytes = kTileBytes * static_cast<std::uint64_t>(tiles == 0 ? 1 : tiles);
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "80860000-0000-0000-0000-00000000%02x00", index);
  d.uuid = uuid;
  d.pci_bus_id = pci_bus_id.empty() ? "0000:" + std::to_string(0x30 + index) + ":00.0" : pci_bus_id;
  d.level_zero.device_id = static_cast<std::uint32_t>(kCardDeviceIdBase + index);
  return d;
}

mockdev::MachineSpec two_cards_two_tiles() {
  mockdev::MachineSpec m;
  m.name = "ze-test-2x2";
  m.source = "ze_test_machines.cpp";
  m.level_zero.default_hierarchy = "COMPOSITE";
  mockdev::DeviceSpec nvidia;
  nvidia.name = "NVIDIA H100 80GB HBM3";
  nvidia.vendor = mockdev::Vendor::kNvidia;
  nvidia.memory_bytes = std::uint64_t{80} << 30;
  nvidia.cc_major = 9;
  nvidia.uuid = "GPU-11111111-2222-3333-4444-555555555555";
  nvidia.pci_bus_id = "00000000:1B:00.0";
  m.devices = {intel_card(0, 2), nvidia, intel_card(1, 2)};
  return m;
}

mockdev::MachineSpec laptop() {
  mockdev::MachineSpec m;
  m.name = "ze-test-laptop";
  m.source = "ze_test_machines.cpp";
  mockdev::DeviceSpec d = intel_card(0, 0);
  d.name = "Intel(R) Iris(R) Xe Graphics";
  d.integrated = true;
  d.memory_bytes = std::uint64_t{8} << 30;
  d.level_zero.fp64 = false;
  d.level_zero.device_id = 0x9a49;
  m.devices = {d};
  return m;
}

mockdev::MachineSpec nvidia_only() {
  mockdev::MachineSpec m = two_cards_two_tiles();
  m.devices = {m.devices[1]};
  return m;
}

mockdev::DeviceSpec intel_gpu(const std::string& name, int tiles, bool integrated,
                              std::uint64_t memory_bytes, int index, bool fp64) {
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

mockdev::MachineSpec machine_with(std::vector<mockdev::DeviceSpec> devices,
                                  const std::string& default_hierarchy) {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  machine.name = "test-intel";
  machine.source = "test";
  machine.devices = std::move(devices);
  machine.level_zero.default_hierarchy = default_hierarchy;
  return machine;
}

mockdev::MachineSpec two_max_1550() {
  return machine_with({intel_gpu("Intel(R) Data Center GPU Max 1550", 2, false, 128 * kGiB, 0),
                       intel_gpu("Intel(R) Data Center GPU Max 1550", 2, false, 128 * kGiB, 1)});
}

mockdev::MachineSpec laptop_igpu() {
  return machine_with({intel_gpu("Intel(R) Iris(R) Xe Graphics", 0, true, 8 * kGiB, 0,
                                 /*fp64=*/false)},
                      "COMPOSITE");
}

mockdev::MachineSpec mixed_vendors() {
  mockdev::MachineSpec machine = mockdev::load_machine("4xh100");
  std::vector<mockdev::DeviceSpec> devices{machine.devices[0], machine.devices[1]};
  devices.push_back(intel_gpu("Intel(R) Data Center GPU Max 1550", 2, false, 128 * kGiB, 2));
  return machine_with(std::move(devices));
}

mockdev::MachineSpec igpu_and_discrete() {
  return machine_with({intel_gpu("Intel(R) UHD Graphics 770", 0, true, 4 * kGiB, 0, false),
                       intel_gpu("Intel(R) Arc(TM) A770 Graphics", 0, false, 16 * kGiB, 1)},
                      "COMPOSITE");
}

}  // namespace ze_test
