// Conformance: lazy initialisation and deferred calls, once per backend profile.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "live_object_listener.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

using LazyInit = ConformanceTest;

TEST_P(LazyInit, PureQueriesNeverInitialise) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("pure queries touch no device"));
    require_physical_devices(p, 1);
    for (int round = 0; round < 3; ++round) {
      EXPECT_GT(device_count(), 0);
      EXPECT_TRUE(is_available());
      EXPECT_TRUE(current_accelerator(true).has_value());
      EXPECT_FALSE(is_in_bad_fork());
      EXPECT_TRUE(backend_report().available);
    }
    EXPECT_FALSE(is_initialized());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
      EXPECT_FALSE(p.mock_driver_initialized());
    }
  });
}

TEST_P(LazyInit, FirstDeviceCallInitialisesOnce) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    EXPECT_FALSE(is_initialized());
    EXPECT_EQ(current_device_index(), 0);
    EXPECT_TRUE(is_initialized());
    init();
    init();
    EXPECT_TRUE(is_initialized());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), p.driver_init_calls_per_init)
          << "init() is once per process";
    }
  });
}

TEST_P(LazyInit, DeferredCallsRunInOrderAtInitThenImmediately) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    std::vector<int> order;
    lazy_call([&order] { order.push_back(1); });
    lazy_call([&order] { order.push_back(2); });
    lazy_call([&order] { order.push_back(3); });
    EXPECT_TRUE(order.empty());
    EXPECT_FALSE(is_initialized()) << "lazy_call() initialised";
    init();
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
    lazy_call([&order] { order.push_back(4); });
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4})) << "after init, lazy_call runs at once";
  });
}

TEST_P(LazyInit, FailingDeferredCallRaisesDeferredCallErrorAndIsReplayed) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    int attempts = 0;
    lazy_call([&attempts] {
      if (++attempts == 1) throw std::runtime_error("first attempt fails");
    });
    const CaughtError caught = catch_error([] { init(); });
    EXPECT_EQ(caught.type, "DeferredCallError") << caught.describe();
    EXPECT_EQ(caught.kind, ErrorKind::kDeferredCall);
    EXPECT_EQ(caught.message.rfind(p.error_name +
                                       " call failed lazily at initialization with error: "
                                       "first attempt fails\n\n" +
                                       p.error_name + " call was originally invoked at:",
                                   0),
              0u)
        << caught.message;
    EXPECT_FALSE(is_initialized());
    init();
    EXPECT_EQ(attempts, 2) << "the queue is replayed by the next init()";
    EXPECT_TRUE(is_initialized());
  });
}

TEST_P(LazyInit, DriverInitFailureKeepsTheQueue) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("scripts a driver initialisation failure");
  run_isolated([&p] {
    require_physical_devices(p, 1);
    mockdev::control::fail_call(p.init_entry_point, 1, p.init_failure_code);
    bool ran = false;
    lazy_call([&ran] { ran = true; });
    const CaughtError caught = catch_error([] { init(); });
    EXPECT_TRUE(is_error_containing(caught, p.init_failure_kind, p.init_failure_name))
        << caught.describe();
    EXPECT_FALSE(ran);
    EXPECT_FALSE(is_initialized());
    if (p.init_failure_is_retryable) {
      init();
      EXPECT_TRUE(ran);
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 2u);
    } else {
      // Note [Backend branches]: the loader dropped the driver; the queue is still kept
      // and every later init() fails again instead of running it.
      const CaughtError again = catch_error([] { init(); });
      EXPECT_TRUE(again.thrown()) << "init() succeeded after the loader dropped the driver";
      EXPECT_FALSE(ran);
      EXPECT_FALSE(is_initialized());
    }
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(LazyInit);

}  // namespace
}  // namespace accel::test
