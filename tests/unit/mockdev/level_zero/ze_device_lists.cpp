#include "ze_device_lists.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace ze_test {

std::string label(ze_device_handle_t device) {
  ze_device_properties_t p{};
  p.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  if (zeDeviceGetProperties(device, &p) != ZE_RESULT_SUCCESS) return "?";
  std::string out = "c" + std::to_string(p.deviceId - kCardDeviceIdBase);
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
