// A user's own tests on the simulated hardware, written with the installed gtest fixture
// (<mockdev/testing/gtest.h>) and registered with accel_add_mock_test() (CMakeLists.txt):
// each test is its own ctest entry, because the runtime initialises once per process.

#include <accel/accel.h>
#include <mockdev/testing/gtest.h>

#include <cstdlib>
#include <string>

namespace {

using ConsumerMock = mockdev::testing::MockMachineTest;

constexpr int kCudaErrorOutOfMemory = 2;

int expected_devices() {
  const char* value = std::getenv("CONSUMER_EXPECTED_DEVICES");
  return value == nullptr ? -1 : std::stoi(value);
}

// The device count answers through NVML: the CUDA driver is never initialised.
TEST_F(ConsumerMock, CountsDevicesWithoutInitialisingTheDriver) {
  EXPECT_EQ(accel::device_count(), expected_devices());
  EXPECT_TRUE(accel::is_available());
  EXPECT_EQ(calls("cuInit"), 0u);
  EXPECT_FALSE(driver_initialized());
}

// The first call that needs a device initialises the driver, once.
TEST_F(ConsumerMock, FirstDeviceUseInitialisesTheDriverOnce) {
  const accel::DeviceProperties p = accel::get_device_properties(0);
  EXPECT_EQ(p.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(p.total_memory_bytes, std::size_t{80} << 30);
  accel::set_device_index(expected_devices() - 1);
  EXPECT_EQ(accel::current_device_index(), expected_devices() - 1);
  EXPECT_EQ(calls("cuInit"), 1u);
  EXPECT_TRUE(driver_initialized());
}

// A scripted driver failure reaches the caller as accel::Error with the driver's code,
// named in the fault by the base name error messages use.
TEST_F(ConsumerMock, AScriptedDriverFaultReachesTheCaller) {
  fail_call("cuMemGetInfo", 1, kCudaErrorOutOfMemory);
  try {
    accel::get_memory_info(0);
    FAIL() << "no error";
  } catch (const accel::Error& e) {
    EXPECT_EQ(e.driver_code(), kCudaErrorOutOfMemory) << e.what();
  }
  EXPECT_EQ(calls("cuMemGetInfo_v2"), 1u);
  const accel::MemoryInfo info = accel::get_memory_info(0);  // the fault fired once
  EXPECT_EQ(info.total_bytes, std::size_t{80} << 30);
  EXPECT_EQ(calls("cuMemGetInfo"), 2u);
}

// The consumer's own machine file: device 1 fails after its first device call.
TEST_F(ConsumerMock, AStickyErrorFromTheMachineFile) {
  ASSERT_EQ(accel::device_count(), 2);
  EXPECT_EQ(accel::get_device_properties(1).name, "Tesla T4");
  EXPECT_EQ(accel::get_memory_info(1).total_bytes, std::size_t{15} << 30);
  EXPECT_THROW(accel::get_memory_info(1), accel::Error);
  EXPECT_EQ(accel::get_memory_info(0).total_bytes, std::size_t{15} << 30);
}

}  // namespace
