// The simulated libnvidia-ml.so.1 through dlopen: exports, per-process initialisation,
// all physical devices regardless of CUDA_VISIBLE_DEVICES, UUIDs that match the CUDA
// driver's bytes, names, buffer sizes.

#include <cstdio>
#include <cstring>

#include "mock_test.h"

namespace mockdev::testing {
namespace {

using MockNvml = MockTest;

std::string format_uuid(const CUuuid& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof text,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

TEST_F(MockNvml, ExportsExactlyTheAbiEntryPoints) {
  std::set<std::string> expected;
#define MOCKDEV_TEST_NAME(symbol, ret, params) expected.insert(#symbol);
  ACCEL_NVML_ENTRY_POINTS(MOCKDEV_TEST_NAME)
#undef MOCKDEV_TEST_NAME
  EXPECT_EQ(defined_dynamic_symbols(nvml_library_path()), expected);
}

TEST_F(MockNvml, EverythingButInitNeedsInit) {
  unsigned n = 0;
  nvmlDevice_t h = nullptr;
  char buf[96];
  nvmlMemory_t memory{};
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlDeviceGetUUID(h, buf, sizeof buf), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlDeviceGetName(h, buf, sizeof buf), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlDeviceGetMemoryInfo(h, &memory), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID("GPU-0", &h), NVML_ERROR_UNINITIALIZED);
  unsigned current = 0, pending = 0;
  EXPECT_EQ(nv().nvmlDeviceGetMigMode(h, &current, &pending), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlSystemGetDriverVersion(buf, sizeof buf), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(nv().nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
  EXPECT_STREQ(nv().nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized");
}

TEST_F(MockNvml, InitIsReferenceCounted) {
  ASSERT_EQ(nv().nvmlInit(), NVML_SUCCESS);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  unsigned n = 0;
  EXPECT_EQ(nv().nvmlShutdown(), NVML_SUCCESS);
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  EXPECT_EQ(nv().nvmlShutdown(), NVML_SUCCESS);
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
  EXPECT_EQ(control::call_count("nvmlInit"), 1u);
  EXPECT_EQ(control::call_count("nvmlInit_v2"), 1u);
}

TEST_F(MockNvml, ListsAllPhysicalDevicesAndNeverTouchesTheCudaDriver) {
  setenv("CUDA_VISIBLE_DEVICES", "0", 1);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  unsigned n = 0;
  ASSERT_EQ(nv().nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  EXPECT_EQ(n, 4u);
  MachineSpec machine = control::machine();
  for (unsigned i = 0; i < n; ++i) {
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(i, &h), NVML_SUCCESS);
    char uuid[kDeviceUuidV2BufferSize];
    ASSERT_EQ(nv().nvmlDeviceGetUUID(h, uuid, sizeof uuid), NVML_SUCCESS);
    EXPECT_EQ(std::string(uuid), machine.devices[i].uuid);
    char name[kDeviceNameV2BufferSize];
    ASSERT_EQ(nv().nvmlDeviceGetName(h, name, sizeof name), NVML_SUCCESS);
    EXPECT_STREQ(name, "NVIDIA H100 80GB HBM3");
    nvmlMemory_t memory{};
    ASSERT_EQ(nv().nvmlDeviceGetMemoryInfo(h, &memory), NVML_SUCCESS);
    EXPECT_EQ(memory.total, 80ULL << 30);
    EXPECT_EQ(memory.used, 0u);
    EXPECT_EQ(memory.free, 80ULL << 30);
  }
  EXPECT_EQ(control::call_count("cuInit"), 0u);
  EXPECT_FALSE(control::driver_initialized());
}

TEST_F(MockNvml, BadArgumentsAndBufferSizes) {
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t h = nullptr;
  EXPECT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(4, &h), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(0, nullptr), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nv().nvmlDeviceGetCount_v2(nullptr), NVML_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
  const std::string uuid = control::machine().devices[0].uuid;  // 40 characters
  char buf[96];
  EXPECT_EQ(nv().nvmlDeviceGetUUID(h, buf, static_cast<unsigned>(uuid.size())),
            NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(nv().nvmlDeviceGetUUID(h, buf, static_cast<unsigned>(uuid.size() + 1)), NVML_SUCCESS);
  EXPECT_EQ(nv().nvmlDeviceGetName(h, buf, 4), NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(nv().nvmlDeviceGetUUID(h, nullptr, 96), NVML_ERROR_INVALID_ARGUMENT);
  int not_a_device = 0;
  auto bogus = reinterpret_cast<nvmlDevice_t>(&not_a_device);
  EXPECT_EQ(nv().nvmlDeviceGetUUID(bogus, buf, 96), NVML_ERROR_INVALID_ARGUMENT);
  nvmlMemory_t memory{};
  EXPECT_EQ(nv().nvmlDeviceGetMemoryInfo(nullptr, &memory), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nv().nvmlDeviceGetMemoryInfo(h, nullptr), NVML_ERROR_INVALID_ARGUMENT);
}

TEST_F(MockNvml, CudaUuidBytesMatchNvmlStrings) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  for (int i = 0; i < 4; ++i) {
    CUuuid bytes;
    ASSERT_EQ(cu().cuDeviceGetUuid_v2(&bytes, i), CUDA_SUCCESS);
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(static_cast<unsigned>(i), &h), NVML_SUCCESS);
    char text[96];
    ASSERT_EQ(nv().nvmlDeviceGetUUID(h, text, sizeof text), NVML_SUCCESS);
    EXPECT_EQ(format_uuid(bytes), std::string(text));
  }
}

TEST_F(MockNvml, HandlesFromBeforeAResetAreRejected) {
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t h = nullptr;
  ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
  use_machine("4xh100");
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  char buf[96];
  EXPECT_EQ(nv().nvmlDeviceGetUUID(h, buf, sizeof buf), NVML_ERROR_INVALID_ARGUMENT);
}

TEST_F(MockNvml, HandleByUuidFindsThePhysicalDevice) {
  setenv("CUDA_VISIBLE_DEVICES", "2", 1);  // NVML ignores it
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  MachineSpec machine = control::machine();
  for (unsigned i = 0; i < 4; ++i) {
    nvmlDevice_t by_uuid = nullptr;
    nvmlDevice_t by_index = nullptr;
    ASSERT_EQ(nv().nvmlDeviceGetHandleByUUID(machine.devices[i].uuid.c_str(), &by_uuid),
              NVML_SUCCESS);
    ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(i, &by_index), NVML_SUCCESS);
    EXPECT_EQ(by_uuid, by_index);
  }
  nvmlDevice_t h = nullptr;
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &h),
            NVML_ERROR_NOT_FOUND);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID(nullptr, &h), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nv().nvmlDeviceGetHandleByUUID(machine.devices[0].uuid.c_str(), nullptr),
            NVML_ERROR_INVALID_ARGUMENT);
  unsetenv("CUDA_VISIBLE_DEVICES");
}

// A device whose machine file gives a mig_uuid is in MIG mode (current = pending = 1).
TEST_F(MockNvml, MigModeComesFromTheMachineFile) {
  use_machine(MOCKDEV_TEST_MACHINES_DIR "/8_uuids.yaml");
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  for (unsigned i = 0; i < 8; ++i) {
    nvmlDevice_t h = nullptr;
    ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(i, &h), NVML_SUCCESS);
    unsigned current = 7, pending = 7;
    ASSERT_EQ(nv().nvmlDeviceGetMigMode(h, &current, &pending), NVML_SUCCESS);
    const unsigned expected = (i == 3 || i == 6) ? kDeviceMigEnable : kDeviceMigDisable;
    EXPECT_EQ(current, expected) << "device " << i;
    EXPECT_EQ(pending, expected) << "device " << i;
  }
  nvmlDevice_t h = nullptr;
  ASSERT_EQ(nv().nvmlDeviceGetHandleByIndex_v2(0, &h), NVML_SUCCESS);
  unsigned mode = 0;
  EXPECT_EQ(nv().nvmlDeviceGetMigMode(h, nullptr, &mode), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nv().nvmlDeviceGetMigMode(h, &mode, nullptr), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(nv().nvmlDeviceGetMigMode(nullptr, &mode, &mode), NVML_ERROR_INVALID_ARGUMENT);
}

// The simulated driver's release: "mock-<major>.<minor>" of the machine's driver_version.
TEST_F(MockNvml, DriverVersionIsDerivedFromTheMachine) {
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  char text[kSystemDriverVersionBufferSize];
  ASSERT_EQ(nv().nvmlSystemGetDriverVersion(text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "mock-13.0");
  EXPECT_EQ(nv().nvmlSystemGetDriverVersion(text, 9), NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(nv().nvmlSystemGetDriverVersion(text, 10), NVML_SUCCESS);
  EXPECT_EQ(nv().nvmlSystemGetDriverVersion(nullptr, 80), NVML_ERROR_INVALID_ARGUMENT);
  use_yaml("name: v\ndriver_version: 12040\ndevices: []\n");
  ASSERT_EQ(nv().nvmlInit_v2(), NVML_SUCCESS);
  ASSERT_EQ(nv().nvmlSystemGetDriverVersion(text, sizeof text), NVML_SUCCESS);
  EXPECT_STREQ(text, "mock-12.4");
}

TEST_F(MockNvml, ErrorStrings) {
  EXPECT_STREQ(nv().nvmlErrorString(NVML_SUCCESS), "Success");
  EXPECT_STREQ(nv().nvmlErrorString(NVML_ERROR_INSUFFICIENT_SIZE), "Insufficient Size");
  EXPECT_STREQ(nv().nvmlErrorString(NVML_ERROR_TIMEOUT), "simulated NVML error NVML_ERROR_TIMEOUT");
  EXPECT_STREQ(nv().nvmlErrorString(static_cast<nvmlReturn_t>(4242)), "Unknown Error");
  EXPECT_EQ(control::call_count("nvmlErrorString"), 4u);
}

}  // namespace
}  // namespace mockdev::testing
