// Conformance: events through the whole stack, once per backend profile (see stream_test.cpp
// for how work is queued through the runtime and held back).
#include <gtest/gtest.h>

#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "mockdev/control.h"
#include "runtime_work.h"

namespace accel::test {
namespace {

using Events = ConformanceTest;

TEST_P(Events, CreatedLazilyOnTheRecordingStreamsDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    Event event;
    EXPECT_FALSE(event.is_created());
    EXPECT_TRUE(event.query()) << "never recorded: no work";
    event.synchronize();
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.event_create_entry_point), 0u);
    }
    const Stream s(1);
    event.record(s);
    EXPECT_EQ(event.device_index(), 1);
    EXPECT_EQ(current_device_index(), 0);
    event.synchronize();
    EXPECT_TRUE(event.query());
    EXPECT_TRUE(is_error(catch_error([&] { event.record(Stream(0)); }), ErrorKind::kRuntime,
                         "Event device 1 does not match recording stream's device 0."));
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.event_create_entry_point), 1u);
    }
  });
}

TEST_P(Events, QueryAndSynchronizeFollowTheRecordedWork) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        DeviceMemory buffer(1024, s);
        fill_async(buffer.ptr, 9, 1024, s);
        Event event = s.record_event();
        EXPECT_FALSE(event.query());
        event.synchronize();
        EXPECT_TRUE(event.query());
        EXPECT_EQ(read_back(buffer.ptr, 1024, s), Bytes(1024, 9));
      },
      kAdversarial);
}

TEST_P(Events, WaitOnAnEventOrdersTheWaitingStream) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream producer(0);
        const Stream consumer(0, -1);
        DeviceMemory source(128, producer);
        DeviceMemory target(128, consumer);
        fill(target.ptr, 0, 128, consumer);
        fill_async(source.ptr, 4, 128, producer);
        Event done;
        done.record(producer);
        consumer.wait_event(done);
        copy_async(target.ptr, source.ptr, 128, consumer);
        consumer.synchronize();
        EXPECT_EQ(read_back(target.ptr, 128, consumer), Bytes(128, 4));
        producer.synchronize();
      },
      kAdversarial);
}

TEST_P(Events, ElapsedTimeBetweenTwoTimingEvents) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream s(0);
    DeviceMemory buffer(1 << 20, s);
    Event start(EventOptions{.enable_timing = true});
    Event end(EventOptions{.enable_timing = true});
    start.record(s);
    fill_async(buffer.ptr, 1, 1 << 20, s);
    end.record(s);
    end.synchronize();
    const float forward = start.elapsed_time(end);
    EXPECT_GT(forward, 0.0f);
    EXPECT_FLOAT_EQ(end.elapsed_time(start), -forward);
  });
}

TEST_P(Events, ElapsedTimeErrorsInPyTorchsOrder) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream s(0);
    Event timed(EventOptions{.enable_timing = true});
    Event untimed;
    timed.record(s);
    untimed.record(s);
    EXPECT_TRUE(is_error(catch_error([&] { timed.elapsed_time(untimed); }), ErrorKind::kValue,
                         "Both events must be created with argument 'enable_timing=True'."));
    Event unrecorded(EventOptions{.enable_timing = true});
    EXPECT_TRUE(is_error(catch_error([&] { timed.elapsed_time(unrecorded); }), ErrorKind::kValue,
                         "Both events must be recorded before calculating elapsed time."));
  });
}

TEST_P(Events, ElapsedTimeOfIncompleteWorkIsRefused) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        // 1 MiB: long enough to span ticks of every backend's timer (Level Zero's 52 ns).
        DeviceMemory buffer(1 << 20, s);
        Event start(EventOptions{.enable_timing = true});
        Event end(EventOptions{.enable_timing = true});
        start.record(s);
        fill_async(buffer.ptr, 1, 1 << 20, s);
        end.record(s);
        EXPECT_TRUE(is_error(catch_error([&] { start.elapsed_time(end); }), ErrorKind::kRuntime,
                             "Both events must be completed before calculating elapsed time."));
        s.synchronize();
        EXPECT_GT(start.elapsed_time(end), 0.0f);
      },
      kAdversarial);
}

// Timestamps of two devices: the driver's error on CUDA, the backend's refusal on Level Zero
// (elapsed_across_devices_kind / _message; the name keeps the row's recorded history).
TEST_P(Events, ElapsedTimeAcrossDevicesIsTheDriversError) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    Event a(EventOptions{.enable_timing = true});
    Event b(EventOptions{.enable_timing = true});
    a.record(Stream(0));
    b.record(Stream(1));
    a.synchronize();
    b.synchronize();
    const CaughtError caught = catch_error([&] { a.elapsed_time(b); });
    EXPECT_TRUE(is_error_containing(caught, p.elapsed_across_devices_kind,
                                    p.elapsed_across_devices_message))
        << caught.describe();
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Events);

}  // namespace
}  // namespace accel::test
