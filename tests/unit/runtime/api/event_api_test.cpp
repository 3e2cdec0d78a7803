// Events over a mocked backend (PyTorch's CUDAEvent): lazy creation on the first
// recording stream's device, flags, never-recorded semantics, record/wait/query/
// synchronize, elapsed_time's checks and PyTorch's exact messages, ForkError in a child.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <utility>

#include "accel/accelerator.h"
#include "accel/event.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "child_process.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::AllOf;
using ::testing::Field;
using ::testing::Return;

using EventApiTest = BackendTest;

// Records `event` on `stream` while the fake holds that stream's work back.
void record_on_busy_stream(MockBackend& backend, Event& event, const Stream& stream) {
  EXPECT_CALL(backend, record_event(stream.device_index(), _, _))
      .WillOnce([&backend](int index, detail::EventHandle e, detail::StreamHandle h) {
        backend.streams()->set_busy(index, h, true);
        return backend.streams()->record_event(index, e, h);
      })
      .RetiresOnSaturation();
  event.record(stream);
}

TEST_F(EventApiTest, ConstructingAnEventTouchesNothing) {
  EXPECT_CALL(backend(), create_event(_, _)).Times(0);
  Event event;
  EXPECT_FALSE(event.is_created());
  EXPECT_EQ(event.device_index(), std::nullopt);
  EXPECT_FALSE(is_initialized());
}

TEST_F(EventApiTest, CreatedOnTheFirstRecordOnTheStreamsDeviceWithPyTorchsFlags) {
  set_device_index(0);
  Event event(EventOptions{.enable_timing = true, .blocking = true});
  EXPECT_CALL(backend(), create_event(2, AllOf(Field(&EventOptions::enable_timing, true),
                                               Field(&EventOptions::blocking, true),
                                               Field(&EventOptions::interprocess, false))))
      .Times(1);
  const Stream s(2);
  event.record(s);
  event.record(s);  // created once
  EXPECT_EQ(event.device_index(), 2);
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(backend().streams()->live_events(), 1);
}

TEST_F(EventApiTest, DefaultRecordUsesTheCurrentStreamOfTheCurrentDevice) {
  set_device_index(1);
  const Stream s(1);
  set_stream(s);
  detail::StreamHandle recorded_on;
  EXPECT_CALL(backend(), record_event(1, _, _))
      .WillOnce([&](int index, detail::EventHandle e, detail::StreamHandle h) {
        recorded_on = h;
        return backend().streams()->record_event(index, e, h);
      });
  Event event;
  event.record();
  EXPECT_TRUE(recorded_on);  // a pool stream, not the default stream
  EXPECT_EQ(event.device_index(), 1);
}

TEST_F(EventApiTest, RecordingOnAnotherDevicesStreamIsRejected) {
  Event event;
  event.record(Stream(0));
  EXPECT_TRUE(is_error(catch_error([&] { event.record(Stream(1)); }), ErrorKind::kRuntime,
                       "Event device 0 does not match recording stream's device 1."));
}

TEST_F(EventApiTest, NeverRecordedEventStandsForNoWork) {
  EXPECT_CALL(backend(), stream_wait_event(_, _, _)).Times(0);
  EXPECT_CALL(backend(), synchronize_event(_, _)).Times(0);
  EXPECT_CALL(backend(), query_event(_, _)).Times(0);
  Event event;
  EXPECT_TRUE(event.query());
  event.synchronize();
  event.wait(Stream(1));
  Stream(2).wait_event(event);
}

TEST_F(EventApiTest, QueryIsFalseUntilTheRecordedWorkCompletes) {
  Event event;
  const Stream s(1);
  record_on_busy_stream(backend(), event, s);
  EXPECT_FALSE(event.query());
  event.synchronize();
  EXPECT_TRUE(event.query());
}

TEST_F(EventApiTest, WaitRunsOnTheWaitingStreamsDeviceWhichMayDiffer) {
  Event event;
  event.record(Stream(0));
  EXPECT_CALL(backend(), stream_wait_event(3, _, _)).Times(1);
  event.wait(Stream(3));
  EXPECT_CALL(backend(), stream_wait_event(2, detail::StreamHandle{}, _)).Times(1);
  Stream::default_stream(2).wait_event(event);
  EXPECT_EQ(backend().streams()->waits(), 2);
}

TEST_F(EventApiTest, WaitStreamRecordsAFreshTimingFreeEventOnTheOtherStream) {
  const Stream waiter(0);
  const Stream other(1);
  EXPECT_CALL(backend(), create_event(1, Field(&EventOptions::enable_timing, false))).Times(1);
  EXPECT_CALL(backend(), record_event(1, _, _)).Times(1);
  EXPECT_CALL(backend(), stream_wait_event(0, _, _)).Times(1);
  EXPECT_CALL(backend(), destroy_event(1, _)).Times(1);
  waiter.wait_stream(other);
  EXPECT_EQ(backend().streams()->live_events(), 0);
}

TEST_F(EventApiTest, StreamRecordEventReturnsARecordedEvent) {
  const Stream s(2);
  Event event = s.record_event();
  EXPECT_EQ(event.device_index(), 2);
  EXPECT_FALSE(event.options().enable_timing);
  Event timed(EventOptions{.enable_timing = true});
  Event& same = s.record_event(timed);
  EXPECT_EQ(&same, &timed);
  EXPECT_EQ(timed.device_index(), 2);
}

TEST_F(EventApiTest, ElapsedTimeIsTheDriversMilliseconds) {
  Event start(EventOptions{.enable_timing = true});
  Event end(EventOptions{.enable_timing = true});
  const Stream s(1);
  start.record(s);
  Stream(1).record_event();  // another record in between advances the fake clock
  end.record(s);
  EXPECT_FLOAT_EQ(start.elapsed_time(end), 1.0f);
  EXPECT_FLOAT_EQ(end.elapsed_time(start), -1.0f);
}

TEST_F(EventApiTest, ElapsedTimeChecksTimingThenRecordingThenCompletionInPyTorchsOrder) {
  Event timed(EventOptions{.enable_timing = true});
  Event untimed;
  const char* kTiming = "Both events must be created with argument 'enable_timing=True'.";
  const char* kRecorded = "Both events must be recorded before calculating elapsed time.";
  const char* kCompleted = "Both events must be completed before calculating elapsed time.";
  // Neither recorded: the timing check comes first.
  EXPECT_TRUE(
      is_error(catch_error([&] { timed.elapsed_time(untimed); }), ErrorKind::kValue, kTiming));
  EXPECT_TRUE(
      is_error(catch_error([&] { untimed.elapsed_time(timed); }), ErrorKind::kValue, kTiming));
  Event other(EventOptions{.enable_timing = true});
  EXPECT_TRUE(
      is_error(catch_error([&] { timed.elapsed_time(other); }), ErrorKind::kValue, kRecorded));
  timed.record(Stream(0));
  EXPECT_TRUE(
      is_error(catch_error([&] { timed.elapsed_time(other); }), ErrorKind::kValue, kRecorded));
  record_on_busy_stream(backend(), other, Stream(0));
  EXPECT_TRUE(
      is_error(catch_error([&] { timed.elapsed_time(other); }), ErrorKind::kRuntime, kCompleted));
  other.synchronize();
  EXPECT_FLOAT_EQ(timed.elapsed_time(other), 0.5f);
}

TEST_F(EventApiTest, ElapsedTimeAcrossDevicesIsTheDriversError) {
  Event a(EventOptions{.enable_timing = true});
  Event b(EventOptions{.enable_timing = true});
  a.record(Stream(0));
  b.record(Stream(1));
  EXPECT_TRUE(is_error(catch_error([&] { a.elapsed_time(b); }), ErrorKind::kDriver,
                       "event_elapsed_time: cuEventElapsedTime: CUDA error: invalid resource "
                       "handle (device=0, driver=CUDA_ERROR_INVALID_HANDLE)"));
}

TEST_F(EventApiTest, InterprocessWithTimingIsTheDriversError) {
  Event event(EventOptions{.enable_timing = true, .interprocess = true});
  EXPECT_TRUE(is_error(catch_error([&] { event.record(Stream(0)); }), ErrorKind::kDriver,
                       "create_event: cuEventCreate: CUDA error: invalid argument (device=0, "
                       "driver=CUDA_ERROR_INVALID_VALUE)"));
  EXPECT_FALSE(event.is_created());
  Event shareable(EventOptions{.interprocess = true});
  shareable.record(Stream(0));
  EXPECT_TRUE(shareable.is_created());
}

TEST_F(EventApiTest, DestroyedWithItsOwnerAndMovedNotCopied) {
  {
    Event a;
    a.record(Stream(3));
    EXPECT_EQ(backend().streams()->live_events(), 1);
    Event b(std::move(a));
    EXPECT_FALSE(a.is_created());
    EXPECT_EQ(b.device_index(), 3);
    Event c;
    c.record(Stream(3));
    EXPECT_EQ(backend().streams()->live_events(), 2);
    c = std::move(b);  // c's own event is destroyed
    EXPECT_EQ(backend().streams()->live_events(), 1);
  }
  EXPECT_EQ(backend().streams()->live_events(), 0);
}

TEST_F(EventApiTest, EveryCallRaisesForkErrorInAPoisonedChild) {
  Event recorded;
  recorded.record(Stream(1));
  const ChildStatus child = run_in_child(
      [this, &recorded] {
        Event fresh;
        EXPECT_TRUE(is_fork_error(catch_error([&] { fresh.record(Stream::unchecked(1, 0)); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { fresh.query(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { fresh.synchronize(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { fresh.wait(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { recorded.query(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { recorded.synchronize(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { recorded.wait(Stream::unchecked(1, 0)); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { recorded.record(Stream::unchecked(1, 0)); })));
        EXPECT_TRUE(is_fork_error(catch_error([&] { recorded.elapsed_time(recorded); })));
        // Its destructor must not reach the driver in the child.
        { Event moved(std::move(recorded)); }
        EXPECT_EQ(backend().streams()->live_events(), 1);
      },
      10);
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_EQ(backend().streams()->live_events(), 1);
}

}  // namespace
}  // namespace accel::test
