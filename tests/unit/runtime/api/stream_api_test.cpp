// Streams over a mocked backend (torch.accelerator's stream functions, c10/cuda/CUDAStream.cpp):
// values, ids, equality and hashing; PyTorch's pools (levels, round robin, priorities);
// current streams per thread and per device; set_stream; synchronize; messages.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <unordered_set>

#include "accel/accelerator.h"
#include "accel/event.h"
#include "accel/lazy_init.h"
#include "accel/stream.h"
#include "backend_fixture.h"
#include "child_process.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::Return;

using StreamApiTest = BackendTest;

TEST_F(StreamApiTest, DefaultStreamIsIdZeroOfEachDevice) {
  const Stream s0 = Stream::default_stream(0);
  const Stream s2 = Stream::default_stream("cuda:2");
  EXPECT_EQ(s0.id(), 0);
  EXPECT_EQ(s0.device_index(), 0);
  EXPECT_EQ(s2.device_index(), 2);
  EXPECT_TRUE(s0.is_default());
  EXPECT_EQ(s0.priority(), 0);
  EXPECT_EQ(s2.device(), Device(DeviceType::kCUDA, 2));
  EXPECT_NE(s0, s2);
  EXPECT_EQ(s0, Stream::default_stream(0));
}

TEST_F(StreamApiTest, CurrentStreamStartsAsTheDefaultStreamAndInitialises) {
  EXPECT_FALSE(is_initialized());
  EXPECT_EQ(current_stream(1), Stream::default_stream(1));
  EXPECT_TRUE(is_initialized());
  // No pool is created for a default stream.
  EXPECT_EQ(backend().streams()->streams_created(1), 0);
}

TEST_F(StreamApiTest, CurrentStreamAcceptsEveryDeviceSpelling) {
  set_device_index(2);
  const Stream s(2);
  set_stream(s);
  EXPECT_EQ(current_stream(), s);
  EXPECT_EQ(current_stream(2), s);
  EXPECT_EQ(current_stream("cuda:2"), s);
  EXPECT_EQ(current_stream(Device(DeviceType::kCUDA, 2)), s);
  EXPECT_EQ(current_stream(s.device()), s);
}

TEST_F(StreamApiTest, PoolIsCreatedOnceWithFourLevelsOfThirtyTwoNonDefaultStreams) {
  // The fake's driver range is {0, -5}: PyTorch keeps 4 levels, priorities 0..-3.
  EXPECT_CALL(backend(), create_stream(1, 0)).Times(32);
  EXPECT_CALL(backend(), create_stream(1, -1)).Times(32);
  EXPECT_CALL(backend(), create_stream(1, -2)).Times(32);
  EXPECT_CALL(backend(), create_stream(1, -3)).Times(32);
  const Stream a(1);
  const Stream b(1, -2);
  EXPECT_EQ(backend().streams()->streams_created(1), 128);
  EXPECT_EQ(backend().streams()->streams_created(0), 0);
  EXPECT_EQ(a.device_index(), 1);
  EXPECT_EQ(b.priority(), -2);
}

TEST_F(StreamApiTest, PoolStreamIdsFollowPyTorchsLayoutRoundRobin) {
  // (slot << 5) | (level + 1) << 1 | 1
  EXPECT_EQ(Stream(0).id(), (0 << 5) | (1 << 1) | 1);
  EXPECT_EQ(Stream(0).id(), (1 << 5) | (1 << 1) | 1);
  EXPECT_EQ(Stream(0, -1).id(), (0 << 5) | (2 << 1) | 1);
  EXPECT_EQ(Stream(0, -3).id(), (0 << 5) | (4 << 1) | 1);
  // Slots 2..31 of level 0, then the 33rd request is the 1st stream again.
  std::set<std::int64_t> ids;
  for (int i = 2; i < 32; ++i) ids.insert(Stream(0).id());
  EXPECT_EQ(ids.size(), 30u);
  EXPECT_EQ(Stream(0).id(), (0 << 5) | (1 << 1) | 1);
  EXPECT_EQ(Stream(0), Stream::unchecked(0, (1 << 5) | (1 << 1) | 1));
}

TEST_F(StreamApiTest, PrioritiesClampToTheHighestLevelAndPositiveOnesAreRejected) {
  EXPECT_EQ(Stream(0, -3).priority(), -3);
  EXPECT_EQ(Stream(0, -4).priority(), -3);
  EXPECT_EQ(Stream(0, -1000).priority(), -3);
  EXPECT_EQ(Stream(0, -1).priority(), -1);
  EXPECT_EQ(Stream(0, 0).priority(), 0);
  EXPECT_TRUE(is_error(catch_error([] { Stream s(0, 1); }), ErrorKind::kValue,
                       "Expected cuda stream priority to be less than or equal to 0, got 1"));
}

TEST_F(StreamApiTest, PriorityRangeIsPyTorchsNotTheDrivers) {
  EXPECT_EQ(priority_range(), std::make_pair(0, -3));
  EXPECT_EQ(priority_range(3), std::make_pair(0, -3));
}

TEST_F(StreamApiTest, DriverWithoutPrioritiesHasOneLevel) {
  ON_CALL(backend(), stream_priority_range(_))
      .WillByDefault(Return(
          detail::Result<detail::Backend::PriorityRange>(detail::Backend::PriorityRange{0, 0})));
  EXPECT_CALL(backend(), create_stream(0, 0)).Times(32);
  EXPECT_EQ(priority_range(0), std::make_pair(0, 0));
  const Stream s(0, -3);
  EXPECT_EQ(s.priority(), 0);
  EXPECT_EQ(s.id(), (0 << 5) | (1 << 1) | 1);
}

TEST_F(StreamApiTest, EqualityAndHashCoverDeviceAndId) {
  std::unordered_set<Stream> set;
  set.insert(Stream::default_stream(0));
  set.insert(Stream::default_stream(1));
  set.insert(Stream::default_stream(0));
  const Stream a(0);
  set.insert(a);
  set.insert(a);
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(std::hash<Stream>{}(a), std::hash<Stream>{}(Stream::unchecked(0, a.id())));
  // Same id on two devices: different streams.
  EXPECT_NE(Stream::unchecked(0, a.id()), Stream::unchecked(1, a.id()));
  EXPECT_NE(std::hash<Stream>{}(Stream::unchecked(0, a.id())),
            std::hash<Stream>{}(Stream::unchecked(1, a.id())));
}

TEST_F(StreamApiTest, SetStreamSwitchesToTheStreamsDeviceFirst) {
  const Stream s(3);
  EXPECT_EQ(current_device_index(), 0);
  set_stream(s);
  EXPECT_EQ(current_device_index(), 3);
  EXPECT_EQ(current_stream(), s);
  EXPECT_EQ(current_stream(3), s);
  EXPECT_EQ(current_stream(0), Stream::default_stream(0));
}

TEST_F(StreamApiTest, CurrentStreamsArePerDevice) {
  const Stream s1(1);
  const Stream s2(2);
  set_stream(s1);
  set_stream(s2);
  EXPECT_EQ(current_device_index(), 2);
  EXPECT_EQ(current_stream(1), s1);
  EXPECT_EQ(current_stream(2), s2);
  EXPECT_EQ(current_stream(0), Stream::default_stream(0));
}

TEST_F(StreamApiTest, CurrentStreamsArePerThread) {
  const Stream s(1);
  set_stream(s);
  Stream seen = s;
  std::thread other([&seen] { seen = current_stream(1); });
  other.join();
  EXPECT_EQ(seen, Stream::default_stream(1));
  EXPECT_EQ(current_stream(1), s);
  std::thread setter([] { set_stream(Stream(1, -1)); });
  setter.join();
  EXPECT_EQ(current_stream(1), s);
}

TEST_F(StreamApiTest, BadDeviceArgumentsNameTheValue) {
  EXPECT_TRUE(is_error(catch_error([] { current_stream(4); }), ErrorKind::kIndex,
                       "Device index value 4 is out of index range [0, 4)"));
  EXPECT_TRUE(is_error(catch_error([] { Stream s(7); }), ErrorKind::kIndex,
                       "Device index value 7 is out of index range [0, 4)"));
  EXPECT_TRUE(is_error(catch_error([] { current_stream(-1); }), ErrorKind::kIndex,
                       "Device index -1 is out of range for DeviceIndex [0, 127]"));
  EXPECT_TRUE(is_error(catch_error([] { current_stream("cpu"); }), ErrorKind::kValue,
                       "cpu doesn't match the current accelerator cuda."));
  EXPECT_TRUE(is_error(catch_error([] { set_stream(Stream::unchecked(9, 0)); }), ErrorKind::kIndex,
                       "Device index value 9 is out of index range [0, 4)"));
  EXPECT_TRUE(is_error(catch_error([] { Stream::unchecked(0, 2).synchronize(); }),
                       ErrorKind::kValue,
                       "stream: no stream with id 2 exists on device 0 (stream_id=2)"));
}

TEST_F(StreamApiTest, QueryAndSynchronizeReachTheStreamsDevice) {
  const Stream s(2);
  // Hold the stream's work back: query says so; synchronize waits it out.
  detail::StreamHandle held;
  EXPECT_CALL(backend(), query_stream(2, _)).WillRepeatedly([&](int index, detail::StreamHandle h) {
    held = h;
    return backend().streams()->query_stream(index, h);
  });
  EXPECT_TRUE(s.query());
  backend().streams()->set_busy(2, held, true);
  EXPECT_FALSE(s.query());
  EXPECT_CALL(backend(), synchronize_stream(2, held));
  s.synchronize();
  EXPECT_TRUE(s.query());
  // The default stream is the null handle.
  EXPECT_CALL(backend(), synchronize_stream(1, detail::StreamHandle{}));
  Stream::default_stream(1).synchronize();
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(StreamApiTest, DriverFailureBecomesTheErrorAndForgetsTheCachedDevice) {
  const Stream s(1);
  EXPECT_CALL(backend(), synchronize_stream(1, _))
      .WillOnce(Return(fake_driver_error("synchronize_stream: cuStreamSynchronize", 1,
                                         "an illegal memory access was encountered",
                                         "CUDA_ERROR_ILLEGAL_ADDRESS", 700)));
  EXPECT_TRUE(
      is_error(catch_error([&s] { s.synchronize(); }), ErrorKind::kDriver,
               "synchronize_stream: cuStreamSynchronize: CUDA error: an illegal memory access was "
               "encountered (device=1, driver=CUDA_ERROR_ILLEGAL_ADDRESS)"));
  // The thread's device is asked from the backend again.
  EXPECT_CALL(backend(), current_device()).Times(1);
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(StreamApiTest, SynchronizeWithAnExplicitIndexBeforeInitDoesNothing) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  EXPECT_CALL(backend(), synchronize_device(_)).Times(0);
  synchronize(1);
  synchronize("cuda:3");
  EXPECT_FALSE(is_initialized());
  EXPECT_TRUE(is_error(catch_error([] { synchronize(200); }), ErrorKind::kIndex,
                       "Device index 200 is out of range for DeviceIndex [0, 127]"));
}

TEST_F(StreamApiTest, SynchronizeWithoutAnIndexInitialisesAndSynchronisesTheCurrentDevice) {
  EXPECT_CALL(backend(), synchronize_device(0));
  synchronize();
  EXPECT_TRUE(is_initialized());
  set_device_index(2);
  EXPECT_CALL(backend(), synchronize_device(3));
  synchronize(3);
  EXPECT_EQ(current_device_index(), 2);
  EXPECT_TRUE(is_error(catch_error([] { synchronize(4); }), ErrorKind::kIndex,
                       "Device index value 4 is out of index range [0, 4)"));
}

TEST_F(StreamApiTest, SynchronizeCompletesEveryStreamOfTheDevice) {
  Event event;
  const Stream s(1);
  detail::StreamHandle held;
  EXPECT_CALL(backend(), record_event(1, _, _))
      .WillOnce([&](int index, detail::EventHandle e, detail::StreamHandle h) {
        held = h;
        backend().streams()->set_busy(1, h, true);
        return backend().streams()->record_event(index, e, h);
      });
  event.record(s);
  EXPECT_FALSE(event.query());
  EXPECT_FALSE(s.query());
  synchronize(1);
  EXPECT_TRUE(event.query());
  EXPECT_TRUE(s.query());
}

TEST_F(StreamApiTest, EveryCallRaisesForkErrorInAPoisonedChild) {
  const Stream s(1);
  set_stream(s);
  const ChildStatus child = run_in_child(
      [&s] {
        EXPECT_TRUE(is_fork_error(catch_error([] { current_stream(); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { current_stream(1); })));
        EXPECT_TRUE(is_fork_error(catch_error([&s] { set_stream(s); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { Stream fresh(0); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { Stream::default_stream(0); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { priority_range(0); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { synchronize(); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { synchronize(1); })));
        EXPECT_TRUE(is_fork_error(catch_error([&s] { s.query(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&s] { s.synchronize(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&s] { s.record_event(); })));
        EXPECT_TRUE(is_fork_error(catch_error([&s] { s.wait_stream(Stream::unchecked(0, 0)); })));
        Event never_recorded;
        EXPECT_TRUE(is_fork_error(catch_error([&] { s.wait_event(never_recorded); })));
      },
      10);
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_EQ(current_stream(1), s);
}

// current_stream() answers a device inline once this thread's call for it passed its
// checks (accel/detail/thread_stream_cache.h); a poisoned child must still get ForkError.
TEST_F(StreamApiTest, CurrentStreamAnsweredInlineStillRaisesForkErrorInAPoisonedChild) {
  const Stream s(1);
  set_stream(s);
  EXPECT_EQ(current_stream(1), s);
  EXPECT_EQ(current_stream(), s);
  const ChildStatus child = run_in_child(
      [] {
        EXPECT_TRUE(is_fork_error(catch_error([] { current_stream(); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { current_stream(1); })));
      },
      10);
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_EQ(current_stream(), s);
}

// The checks a thread's current_stream() passed belong to one runtime: under another one
// (here a 2-device backend override) the same call is checked again.
TEST_F(StreamApiTest, CurrentStreamChecksAgainUnderAnotherRuntime) {
  EXPECT_EQ(current_stream(3), Stream::default_stream(3));
  {
    auto two = std::make_unique<::testing::NiceMock<MockBackend>>();
    two->install_defaults(std::make_shared<FakeMachine>(2));
    detail::ScopedBackendOverride override(std::move(two));
    EXPECT_TRUE(is_error(catch_error([] { current_stream(3); }), ErrorKind::kIndex,
                         "Device index value 3 is out of index range [0, 2)"));
    EXPECT_EQ(current_stream(1), Stream::unchecked(1, 0));
    EXPECT_TRUE(is_error(catch_error([] { current_stream(3); }), ErrorKind::kIndex,
                         "Device index value 3 is out of index range [0, 2)"));
  }
  EXPECT_EQ(current_stream(3), Stream::unchecked(3, 0));
}

}  // namespace
}  // namespace accel::test
