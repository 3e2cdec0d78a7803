// Lazy initialisation and deferred calls (PyTorch's torch/cuda/__init__.py): nothing initialises
// until a device is needed; init() brings the backend up once across threads; lazy_call queues
// FIFO with the seed tracker's two slots last; a failing queued call becomes
// DeferredCallError naming where it was queued and leaves everything replayable;
// re-entrant calls from a queued callback do not deadlock.

#include "accel/lazy_init.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "accel/accelerator.h"
#include "accel/device_index_guard.h"
#include "accel/error.h"
#include "backend_fixture.h"
#include "error_check.h"

namespace accel::test {
namespace {

using ::testing::_;
using ::testing::Return;

using LazyInitTest = BackendTest;

TEST_F(LazyInitTest, NothingIsInitialisedUntilInit) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  EXPECT_FALSE(is_initialized());
  EXPECT_FALSE(is_in_bad_fork());
  EXPECT_EQ(device_count(), 4);
  EXPECT_TRUE(is_available());
  EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
  EXPECT_EQ(current_accelerator(true), Device(DeviceType::kCUDA));
  EXPECT_FALSE(is_initialized());
  ::testing::Mock::VerifyAndClearExpectations(&backend());

  EXPECT_CALL(backend(), initialize()).Times(1);
  init();
  EXPECT_TRUE(is_initialized());
  init();  // idempotent
  EXPECT_TRUE(is_initialized());
}

TEST_F(LazyInitTest, DeviceQueriesInitialise) {
  EXPECT_EQ(current_device_index(), 0);
  EXPECT_TRUE(is_initialized());
}

TEST_F(LazyInitTest, InitialisesExactlyOnceAcrossThreads) {
  EXPECT_CALL(backend(), initialize()).Times(1);
  std::vector<std::thread> threads;
  std::atomic<int> initialised{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      if (i % 2 == 0) {
        init();
      } else {
        current_device_index();
      }
      if (is_initialized()) ++initialised;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(initialised.load(), 8);
}

TEST_F(LazyInitTest, BackendInitialisationFailureLeavesTheRuntimeUninitialised) {
  EXPECT_CALL(backend(), initialize())
      .WillOnce(Return(detail::Status(ErrorKind::kUnavailable,
                                      "cuInit: CUDA_ERROR_NO_DEVICE (no device is visible)")))
      .WillRepeatedly(Return(detail::Status()));
  EXPECT_TRUE(is_error_containing(catch_error([] { init(); }), ErrorKind::kUnavailable,
                                  "cuInit: CUDA_ERROR_NO_DEVICE (no device is visible)"));
  EXPECT_FALSE(is_initialized());
  init();  // the next attempt goes back to the backend
  EXPECT_TRUE(is_initialized());
}

TEST_F(LazyInitTest, LazyCallRunsQueuedCallsInFifoOrderAtInit) {
  std::vector<int> order;
  lazy_call([&] { order.push_back(1); });
  lazy_call([&] { order.push_back(2); });
  lazy_call([&] { order.push_back(3); });
  EXPECT_TRUE(order.empty());
  EXPECT_FALSE(is_initialized());
  init();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  init();  // never replayed after success
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  lazy_call([&] { order.push_back(4); });  // initialised: runs now
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4}));
}

TEST_F(LazyInitTest, LazyCallDoesNotInitialise) {
  EXPECT_CALL(backend(), initialize()).Times(0);
  lazy_call([] {});
  lazy_call([] {}, LazyCallKind::kSeed);
  lazy_call([] {}, LazyCallKind::kSeedAll);
  EXPECT_FALSE(is_initialized());
}

TEST_F(LazyInitTest, SeedTrackerKeepsOnlyTheLatestSeedsAfterPlainCalls) {
  std::vector<std::string> ran;
  lazy_call([&] { ran.push_back("seed 1"); }, LazyCallKind::kSeed);
  lazy_call([&] { ran.push_back("plain A"); });
  lazy_call([&] { ran.push_back("seed_all 1"); }, LazyCallKind::kSeedAll);
  lazy_call([&] { ran.push_back("seed 2"); }, LazyCallKind::kSeed);
  lazy_call([&] { ran.push_back("plain B"); });
  // Last requested: seed (after seed_all) -> seed_all first, seed last.
  init();
  EXPECT_EQ(ran, (std::vector<std::string>{"plain A", "plain B", "seed_all 1", "seed 2"}));
}

TEST_F(LazyInitTest, SeedTrackerOrderFollowsTheLastRequest) {
  std::vector<std::string> ran;
  lazy_call([&] { ran.push_back("seed_all 1"); }, LazyCallKind::kSeedAll);
  lazy_call([&] { ran.push_back("seed 1"); }, LazyCallKind::kSeed);
  lazy_call([&] { ran.push_back("seed_all 2"); }, LazyCallKind::kSeedAll);
  init();
  EXPECT_EQ(ran, (std::vector<std::string>{"seed 1", "seed_all 2"}));
}

TEST_F(LazyInitTest, SeedTrackerWithOnlyOneKind) {
  std::vector<std::string> ran;
  lazy_call([&] { ran.push_back("seed 1"); }, LazyCallKind::kSeed);
  lazy_call([&] { ran.push_back("seed 2"); }, LazyCallKind::kSeed);
  lazy_call([&] { ran.push_back("seed 3"); }, LazyCallKind::kSeed);
  init();
  EXPECT_EQ(ran, (std::vector<std::string>{"seed 3"}));
}

TEST_F(LazyInitTest, FailingQueuedCallRaisesDeferredCallError) {
  std::vector<std::string> ran;
  int attempts = 0;
  lazy_call([&] { ran.push_back("first"); });
  const int line = __LINE__ + 1;
  lazy_call([&] {
    ++attempts;
    if (attempts == 1) throw std::runtime_error("simulated failure in a deferred call");
    ran.push_back("second");
  });
  lazy_call([&] { ran.push_back("third"); });

  try {
    init();
    FAIL() << "init() did not throw";
  } catch (const DeferredCallError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDeferredCall);
    const std::string prefix =
        "CUDA call failed lazily at initialization with error: simulated failure in a deferred "
        "call\n\nCUDA call was originally invoked at:\n\n";
    const std::string what = e.what();
    EXPECT_EQ(what.substr(0, prefix.size()), prefix) << what;
    EXPECT_EQ(what.substr(prefix.size()).find(e.origin()), 0u)
        << "what() must continue with the origin; what(): " << what;
    EXPECT_NE(e.origin().find("lazy_init_test.cpp"), std::string::npos) << e.origin();
    EXPECT_NE(e.origin().find(":" + std::to_string(line)), std::string::npos)
        << "origin must name the lazy_call line " << line << ": " << e.origin();
    ASSERT_TRUE(e.cause());
    try {
      std::rethrow_exception(e.cause());
    } catch (const std::runtime_error& cause) {
      EXPECT_STREQ(cause.what(), "simulated failure in a deferred call");
    }
  }
  EXPECT_FALSE(is_initialized());
  EXPECT_EQ(ran, (std::vector<std::string>{"first"}));

  // The queue is kept and replayed whole by the next attempt.
  init();
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "first", "second", "third"}));
}

TEST_F(LazyInitTest, DeferredCallErrorFromANonStandardException) {
  lazy_call([] { throw 42; });
  const CaughtError caught = catch_error([] { init(); });
  EXPECT_EQ(caught.type, "DeferredCallError") << caught.describe();
  EXPECT_EQ(caught.kind, ErrorKind::kDeferredCall);
  EXPECT_EQ(caught.message.rfind("CUDA call failed lazily at initialization with error: ", 0), 0u)
      << caught.message;
  EXPECT_FALSE(is_initialized());
}

TEST_F(LazyInitTest, QueuedCallbacksMayUseTheRuntimeDuringInit) {
  int seen_inside = -1;
  lazy_call([&] {
    seen_inside = current_device_index();  // re-entrant: must not deadlock
    set_device_index(2);
    DeviceIndexGuard guard(3);
    lazy_call([] {});  // runs now or is queued; either way no deadlock
  });
  init();
  EXPECT_EQ(seen_inside, 0);
  EXPECT_EQ(current_device_index(), 2);
  EXPECT_TRUE(is_initialized());
}

TEST_F(LazyInitTest, OtherThreadsWaitForInitIncludingQueuedCalls) {
  std::atomic<bool> callback_done{false};
  std::atomic<bool> started{false};
  std::atomic<bool> saw_callback_done{false};
  std::thread other;
  lazy_call([&] {
    other = std::thread([&] {
      started = true;
      // Blocks until the initialising thread has finished, queued calls included.
      current_device_index();
      saw_callback_done = callback_done.load();
    });
    while (!started.load()) std::this_thread::yield();
    callback_done = true;
  });
  init();
  ASSERT_TRUE(other.joinable());
  other.join();
  EXPECT_TRUE(saw_callback_done.load())
      << "another thread got past init before the queued calls had run";
}

}  // namespace
}  // namespace accel::test
