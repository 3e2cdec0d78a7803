// Conformance: streams through the whole stack (runtime -> backend -> driver), once per
// backend profile. Ordering is observed with real work: fills and copies queued through the
// runtime on its streams (runtime_work.h, accel/copy.h), so the same bodies run on CUDA and
// Level Zero. On the simulated hardware the tests run under the adversarial schedule
// (nothing completes until something waits for it), so a missing dependency shows as old
// bytes, every time.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "live_object_listener.h"
#include "mockdev/control.h"
#include "mockdev/streams.h"
#include "runtime_work.h"

namespace accel::test {
namespace {

using Streams = ConformanceTest;

TEST_P(Streams, DefaultAndPoolStreamsOfEveryDevice) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    for (int i = 0; i < count; ++i) {
      const Stream def = current_stream(i);
      EXPECT_EQ(def, Stream::default_stream(i));
      EXPECT_EQ(def.id(), 0);
      EXPECT_EQ(def.native_handle(), 0u);
      const Stream pooled(i);
      EXPECT_NE(pooled, def);
      EXPECT_NE(pooled.native_handle(), 0u);
      EXPECT_EQ(pooled.device(), Device(p.device_type, i));
      EXPECT_TRUE(pooled.query());
    }
    const auto [least, greatest] = priority_range();
    EXPECT_EQ(least, 0);
    EXPECT_LE(greatest, -1);
    EXPECT_GE(greatest, -3);
  });
}

TEST_P(Streams, PoolIsMadeOnceAndHandsOutItsStreamsRoundRobin) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("counts the simulated driver's queues");
  run_isolated([&p] {
    require_physical_devices(p, 1);
    init();
    set_device_index(0);
    const std::uint64_t before = mockdev::streams::stats().queues;
    const std::uint64_t calls_before = mockdev::control::call_count(p.stream_create_entry_point);
    const Stream first(0);
    const std::uint64_t levels = static_cast<std::uint64_t>(1 - priority_range().second);
    EXPECT_EQ(mockdev::streams::stats().queues - before, 32 * levels);
    std::set<std::uintptr_t> handles{first.native_handle()};
    for (int i = 1; i < 32; ++i) handles.insert(Stream(0).native_handle());
    EXPECT_EQ(handles.size(), 32u);
    const Stream thirty_third(0);
    EXPECT_EQ(thirty_third, first);
    EXPECT_EQ(thirty_third.native_handle(), first.native_handle());
    EXPECT_EQ(mockdev::streams::stats().queues - before, 32 * levels) << "no new driver stream";
    EXPECT_EQ(mockdev::control::call_count(p.stream_create_entry_point) - calls_before,
              32 * levels);
  });
}

TEST_P(Streams, SetStreamSwitchesDeviceAndGuardsRestoreBothDevices) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 2);
    const Stream s0(0);
    const Stream s1(1);
    set_stream(s0);
    EXPECT_EQ(current_device_index(), 0);
    {
      StreamGuard guard(s1);
      EXPECT_EQ(current_device_index(), 1);
      EXPECT_EQ(current_stream(), s1);
      EXPECT_EQ(current_stream(0), s0);
    }
    EXPECT_EQ(current_device_index(), 0);
    EXPECT_EQ(current_stream(1), Stream::default_stream(1));
    set_stream(s1);
    EXPECT_EQ(current_device_index(), 1);
    EXPECT_EQ(current_stream(0), s0);
  });
}

TEST_P(Streams, QueryAndSynchronizeFollowTheQueuedWork) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        DeviceMemory buffer(4096, s);
        fill_async(buffer.ptr, 3, 4096, s);
        EXPECT_FALSE(s.query());
        s.synchronize();
        EXPECT_TRUE(s.query());
        EXPECT_EQ(read_back(buffer.ptr, 4096, s), Bytes(4096, 3));
      },
      kAdversarial);
}

TEST_P(Streams, WaitStreamOrdersWorkAcrossStreams) {
  const BackendProfile& p = profile();
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream producer(0);
        const Stream consumer(0, -1);
        DeviceMemory source(256, producer);
        DeviceMemory target(256, consumer);
        fill(source.ptr, 0, 256, producer);
        fill(target.ptr, 0, 256, consumer);
        fill_async(source.ptr, 7, 256, producer);
        consumer.wait_stream(producer);
        copy_async(target.ptr, source.ptr, 256, consumer);
        consumer.synchronize();
        EXPECT_EQ(read_back(target.ptr, 256, consumer), Bytes(256, 7));
        producer.synchronize();
      },
      kAdversarial);
}

TEST_P(Streams, WithoutTheWaitTheSimulatedHardwareShowsTheRace) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("the adversarial schedule makes the missing dependency visible");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream producer(0);
        const Stream consumer(0, -1);
        DeviceMemory source(256, producer);
        DeviceMemory target(256, consumer);
        fill(source.ptr, 0, 256, producer);
        fill(target.ptr, 0, 256, consumer);
        fill_async(source.ptr, 7, 256, producer);
        copy_async(target.ptr, source.ptr, 256, consumer);
        consumer.synchronize();
        EXPECT_EQ(read_back(target.ptr, 256, consumer), Bytes(256, 0)) << "the copy ran first";
        producer.synchronize();
      },
      kAdversarial);
}

TEST_P(Streams, SynchronizeWaitsForEveryStreamOfTheDevice) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 2);
        schedule_from_environment(p);
        const Stream a(1);
        const Stream b(1, -1);
        DeviceMemory buffer(512, a);
        fill_async(buffer.bytes(), 1, 256, a);
        fill_async(buffer.bytes() + 256, 2, 256, b);
        set_device_index(0);
        EXPECT_FALSE(a.query());
        EXPECT_FALSE(b.query());
        synchronize(1);
        EXPECT_EQ(current_device_index(), 0);
        EXPECT_TRUE(a.query());
        EXPECT_TRUE(b.query());
        Bytes expected(256, 1);
        expected.resize(512, 2);
        EXPECT_EQ(read_back(buffer.ptr, 512, a), expected);
      },
      kAdversarial);
}

TEST_P(Streams, SynchronizeWithAnIndexBeforeInitialisationDoesNothing) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    promise_live_objects(promise_nothing_alive("synchronize(0) before init is a no-op"));
    require_physical_devices(p, 1);
    synchronize(0);
    EXPECT_FALSE(is_initialized());
    if (p.on_mock) {
      EXPECT_EQ(mockdev::control::call_count(p.init_entry_point), 0u);
    }
  });
}

TEST_P(Streams, BadArgumentsNameTheValue) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    const int count = require_physical_devices(p, 1);
    const std::string range = "Device index value " + std::to_string(count) +
                              " is out of index range [0, " + std::to_string(count) + ")";
    EXPECT_TRUE(
        is_error(catch_error([count] { current_stream(count); }), ErrorKind::kIndex, range));
    EXPECT_TRUE(is_error(catch_error([count] { Stream s(count); }), ErrorKind::kIndex, range));
    EXPECT_TRUE(is_error(catch_error([] { Stream s(0, 2); }), ErrorKind::kValue,
                         "Expected " + p.device_type_name +
                             " stream priority to be less than or equal to 0, got 2"));
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Streams);

}  // namespace
}  // namespace accel::test
