// The per-thread current-device cache (Note [Thread-local current device]): what the core
// accepts from the backend before caching it, and when it must forget what it cached.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
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
  EXPECT_TRUE(is_error_containing(catch_error([] { current_device_index(); }),
                                  ErrorKind::kDriver, "reported device -2"));
  EXPECT_EQ(current_device_index(), 2);
  EXPECT_EQ(current_device_index(), 2);  // cached now
}

// A call that switches the thread's context for its duration (memory_info) and fails may leave the thread elsewhere (CUDA: the restore of the
// previous context failed), so the core forgets the cached index and asks the backend.
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

}  // namespace
}  // namespace accel::test
