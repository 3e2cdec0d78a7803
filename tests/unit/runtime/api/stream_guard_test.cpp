// StreamGuard over a mocked backend (c10's InlineStreamGuard,
// c10/core/impl/InlineStreamGuard.h): device and stream restored on exit and on exceptions, the
// original device's stream untouched, nesting, reset_stream, a failed entry changes nothing.

#include "accel/stream_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

#include "accel/accelerator.h"
#include "accel/lazy_init.h"
#include "backend_fixture.h"
#include "child_process.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::Return;

using StreamGuardTest = BackendTest;

// The inline path takes a thread's stream table only when it is of the published
// generation: under another runtime (a backend override) the thread's device can be
// current again while its table still holds the previous runtime's streams, and the guard
// must neither save that runtime's stream nor write into its table.
TEST_F(StreamGuardTest, AGuardUnderAnotherRuntimeUsesOnlyThatRuntimesStreams) {
  const Stream s0(0);
  set_stream(s0);  // this runtime's table: device 0 -> s0
  {
    auto two = std::make_unique<::testing::NiceMock<MockBackend>>();
    two->install_defaults(std::make_shared<FakeMachine>(2));
    detail::ScopedBackendOverride override(std::move(two));
    set_device_index(0);  // current in the new generation; the stream table is untouched
    const Stream t(0);
    {
      StreamGuard guard(t);
      EXPECT_EQ(guard.original_stream(), Stream::default_stream(0));
      EXPECT_EQ(current_stream(0), t);
      EXPECT_EQ(current_stream(), t);
    }
    EXPECT_EQ(current_stream(0), Stream::default_stream(0));
  }
  EXPECT_EQ(current_stream(0), Stream::default_stream(0)) << "a new generation starts with defaults";
}

// A runtime change inside the body (here a backend override installed and removed, which
// gives this runtime a new generation) leaves the thread's cached device and stream table
// stale; the guard's exit must still restore the stream it saved, into the table of the
// new generation, rather than into the stale one that the next read discards.
TEST_F(StreamGuardTest, AGuardLeftAfterARuntimeChangeInItsBodyStillRestores) {
  const Stream s0(0);
  set_stream(s0);
  const Stream t(0);
  {
    StreamGuard guard(t);
    {
      auto two = std::make_unique<::testing::NiceMock<MockBackend>>();
      two->install_defaults(std::make_shared<FakeMachine>(2));
      detail::ScopedBackendOverride override(std::move(two));
    }
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(0), s0);
}

// A guard that moved to another device restores that device's stream even when its body
// went back to the original device (the exit then has no device to switch, but the stream
// it saved belongs to the device it moved to, never to the original one).
TEST_F(StreamGuardTest, ASwitchingGuardWhoseBodyWentBackRestoresTheDeviceItMovedTo) {
  const Stream s0(0);
  set_stream(s0);
  const Stream s2(2);
  {
    StreamGuard guard(s2);
    set_device_index(0);
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(0), s0);
  EXPECT_EQ(current_stream(2), Stream::default_stream(2));
}

TEST_F(StreamGuardTest, SwitchesDeviceAndStreamThenRestoresBoth) {
  const Stream s0(0);
  set_stream(s0);
  const Stream s2(2);
  {
    StreamGuard guard(s2);
    EXPECT_EQ(current_device_index(), 2);
    EXPECT_EQ(current_stream(), s2);
    EXPECT_EQ(current_stream(0), s0);  // the original device's stream is untouched
    EXPECT_EQ(guard.original_device(), 0);
    EXPECT_EQ(guard.current_device(), 2);
    EXPECT_EQ(guard.original_stream(), s0);
    EXPECT_EQ(guard.current_stream(), s2);
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(0), s0);
  EXPECT_EQ(current_stream(2), Stream::default_stream(2));
}

TEST_F(StreamGuardTest, SameDeviceOnlyExchangesTheStream) {
  set_device_index(1);
  const Stream before(1);
  set_stream(before);
  const Stream inside(1, -1);
  EXPECT_CALL(backend(), set_device(_)).Times(0);
  EXPECT_CALL(backend(), maybe_set_device(_)).Times(0);
  {
    StreamGuard guard(inside);
    EXPECT_EQ(current_stream(1), inside);
  }
  EXPECT_EQ(current_stream(1), before);
  EXPECT_EQ(current_device_index(), 1);
}

TEST_F(StreamGuardTest, GuardOnOneDeviceNeverDisturbsAnotherDevicesStream) {
  const Stream s1(1);
  const Stream s3(3);
  set_stream(s1);
  set_stream(s3);
  set_device_index(0);
  {
    StreamGuard guard(Stream(1, -2));
    EXPECT_EQ(current_stream(3), s3);
  }
  EXPECT_EQ(current_stream(1), s1);
  EXPECT_EQ(current_stream(3), s3);
  EXPECT_EQ(current_device_index(), 0);
}

TEST_F(StreamGuardTest, RestoresWhenTheBodyThrows) {
  const Stream s(3);
  try {
    StreamGuard guard(s);
    throw std::runtime_error("body failed");
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "body failed");
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(3), Stream::default_stream(3));
}

TEST_F(StreamGuardTest, NestedGuardsRestoreInOrder) {
  const Stream a(1);
  const Stream b(2);
  const Stream c(1, -1);
  {
    StreamGuard outer(a);
    {
      StreamGuard middle(b);
      {
        StreamGuard inner(c);
        EXPECT_EQ(current_device_index(), 1);
        EXPECT_EQ(current_stream(1), c);
        EXPECT_EQ(current_stream(2), b);
      }
      EXPECT_EQ(current_device_index(), 2);
      EXPECT_EQ(current_stream(1), a);
    }
    EXPECT_EQ(current_device_index(), 1);
    EXPECT_EQ(current_stream(1), a);
    EXPECT_EQ(current_stream(2), Stream::default_stream(2));
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(1), Stream::default_stream(1));
}

TEST_F(StreamGuardTest, ResetStreamToAnotherDeviceRestoresTheFirstDestination) {
  const Stream a(1);
  const Stream b(2);
  const Stream b_before(2, -1);
  set_stream(b_before);
  set_device_index(0);
  {
    StreamGuard guard(a);
    guard.reset_stream(b);
    EXPECT_EQ(current_device_index(), 2);
    EXPECT_EQ(current_stream(2), b);
    EXPECT_EQ(current_stream(1), Stream::default_stream(1));  // restored on the move
    EXPECT_EQ(guard.original_device(), 0);
    EXPECT_EQ(guard.current_stream(), b);
    const Stream b2(2, -3);
    guard.reset_stream(b2);  // same device: only the stream
    EXPECT_EQ(current_stream(2), b2);
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(2), b_before);
}

// A guard entered on the current device keeps its original stream in the word it restores
// from; moving it with reset_stream must keep that stream as original_stream() (c10's
// original_stream(): the original device's stream when the guard was entered), not the
// stream it saved on the device it moved to.
TEST_F(StreamGuardTest, AGuardMovedByResetStreamKeepsItsOriginalStream) {
  const Stream s0(0);
  set_stream(s0);
  const Stream b_before(2, -1);
  set_stream(b_before);
  set_device_index(0);
  {
    StreamGuard guard(Stream(0));
    EXPECT_EQ(guard.original_stream(), s0);
    guard.reset_stream(Stream(2));
    EXPECT_EQ(guard.original_device(), 0);
    EXPECT_EQ(guard.current_device(), 2);
    EXPECT_EQ(guard.original_stream(), s0);
    EXPECT_EQ(current_stream(0), s0) << "the stream of the device it left is restored";
  }
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_EQ(current_stream(0), s0);
  EXPECT_EQ(current_stream(2), b_before);
}

TEST_F(StreamGuardTest, FailedEntryChangesNothing) {
  const Stream s(1);
  set_stream(s);
  EXPECT_TRUE(is_error(catch_error([] { StreamGuard guard(Stream::unchecked(4, 0)); }),
                       ErrorKind::kIndex, "Device index value 4 is out of index range [0, 4)"));
  EXPECT_CALL(backend(), set_device(2))
      .WillOnce(Return(fake_driver_error("set_device: cuCtxSetCurrent", 2, "out of memory",
                                         "CUDA_ERROR_OUT_OF_MEMORY", 2)));
  EXPECT_TRUE(catch_error([] { StreamGuard guard(Stream::unchecked(2, 0)); }).thrown());
  EXPECT_EQ(current_device_index(), 1);
  EXPECT_EQ(current_stream(1), s);
  EXPECT_EQ(current_stream(2), Stream::default_stream(2));
}

TEST_F(StreamGuardTest, GuardsOnTwoThreadsDoNotSeeEachOther) {
  const Stream mine(1);
  StreamGuard guard(mine);
  Stream seen = mine;
  int seen_device = -1;
  std::thread other([&] {
    const Stream theirs(1, -1);
    StreamGuard their_guard(theirs);
    seen = current_stream(1);
    seen_device = current_device_index();
  });
  other.join();
  EXPECT_EQ(seen_device, 1);
  EXPECT_NE(seen, mine);
  EXPECT_EQ(current_stream(1), mine);
}

TEST_F(StreamGuardTest, RaisesForkErrorInAPoisonedChild) {
  const Stream s(1);
  const ChildStatus child = run_in_child(
      [&s] {
        EXPECT_TRUE(is_fork_error(catch_error([&s] { StreamGuard guard(s); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { StreamGuard guard(Stream::unchecked(0, 0)); })));
      },
      10);
  EXPECT_TRUE(child.ok()) << child.describe();
}

}  // namespace
}  // namespace accel::test
