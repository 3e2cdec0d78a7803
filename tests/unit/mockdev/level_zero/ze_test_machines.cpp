#include "ze_test_machines.h"

#include <gtest/gtest.h>

#include <cstdio>

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
  d.level_zero.device_id = static_cast<std::uint32_t>(0x0bd5 + index);
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

std::string label(ze_device_handle_t device) {
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (zeDeviceGetProperties(device, &p) != ZE_RESULT_SUCCESS) return "?";
  std::string out = "c" + std::to_string(p.deviceId - 0x0bd5);
  const std::uint8_t last = p.uuid.id[15];
  if (last != 0) out += "t" + std::to_string((last & 0x7f) - 1);
  return out;
}

std::vector<std::string> labels(const std::vector<ze_device_handle_t>& devices) {
  std::vector<std::string> out;
  for (ze_device_handle_t d : devices) out.push_back(label(d));
  return out;
}

namespace {
void init_driver_into(ze_driver_handle_t* out) {
  ASSERT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
  std::uint32_t count = 0;
  ASSERT_EQ(zeDriverGet(&count, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(count, 1u);
  ASSERT_EQ(zeDriverGet(&count, out), ZE_RESULT_SUCCESS);
}
}  // namespace

ze_driver_handle_t init_driver() {
  ze_driver_handle_t driver = nullptr;
  init_driver_into(&driver);
  return driver;
}

std::vector<ze_device_handle_t> devices_of(ze_driver_handle_t driver) {
  std::uint32_t count = 0;
  if (zeDeviceGet(driver, &count, nullptr) != ZE_RESULT_SUCCESS) return {};
  std::vector<ze_device_handle_t> out(count);
  if (count != 0 && zeDeviceGet(driver, &count, out.data()) != ZE_RESULT_SUCCESS) return {};
  out.resize(count);
  return out;
}

std::vector<ze_device_handle_t> subdevices_of(ze_device_handle_t device) {
  std::uint32_t count = 0;
  if (zeDeviceGetSubDevices(device, &count, nullptr) != ZE_RESULT_SUCCESS) return {};
  std::vector<ze_device_handle_t> out(count);
  if (count != 0 && zeDeviceGetSubDevices(device, &count, out.data()) != ZE_RESULT_SUCCESS) return {};
  out.resize(count);
  return out;
}

}  // namespace ze_test
