// DeviceIndexGuard and the per-thread current device (torch.accelerator.set_device_index,
// torch.accelerator.device_index, c10's DeviceGuard): restore on
// normal exit, on exceptions and when a backend call fails inside the scope; nesting;
// no backend switch for the index already current; one thread never sees another's.

#include "accel/device_index_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::Return;

using DeviceIndexGuardTest = BackendTest;

TEST_F(DeviceIndexGuardTest, SwitchesAndRestoresOnNormalExit) {
  set_device_index(1);
  {
    DeviceIndexGuard guard(3);
    EXPECT_EQ(current_device_index(), 3);
    EXPECT_EQ(guard.original_index(), 1);
    EXPECT_EQ(guard.target_index(), 3);
  }
  EXPECT_EQ(current_device_index(), 1);
}

TEST_F(DeviceIndexGuardTest, EnteringAGuardInitialises) {
  EXPECT_FALSE(is_initialized());
  DeviceIndexGuard guard(2);
  EXPECT_TRUE(is_initialized());
}

TEST_F(DeviceIndexGuardTest, RestoresWhenTheBodyThrows) {
  set_device_index(2);
  try {
    DeviceIndexGuard guard(0);
    EXPECT_EQ(current_device_index(), 0);
    throw std::runtime_error("body failed");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "body failed");
  }
  EXPECT_EQ(current_device_index(), 2);
}

TEST_F(DeviceIndexGuardTest, NestedGuardsEachRestoreTheirOwnPrevious) {
  {
    DeviceIndexGuard outer(1);
    {
      DeviceIndexGuard middle(2);
      {
        DeviceIndexGuard inner(3);
        EXPECT_EQ(current_device_index(), 3);
        EXPECT_EQ(inner.original_index(), 2);
      }
      EXPECT_EQ(current_device_index(), 2);
      {
        DeviceIndexGuard empty(std::nullopt);
        EXPECT_EQ(current_device_index(), 2);
      }
      EXPECT_EQ(current_device_index(), 2);
    }
    EXPECT_EQ(current_device_index(), 1);
  }
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(DeviceIndexGuardTest, SameIndexDoesNotSwitchTheBackend) {
  set_device_index(2);
  EXPECT_EQ(current_device_index(), 2);
  EXPECT_CALL(backend(), set_device(_)).Times(0);
  EXPECT_CALL(backend(), maybe_set_device(_)).Times(0);
  {
    DeviceIndexGuard guard(2);
    EXPECT_EQ(guard.original_index(), 2);
    EXPECT_EQ(current_device_index(), 2);
  }
  EXPECT_EQ(exchange_device(2), 2);
  EXPECT_EQ(current_device_index(), 2);
}

TEST_F(DeviceIndexGuardTest, ExchangeDeviceReturnsThePrevious) {
  EXPECT_EQ(exchange_device(3), 0);
  EXPECT_EQ(current_device_index(), 3);
  EXPECT_EQ(exchange_device(1), 3);
  EXPECT_EQ(maybe_exchange_device(0), 1);
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(DeviceIndexGuardTest, ExitRestoresWithoutCreatingAContext) {
  // Device 0 never got a context; leaving the guard must not create one (maybe_set_device).
  { DeviceIndexGuard guard(2); }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(machine().contexts().count(0), 0u) << "restoring device 0 created a context on it";
  EXPECT_EQ(machine().contexts().count(2), 1u) << "entering a guard must create the context";
}

TEST_F(DeviceIndexGuardTest, BackendFailureInsideAGuardStillRestoresTheDevice) {
  set_device_index(1);
  ON_CALL(backend(), memory_info(3)).WillByDefault([](int) {
    return detail::Result<MemoryInfo>(
        detail::Status(ErrorKind::kDriver, "cuMemGetInfo: CUDA_ERROR_ECC_UNCORRECTABLE (device=3)",
                       ErrorDetail{3, 214, "CUDA_ERROR_ECC_UNCORRECTABLE"}));
  });
  CaughtError caught;
  {
    DeviceIndexGuard guard(3);
    caught = catch_error([] { get_memory_info(); });
    EXPECT_EQ(current_device_index(), 3);
  }
  EXPECT_TRUE(is_error(caught, ErrorKind::kDriver,
                       "cuMemGetInfo: CUDA_ERROR_ECC_UNCORRECTABLE (device=3)"));
  EXPECT_EQ(current_device_index(), 1);
}

TEST_F(DeviceIndexGuardTest, BackendFailurePropagatingThroughAGuardStillRestores) {
  set_device_index(2);
  ON_CALL(backend(), memory_info(0)).WillByDefault([](int) {
    return detail::Result<MemoryInfo>(
        detail::Status(ErrorKind::kDriver, "cuMemGetInfo: failed (device=0)"));
  });
  const CaughtError caught = catch_error([] {
    DeviceIndexGuard guard(0);
    get_memory_info();  // throws accel::Error out of the guard's scope
  });
  EXPECT_TRUE(is_error(caught, ErrorKind::kDriver, "cuMemGetInfo: failed (device=0)"));
  EXPECT_EQ(current_device_index(), 2);
}

TEST_F(DeviceIndexGuardTest, FailedSwitchInsideAGuardLeavesTheGuardRestorable) {
  ON_CALL(backend(), set_device(2)).WillByDefault([](int) {
    return detail::Status(ErrorKind::kDriver, "cuCtxSetCurrent: CUDA_ERROR_UNKNOWN (device=2)");
  });
  {
    DeviceIndexGuard guard(1);
    EXPECT_TRUE(is_error(catch_error([] { set_device_index(2); }), ErrorKind::kDriver,
                         "cuCtxSetCurrent: CUDA_ERROR_UNKNOWN (device=2)"));
    EXPECT_EQ(current_device_index(), 1);
  }
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(DeviceIndexGuardTest, ANewThreadStartsAtDeviceZero) {
  set_device_index(3);
  int seen = -1;
  std::thread([&] { seen = current_device_index(); }).join();
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(current_device_index(), 3);
}

TEST_F(DeviceIndexGuardTest, OneThreadsSwitchDoesNotAffectAnother) {
  set_device_index(1);
  int inside = -1;
  int after_guard = -1;
  std::thread([&] {
    set_device_index(2);
    {
      DeviceIndexGuard guard(3);
      inside = current_device_index();
    }
    after_guard = current_device_index();
  }).join();
  EXPECT_EQ(inside, 3);
  EXPECT_EQ(after_guard, 2);
  EXPECT_EQ(current_device_index(), 1);
}

}  // namespace
}  // namespace accel::test
