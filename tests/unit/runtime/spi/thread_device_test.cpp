// The per-thread current-device cache (Note [Thread-local current device]): what the core
// accepts from the backend before caching it, and when it must forget what it cached.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "accel/accelerator.h"
#include "accel/device_index_guard.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "core/backend_override.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::Return;

using ThreadDeviceTest = BackendTest;

// A backend that reports a device outside [0, device_count()) (CUDA: a raw CUdevice that
// is not a visible index) is an error, and nothing is cached: the next call asks again.
TEST_F(ThreadDeviceTest, CurrentDeviceOutsideTheVisibleRangeIsAnErrorAndNotCached) {
  EXPECT_CALL(backend(), current_device())
      .WillOnce(Return(detail::Result<int>(7)))
      .WillOnce(Return(detail::Result<int>(-2)))
      .WillRepeatedly(Return(detail::Result<int>(2)));
  init();
  const char* message =
      "current_device: the backend reported device 7, which is not a visible device "
      "(device=7, device_count=4)";
  EXPECT_TRUE(is_error(catch_error([] { current_device_index(); }), ErrorKind::kDriver, message));
  EXPECT_TRUE(is_error_containing(catch_error([] { current_device_index(); }), ErrorKind::kDriver,
                                  "reported device -2"));
  EXPECT_EQ(current_device_index(), 2);
  EXPECT_EQ(current_device_index(), 2);  // cached now
}

// A call that switches the thread's context for its duration (memory_info) and fails may leave the
// thread elsewhere (CUDA: the restore of the previous context failed), so the core forgets the
// cached index and asks the backend.
TEST_F(ThreadDeviceTest, AFailedTemporarySwitchInvalidatesTheCache) {
  set_device_index(0);
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_CALL(backend(), memory_info(1))
      .WillOnce(Return(detail::Result<MemoryInfo>(
          detail::Status(ErrorKind::kDriver, "memory_info: restore failed"))));
  EXPECT_TRUE(is_error(catch_error([] { get_memory_info(1); }), ErrorKind::kDriver,
                       "memory_info: restore failed"));
  EXPECT_CALL(backend(), current_device()).WillOnce(Return(detail::Result<int>(1)));
  EXPECT_EQ(current_device_index(), 1);
}

// The guard's inline exit compares the thread's key with the one it saw on entry: a change
// inside the scope (here a switch to 3) must take the out-of-line path and restore.
TEST_F(ThreadDeviceTest, FastPathGuardStillRestoresAfterASwitchInsideTheScope) {
  set_device_index(0);
  {
    DeviceIndexGuard guard(0);  // already current: the inline path
    EXPECT_EQ(guard.original_index(), 0);
    EXPECT_EQ(guard.target_index(), 0);
    set_device_index(3);
    EXPECT_EQ(current_device_index(), 3);
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(machine().current_device(), 0);
}

// An index the cache cannot hold never takes the inline path: it gets exchange_device's
// range error, and nothing changes.
TEST_F(ThreadDeviceTest, GuardWithAnOutOfRangeIndexThrowsTheRangeError) {
  set_device_index(0);
  for (int bad : {-1, 128, 255, 256 + 0}) {
    EXPECT_TRUE(is_error(
        catch_error([bad] { DeviceIndexGuard guard(bad); }), ErrorKind::kIndex,
        "Device index " + std::to_string(bad) + " is out of range for DeviceIndex [0, 127]"))
        << bad;
  }
  EXPECT_EQ(current_device_index(), 0);
}

// An empty guard does nothing on entry or exit, even when the thread's device changes
// inside its scope.
TEST_F(ThreadDeviceTest, EmptyGuardNeverRestores) {
  set_device_index(1);
  {
    DeviceIndexGuard guard(std::nullopt);
    EXPECT_EQ(guard.original_index(), std::nullopt);
    EXPECT_EQ(guard.target_index(), std::nullopt);
    set_device_index(2);
  }
  EXPECT_EQ(current_device_index(), 2);
}

// Installing an override publishes a new generation: an entry cached under the previous
// state never answers for the new one.
TEST_F(ThreadDeviceTest, AnOverrideForgetsEveryCachedEntry) {
  set_device_index(2);
  EXPECT_EQ(current_device_index(), 2);
  {
    auto other = std::make_unique<::testing::NiceMock<MockBackend>>();
    other->install_defaults(std::make_shared<FakeMachine>(4));
    EXPECT_CALL(*other, current_device()).WillOnce(Return(detail::Result<int>(1)));
    detail::ScopedBackendOverride inner(std::move(other));
    EXPECT_EQ(current_device_index(), 1);  // asked the new backend
  }
  EXPECT_CALL(backend(), current_device()).WillOnce(Return(detail::Result<int>(2)));
  EXPECT_EQ(current_device_index(), 2);  // asked again after the override ended
}

}  // namespace
}  // namespace accel::test
