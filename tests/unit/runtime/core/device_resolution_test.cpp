// Device arguments and their errors (PyTorch's _get_device_index and accelerator checks): every way
// to name a device, every wrong way, with PyTorch's exact messages; index range checks; invalid
// ordinals.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>

#include "accel/accelerator.h"
#include "accel/device.h"
#include "accel/device_index_guard.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;

constexpr std::string_view kNeedIndex =
    "Expected an accel::Device with a specified index or an integer, but got:";

using DeviceResolutionTest = BackendTest;

TEST_F(DeviceResolutionTest, IndexDeviceAndStringAllSelectTheSameDevice) {
  set_device_index(1);
  EXPECT_EQ(current_device_index(), 1);
  set_device_index("cuda:2");
  EXPECT_EQ(current_device_index(), 2);
  set_device_index(Device(DeviceType::kCUDA, 3));
  EXPECT_EQ(current_device_index(), 3);
  set_device_index(std::string("cuda:0"));
  EXPECT_EQ(current_device_index(), 0);
  set_device_index(std::optional<int>(2));
  EXPECT_EQ(current_device_index(), 2);
}

TEST_F(DeviceResolutionTest, NoneNeedsAnIndex) {
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(std::nullopt); }), ErrorKind::kValue,
                       std::string(kNeedIndex) + "None"));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(DeviceArg()); }), ErrorKind::kValue,
                       std::string(kNeedIndex) + "None"));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(std::optional<int>()); }),
                       ErrorKind::kValue, std::string(kNeedIndex) + "None"));
}

TEST_F(DeviceResolutionTest, DeviceWithoutIndexNeedsAnIndex) {
  EXPECT_TRUE(is_error(catch_error([] { set_device_index("cuda"); }), ErrorKind::kValue,
                       std::string(kNeedIndex) + "cuda"));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(Device(DeviceType::kCUDA)); }),
                       ErrorKind::kValue, std::string(kNeedIndex) + "cuda"));
}

TEST_F(DeviceResolutionTest, OtherDeviceTypeDoesNotMatchTheAccelerator) {
  EXPECT_TRUE(is_error(catch_error([] { set_device_index("cpu"); }), ErrorKind::kValue,
                       "cpu doesn't match the current accelerator cuda."));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(Device(DeviceType::kCPU)); }),
                       ErrorKind::kValue, "cpu doesn't match the current accelerator cuda."));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index("xpu:1"); }), ErrorKind::kValue,
                       "xpu doesn't match the current accelerator cuda."));
  EXPECT_TRUE(is_error(catch_error([] { get_memory_info(Device(DeviceType::kCPU, 0)); }),
                       ErrorKind::kValue, "cpu doesn't match the current accelerator cuda."));
  EXPECT_TRUE(is_error(catch_error([] { get_device_capability("cpu"); }), ErrorKind::kValue,
                       "cpu doesn't match the current accelerator cuda."));
}

TEST_F(DeviceResolutionTest, MalformedDeviceStringsNameTheString) {
  for (const char* text : {"cuda:x", "cuda:", "cuda:-1", "cuda:1x", "cuda:01", ":1", "cuda:1:2"}) {
    SCOPED_TRACE(text);
    EXPECT_TRUE(is_error(catch_error([&] { set_device_index(text); }), ErrorKind::kRuntime,
                         std::string("Invalid device string: '") + text + "'"));
  }
}

TEST_F(DeviceResolutionTest, UnknownDeviceTypeIsNamed) {
  EXPECT_TRUE(
      is_error(catch_error([] { set_device_index("tpu:0"); }), ErrorKind::kRuntime,
               "Expected one of cpu, cuda, xpu device type at start of device string: tpu"));
}

TEST_F(DeviceResolutionTest, ResolutionErrorsHappenBeforeInitialisation) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  EXPECT_TRUE(catch_error([] { set_device_index("cpu"); }).thrown());
  EXPECT_TRUE(catch_error([] { set_device_index("cuda"); }).thrown());
  EXPECT_TRUE(catch_error([] { set_device_index("cuda:x"); }).thrown());
  EXPECT_FALSE(is_initialized());
}

TEST_F(DeviceResolutionTest, OptionalArgumentsDefaultToTheCurrentDevice) {
  set_device_index(2);
  EXPECT_CALL(backend(), memory_info(2)).Times(3);
  get_memory_info();
  get_memory_info("cuda");
  get_memory_info(Device(DeviceType::kCUDA));
  EXPECT_EQ(get_device_properties().uuid, FakeMachine::uuid(2));
  EXPECT_EQ(get_device_properties("cuda:3").uuid, FakeMachine::uuid(3));
  EXPECT_EQ(get_device_properties(Device(DeviceType::kCUDA, 1)).uuid, FakeMachine::uuid(1));
}

TEST_F(DeviceResolutionTest, ExchangeDeviceRejectsIndicesOutsideDeviceIndexRange) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  EXPECT_TRUE(is_error(catch_error([] { exchange_device(-1); }), ErrorKind::kIndex,
                       "Device index -1 is out of range for DeviceIndex [0, 127]"));
  EXPECT_TRUE(is_error(catch_error([] { exchange_device(128); }), ErrorKind::kIndex,
                       "Device index 128 is out of range for DeviceIndex [0, 127]"));
  EXPECT_TRUE(is_error(catch_error([] { DeviceIndexGuard guard(-1); }), ErrorKind::kIndex,
                       "Device index -1 is out of range for DeviceIndex [0, 127]"));
  EXPECT_TRUE(is_error(catch_error([] { DeviceIndexGuard guard(300); }), ErrorKind::kIndex,
                       "Device index 300 is out of range for DeviceIndex [0, 127]"));
  EXPECT_FALSE(is_initialized());
}

TEST_F(DeviceResolutionTest, MemoryInfoRejectsNegativeIndex) {
  EXPECT_TRUE(is_error(catch_error([] { get_memory_info(-1); }), ErrorKind::kIndex,
                       "Device index -1 is out of range for DeviceIndex [0, 127]"));
}

TEST_F(DeviceResolutionTest, InvalidOrdinalIsADriverError) {
  const CaughtError caught = catch_error([] { set_device_index(4); });
  EXPECT_TRUE(
      is_error_containing(caught, ErrorKind::kDriver, "CUDA error: invalid device ordinal"));
  EXPECT_EQ(current_device_index(), 0);  // unchanged
  EXPECT_TRUE(is_error_containing(catch_error([] { exchange_device(4); }), ErrorKind::kDriver,
                                  "CUDA error: invalid device ordinal"));
  EXPECT_TRUE(is_error_containing(catch_error([] { DeviceIndexGuard guard(5); }),
                                  ErrorKind::kDriver, "CUDA error: invalid device ordinal"));
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(DeviceResolutionTest, InvalidOrdinalErrorCarriesTheDevice) {
  try {
    set_device_index(4);
    ADD_FAILURE() << "set_device_index(4) on 4 devices did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDriver);
    EXPECT_EQ(e.device(), std::optional<int>(4)) << e.what();
  }
}

using StrictDeviceResolutionTest = StrictBackendTest;

TEST_F(StrictDeviceResolutionTest, NegativeSetDeviceIndexIsANoOpThatTouchesNothing) {
  // StrictMock: any backend call other than type()/name() fails the test.
  set_device_index(-1);
  set_device_index(-7);
  set_device_index(std::optional<int>(-2));
  EXPECT_FALSE(is_initialized());
}

TEST_F(StrictDeviceResolutionTest, EmptyGuardTouchesNothing) {
  {
    DeviceIndexGuard guard(std::nullopt);
    EXPECT_EQ(guard.original_index(), std::nullopt);
    EXPECT_EQ(guard.target_index(), std::nullopt);
  }
  EXPECT_FALSE(is_initialized());
}

using NoAcceleratorResolutionTest = NoAcceleratorTest;

TEST_F(NoAcceleratorResolutionTest, QueriesAnswerWithoutAnAccelerator) {
  EXPECT_EQ(current_accelerator(), std::nullopt);
  EXPECT_EQ(current_accelerator(true), std::nullopt);
  EXPECT_EQ(device_count(), 0);
  EXPECT_FALSE(is_available());
  EXPECT_FALSE(is_initialized());
}

TEST_F(NoAcceleratorResolutionTest, DeviceArgumentNeedsAnAccelerator) {
  EXPECT_TRUE(is_error(catch_error([] { set_device_index(Device(DeviceType::kCUDA, 0)); }),
                       ErrorKind::kRuntime, "Accelerator expected"));
  EXPECT_TRUE(is_error(catch_error([] { set_device_index("cuda:0"); }), ErrorKind::kRuntime,
                       "Accelerator expected"));
}

TEST_F(NoAcceleratorResolutionTest, DeviceCallsFailWithoutAnAccelerator) {
  for (const auto& call : std::initializer_list<std::function<void()>>{
           [] { current_device_index(); }, [] { set_device_index(0); }, [] { exchange_device(0); },
           [] { init(); }, [] { get_memory_info(0); }}) {
    const CaughtError caught = catch_error(call);
    EXPECT_TRUE(caught.thrown());
    EXPECT_EQ(caught.type, "Error") << caught.describe();
  }
  set_device_index(-1);  // still a no-op
  EXPECT_FALSE(is_initialized());
}

TEST_F(NoAcceleratorResolutionTest, LazyCallNeedsAnAccelerator) {
  bool ran = false;
  EXPECT_TRUE(is_error(catch_error([&] { lazy_call([&] { ran = true; }); }),
                       ErrorKind::kUnavailable,
                       "No accelerator is available; lazy_call requires an active accelerator."));
  EXPECT_FALSE(ran);
}

TEST(DeviceArgTest, PrintsLikePyTorch) {
  EXPECT_EQ(DeviceArg().str(), "None");
  EXPECT_EQ(DeviceArg(std::nullopt).str(), "None");
  EXPECT_EQ(DeviceArg(3).str(), "3");
  EXPECT_EQ(DeviceArg("cuda:1").str(), "cuda:1");
  EXPECT_EQ(DeviceArg(Device(DeviceType::kCUDA)).str(), "cuda");
  EXPECT_EQ(DeviceArg(Device(DeviceType::kCUDA, 2)).str(), "cuda:2");
}

TEST(DeviceTest, ParsesTypeAndIndex) {
  EXPECT_EQ(Device::parse("cuda"), Device(DeviceType::kCUDA));
  EXPECT_EQ(Device::parse("cuda:1"), Device(DeviceType::kCUDA, 1));
  EXPECT_EQ(Device::parse("cpu"), Device(DeviceType::kCPU));
  EXPECT_EQ(Device::parse("xpu:0"), Device(DeviceType::kXPU, 0));
  EXPECT_EQ(Device(DeviceType::kCUDA, 1).str(), "cuda:1");
  EXPECT_EQ(Device(DeviceType::kCPU).str(), "cpu");
}

}  // namespace
}  // namespace accel::test
