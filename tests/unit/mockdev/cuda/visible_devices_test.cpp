// CUDA_VISIBLE_DEVICES at driver level: for each row the machine is reset, the variable set,
// cuInit called, and the visible devices identified through cuDeviceGetUuid_v2.

#include "cuda/visible_devices.h"

#include <cstring>
#include <optional>
#include <string>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

struct Row {
  const char* machine;  // preset or file under scenarios/machines
  std::optional<std::string> value;
  std::vector<int> physical;  // empty: cuInit fails (see `repeated`)
  bool repeated = false;      // a device named twice: CUDA_ERROR_INVALID_DEVICE, else
                              // CUDA_ERROR_NO_DEVICE (Note [Driver visible-device rules])
};

std::string machine_path(const char* machine) {
  std::string m = machine;
  return m.find(".yaml") == std::string::npos ? m
                                              : std::string(MOCKDEV_TEST_MACHINES_DIR) + "/" + m;
}

std::string uuid_prefix(const char* machine, int device, std::size_t length) {
  return load_machine(machine_path(machine))
      .devices[static_cast<std::size_t>(device)]
      .uuid.substr(0, length);
}

class MockVisibleDevices : public MockTest, public ::testing::WithParamInterface<Row> {};

TEST_P(MockVisibleDevices, DriverSeesTheListedDevices) {
  const Row& row = GetParam();
  MachineSpec machine = load_machine(machine_path(row.machine));
  control::reset(machine);
  if (row.value) {
    setenv("CUDA_VISIBLE_DEVICES", row.value->c_str(), 1);
  } else {
    unsetenv("CUDA_VISIBLE_DEVICES");
  }
  CUresult rc = cu().cuInit(0);
  if (row.physical.empty()) {
    EXPECT_EQ(rc, row.repeated ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_NO_DEVICE);
    EXPECT_FALSE(control::driver_initialized());
    return;
  }
  ASSERT_EQ(rc, CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  ASSERT_EQ(count, static_cast<int>(row.physical.size()));
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUuuid uuid;
    ASSERT_EQ(cu().cuDeviceGetUuid_v2(&uuid, ordinal), CUDA_SUCCESS);
    int found = -1;
    for (std::size_t p = 0; p < machine.devices.size(); ++p) {
      CUuuid expected;
      const std::string& text = machine.devices[p].uuid;
      std::string hex;
      for (char c : text.substr(4)) {
        if (c != '-') hex += c;
      }
      for (int i = 0; i < 16; ++i)
        expected.bytes[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
      if (std::memcmp(expected.bytes, uuid.bytes, 16) == 0) found = static_cast<int>(p);
    }
    EXPECT_EQ(found, row.physical[static_cast<std::size_t>(ordinal)]) << "ordinal " << ordinal;
  }
}

std::vector<Row> rows() {
  const char* k8 = "8_uuids.yaml";
  return {
      {"4xh100", std::nullopt, {0, 1, 2, 3}},
      {"4xh100", "2,0", {2, 0}},
      {"4xh100", "1,7,0", {1}},
      {"4xh100", "0,0", {}, true},
      {"4xh100", "0, 1, 2, 1", {}, true},
      {"4xh100", "", {}},
      {"4xh100", "-1", {}},
      {"4xh100", "0, 1, -1, 3", {0, 1}},
      {"4xh100", "1gpu2,2ampere", {1, 2}},
      {"4xh100", "4,3,two,one", {}},
      {"4xh100", " 3 , +1", {3, 1}},
      {"4xh100", "4294967296", {0}},       // cut to a 32-bit int, as the real driver does
      {"4xh100", "4294967297,2", {1, 2}},  // (recorded on an H200, docs/HARDWARE.md)
      {"4xh100", "2147483648,0", {}},      // a negative int ends the list
      {"4xh100", "one,two,3", {}},
      {"8xh100", "2, +3, -0, 5", {2, 3, 0, 5}},
      {"8xh100", "4,3,two,one", {4, 3}},
      {"4xh100", uuid_prefix("4xh100", 1, 40), {1}},
      {"4xh100", uuid_prefix("4xh100", 3, 12) + "," + uuid_prefix("4xh100", 0, 12), {3, 0}},
      {"4xh100", "GPU-", {}},                                // a prefix of every UUID: ambiguous
      {"4xh100", uuid_prefix("4xh100", 2, 12) + ",2", {2}},  // stops at the non-UUID entry
      {k8, "GPU-9e8d35e3", {1}},
      {k8, "GPU-e4,GPU-9e8d35e3", {2, 1}},
      {k8, "GPU-9e8d35e3,GPU-1,GPU-47", {1, 7, 5}},
      {k8, "GPU-123,GPU-9e8d35e3", {}},
      {k8, "GPU-9e8d35e3,GPU-123,GPU-47", {1}},
      {k8, "GPU-9e8d35e3,GPU-e,GPU-47", {1}},
      {k8, "GPU-9e8d35e3,GPU-47,GPU-9e8", {}, true},
      {k8, "GPU-9e8d35e3,GPU-9e8d35e3", {}, true},
      // Recorded on real hardware (docs/HARDWARE.md): UUIDs compare without regard to case,
      // entries are not trimmed, an empty prefix selects nothing, and on a GPU without MIG a
      // MIG- prefix selects the GPU by its own UUID.
      {k8, "GPU-9E8D35E3", {1}},
      {k8, " GPU-9e8d35e3", {}},
      {k8, "GPU-9e8d35e3 ", {}},
      {k8, "GPU-e4, GPU-9e8d35e3", {2}},
      {k8, "GPU-9e8d35e3,GPU-9E8D35E3", {}, true},
      {"1xa100", "GPU-", {}},
      {"1xa100", "MIG-", {}},
      {"1xa100", "MIG-" + uuid_prefix("1xa100", 0, 12).substr(4), {0}},
      {k8, "GPU-123, 2", {}},
      {k8, "MIG-7a6b", {3}},
      {k8, "MIG-7b0c1d2e-3f4a-4b5c-8d6e-7f8a9b0c1d2e,MIG-7a6b", {6, 3}},
      {k8, "MIG-7", {}},  // ambiguous
      {k8, "MIG-ffff", {}},
      {k8, "MIG-7a6b,GPU-47", {3}},
      {"none", std::nullopt, {}},
  };
}

INSTANTIATE_TEST_SUITE_P(Table, MockVisibleDevices, ::testing::ValuesIn(rows()));

using MockVisibleDevicesTiming = MockTest;

TEST_F(MockVisibleDevicesTiming, ReadAtTheFirstSuccessfulCuInitOnly) {
  setenv("CUDA_VISIBLE_DEVICES", "0,0", 1);
  EXPECT_EQ(cu().cuInit(0), CUDA_ERROR_INVALID_DEVICE);
  setenv("CUDA_VISIBLE_DEVICES", "3", 1);  // a failed cuInit cached nothing
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  setenv("CUDA_VISIBLE_DEVICES", "0,1", 1);  // too late: the driver is initialised
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  int count = 0;
  ASSERT_EQ(cu().cuDeviceGetCount(&count), CUDA_SUCCESS);
  EXPECT_EQ(count, 1);
}

TEST(MockVisibleDevicesRules, PureFunction) {
  std::vector<DeviceSpec> four = load_machine("4xh100").devices;
  EXPECT_EQ(cuda::resolve_visible_devices(std::nullopt, four), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cuda::resolve_visible_devices("3,2,1,0", four), (std::vector<int>{3, 2, 1, 0}));
  EXPECT_EQ(cuda::resolve_visible_devices("99999999999999999999,0", four), (std::vector<int>{}));
  EXPECT_EQ(cuda::resolve_visible_devices("1,", four), (std::vector<int>{1}));
  EXPECT_EQ(cuda::resolve_visible_devices(",1", four), (std::vector<int>{}));
}

}  // namespace
}  // namespace mockdev::testing

namespace mockdev::testing {
namespace {

// Note [Driver visible-device rules]: an ordinal too large for a CUdevice is an invalid
// entry, so the list stops there; it is never clamped into a duplicate of another one.
TEST(MockVisibleDevicesRules, OutOfRangeOrdinalsTruncateAndNeverSaturate) {
  std::vector<DeviceSpec> four = load_machine("4xh100").devices;
  EXPECT_EQ(cuda::resolve_visible_devices("0,3000000000,4000000000", four), (std::vector<int>{0}));
  EXPECT_EQ(cuda::resolve_visible_devices("0,3000000000,3000000000", four), (std::vector<int>{0}));
  EXPECT_EQ(cuda::resolve_visible_devices("1,11111111111111,11111111111112", four),
            (std::vector<int>{1}));
  EXPECT_EQ(cuda::resolve_visible_devices("1,2147483648,2147483648", four), (std::vector<int>{1}));
  EXPECT_EQ(cuda::resolve_visible_devices("1,2147483647,2147483647", four),
            (std::vector<int>{}));  // a valid CUdevice repeated: a duplicate hides all
  EXPECT_EQ(cuda::resolve_visible_devices("2,99999999999999999999999,0,0", four),
            (std::vector<int>{2}));
}

// 100,000 entries: the rules stay the same at any length (the parser is linear, so this
// runs in milliseconds; the assertion is on the result only).
TEST(MockVisibleDevicesRules, HundredThousandEntries) {
  std::vector<DeviceSpec> four = load_machine("4xh100").devices;
  std::string distinct;
  for (int i = 0; i < 100000; ++i) distinct += (i == 0 ? "" : ",") + std::to_string(i);
  EXPECT_EQ(cuda::resolve_visible_devices(distinct, four), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cuda::resolve_visible_devices(distinct + ",99999", four), (std::vector<int>{}));
  std::string reversed;
  for (int i = 99999; i >= 0; --i) reversed += std::to_string(i) + (i == 0 ? "" : ",");
  EXPECT_EQ(cuda::resolve_visible_devices(reversed, four), (std::vector<int>{}));
  std::string uuids;
  for (int i = 0; i < 100000; ++i)
    uuids += (i == 0 ? "" : ",") + four[1].uuid.substr(0, 12) + std::to_string(i);
  EXPECT_EQ(cuda::resolve_visible_devices(four[2].uuid + "," + uuids, four), (std::vector<int>{2}));
  EXPECT_EQ(cuda::resolve_visible_devices(four[2].uuid + "," + uuids + "," + four[2].uuid, four),
            (std::vector<int>{}));
}

}  // namespace
}  // namespace mockdev::testing
