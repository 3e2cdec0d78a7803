// Conformance: DeviceIndexGuard and the exchange functions, once per backend profile.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "live_object_listener.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

using Guards = ConformanceTest;

TEST_P(Guards, GuardSelectsThenRestoresAndNests) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    const int last = count - 1;
    set_device_index(0);
    {
      DeviceIndexGuard outer(1);
      EXPECT_EQ(outer.original_index(), 0);
      EXPECT_EQ(outer.target_index(), 1);
      EXPECT_EQ(current_device_index(), 1);
      {
        DeviceIndexGuard inner(last);
        EXPECT_EQ(inner.original_index(), 1);
        EXPECT_EQ(current_device_index(), last);
      }
      EXPECT_EQ(current_device_index(), 1);
    }
    EXPECT_EQ(current_device_index(), 0);
  });
}

TEST_P(Guards, GuardRestoresWhenTheScopeThrows) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    try {
      DeviceIndexGuard guard(1);
      EXPECT_EQ(current_device_index(), 1);
      throw std::runtime_error("leaving by exception");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(current_device_index(), 0);
  });
}

TEST_P(Guards, FailedGuardChangesNothing) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    set_device_index(1);
    const CaughtError caught = catch_error([count] { DeviceIndexGuard guard(count); });
    EXPECT_TRUE(is_error_containing(caught, ErrorKind::kDriver, "invalid device ordinal"));
    EXPECT_EQ(current_device_index(), 1);
  });
}

TEST_P(Guards, EmptyGuardDoesNothingAndInitialisesNothing) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("DeviceIndexGuard(nullopt) is a no-op"));
    require_physical_devices(p, 1);
    {
      DeviceIndexGuard guard(std::nullopt);
      EXPECT_EQ(guard.original_index(), std::nullopt);
      EXPECT_EQ(guard.target_index(), std::nullopt);
    }
    EXPECT_FALSE(is_initialized());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
    }
  });
}

// PyTorch restores with MaybeExchangeDevice: leaving a scope never creates a context on
// the device that was current before, when it had none.
TEST_P(Guards, LeavingAGuardCreatesNoContextOnThePreviousDevice) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("counts the driver's primary contexts");
  if (!p.has_primary_contexts) {  // Note [Backend branches]
    GTEST_SKIP() << "SKIPPED on profile " << p.name
                 << ": the backend has no per-device context to create (Level Zero has no "
                    "current context; one context serves every device)";
  }
  run_isolated([&p] {
    promise_live_objects({1, 0, "only the guarded device gets a context"});
    require_physical_devices(p, 2);
    {
      DeviceIndexGuard guard(1);
      EXPECT_EQ(guard.original_index(), 0);
    }
    EXPECT_EQ(mockdev::control::live_objects().primary_contexts_active, 1u);
  });
}

TEST_P(Guards, ExchangeReturnsThePreviousIndex) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 2);
    EXPECT_EQ(exchange_device(1), 0);
    EXPECT_EQ(exchange_device(1), 1) << "same index: no-op returning it";
    EXPECT_EQ(maybe_exchange_device(count - 1), 1);
    EXPECT_EQ(current_device_index(), count - 1);
    EXPECT_EQ(maybe_exchange_device(0), count - 1);
    EXPECT_EQ(current_device_index(), 0);
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Guards);

}  // namespace
}  // namespace accel::test
