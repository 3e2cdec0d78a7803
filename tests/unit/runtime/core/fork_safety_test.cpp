// The runtime's own locks across fork() (Note [Fork safety]): real forks while other
// threads are inside the runtime's critical sections, every child bounded by alarm().
//
//  - RuntimeCreationRacingFork: a fresh process whose threads create the runtime (their
//    first device_count()) while it forks; the child must count devices, not hang on a
//    one-time-initialisation guard or a lock a vanished thread held. Runs on the simulated
//    machine through the real CUDA backend with nothing preloaded, so the driver and NVML
//    loads race the fork too (Note [Fork gate]; first_use_fork_test.cpp does the same for
//    initialisation on both backends).
//  - LazyCallQueueRacingFork: threads queue lazy_call()s while the process forks; the
//    child's queue must be whole (init() replays it without a torn or moved-from entry).
//  - ForkDuringBackendInitialisation: a fork while another thread is inside the backend's
//    initialise() gives a poisoned child at once, and never blocks the fork.
//
// Each test forks many times because the windows are narrow; the counts were chosen so
// that the tests failed reliably before the atfork handlers existed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "accel/accelerator.h"
#include "accel/device_index_guard.h"
#include "accel/lazy_init.h"
#include "allocator_fork_safety.h"
#include "child_process.h"
#include "core/backend_override.h"
#include "error_check.h"
#include "fake_machine.h"
#include "mock_backend.h"

namespace accel::test {
namespace {

// Exit codes of the stress programs' processes.
constexpr int kWrongCount = 30;
constexpr int kGrandchildHung = 31;
constexpr int kGrandchildFailed = 32;

// One round of the creation race, in a fresh child process P of the test (so P has never
// created the runtime): two threads make their first device_count() while P forks a
// grandchild G that counts devices too. P exits with G's verdict.
[[noreturn]] void creation_race_round(int round) {
  alarm(30);
  std::atomic<int> calling{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      calling.fetch_add(1);
      (void)device_count();
    });
  }
  // Fork just as the threads enter their first runtime call, at a delay that sweeps the
  // creation window across rounds.
  while (calling.load() < 2) {
  }
  std::atomic<int> spin{0};
  while (spin.fetch_add(1, std::memory_order_relaxed) < (round % 50) * 4) {
  }
  const pid_t grandchild = fork();
  if (grandchild == 0) {
    alarm(3);
    _exit(device_count() == 4 ? 0 : kWrongCount);
  }
  int status = 0;
  while (waitpid(grandchild, &status, 0) < 0) {
  }
  for (std::thread& t : threads) t.join();
  if (WIFSIGNALED(status)) _exit(WTERMSIG(status) == SIGALRM ? kGrandchildHung : kGrandchildFailed);
  _exit(WEXITSTATUS(status));
}

TEST(ForkSafety, RuntimeCreationRacingFork) {
  if (const char* hazard = allocator_fork_hazard()) GTEST_SKIP() << hazard;
  constexpr int kRounds = 1000;
  int hung = 0;
  std::vector<std::string> failures;
  for (int round = 0; round < kRounds && hung < 3; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) creation_race_round(round);
    const ChildStatus child = wait_child(pid);
    if (child.exited && child.exit_code == kGrandchildHung) ++hung;
    if (!child.ok()) failures.push_back("round " + std::to_string(round) + ": " + child.describe());
  }
  EXPECT_EQ(hung, 0) << "grandchildren that hung after a fork during runtime creation";
  EXPECT_TRUE(failures.empty()) << failures.size() << " rounds failed; first: "
                                << (failures.empty() ? "" : failures.front())
                                << " (30: wrong count, 31: hung, 32: killed)";
}

// A 4-device MockBackend with the FakeMachine's answers, for a ScopedBackendOverride.
std::unique_ptr<MockBackend> fake_backend() {
  auto backend = std::make_unique<::testing::NiceMock<MockBackend>>();
  backend->install_defaults(std::make_shared<FakeMachine>(4));
  return backend;
}

TEST(ForkSafety, LazyCallQueueRacingFork) {
  if (const char* hazard = allocator_fork_hazard()) GTEST_SKIP() << hazard;
  constexpr int kRounds = 40;
  constexpr int kForksPerRound = 10;
  constexpr int kPushers = 3;
  constexpr int kCallsPerPusher = 3000;
  std::vector<std::string> failures;
  for (int round = 0; round < kRounds; ++round) {
    detail::ScopedBackendOverride override_(fake_backend());
    std::atomic<int> queued{0};  // lazy_call()s that have returned
    std::atomic<int> ran{0};     // callbacks run (by a child's init())
    std::atomic<bool> go{false};
    std::vector<std::thread> pushers;
    for (int p = 0; p < kPushers; ++p) {
      pushers.emplace_back([&] {
        while (!go.load(std::memory_order_acquire)) {
        }
        for (int i = 0; i < kCallsPerPusher; ++i) {
          lazy_call([&ran] { ran.fetch_add(1); });
          queued.fetch_add(1);
        }
      });
    }
    go.store(true, std::memory_order_release);
    for (int f = 0; f < kForksPerRound; ++f) {
      while (queued.load() < (f + 1) * (kPushers * kCallsPerPusher) / (kForksPerRound + 1)) {
      }
      const ChildStatus child = run_in_child(
          [&] {
            const int before = queued.load();
            init();  // replays the queue inherited from the parent
            const int replayed = ran.load();
            // Every call that had returned is replayed; at most one more per pusher that
            // was inside lazy_call() at the fork.
            EXPECT_GE(replayed, before);
            EXPECT_LE(replayed, before + kPushers);
          },
          5);
      if (!child.ok()) {
        failures.push_back("round " + std::to_string(round) + " fork " + std::to_string(f) + ": " +
                           child.describe());
      }
    }
    for (std::thread& t : pushers) t.join();
    if (failures.size() >= 3) break;
  }
  EXPECT_TRUE(failures.empty()) << failures.size() << " children saw a broken queue; first: "
                                << (failures.empty() ? "" : failures.front());
}

TEST(ForkSafety, ForkDuringBackendInitialisationGivesAPoisonedChild) {
  auto backend = fake_backend();
  std::mutex mutex;
  std::condition_variable changed;
  bool entered = false;
  bool release = false;
  ON_CALL(*backend, initialize()).WillByDefault([&] {
    std::unique_lock lock(mutex);
    entered = true;
    changed.notify_all();
    changed.wait(lock, [&] { return release; });
    return detail::Status();
  });
  detail::ScopedBackendOverride override_(std::move(backend));
  std::thread initialiser([] { init(); });
  {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return entered; });
  }
  // The initialiser holds the init lock inside initialize(): the fork must not wait for it.
  const ChildStatus child = run_in_child(
      [] {
        EXPECT_TRUE(is_in_bad_fork());
        EXPECT_FALSE(is_initialized());
        EXPECT_EQ(device_count(), 4);
        EXPECT_TRUE(is_fork_error(catch_error([] { current_device_index(); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { init(); })));
      },
      5);
  {
    std::lock_guard lock(mutex);
    release = true;
  }
  changed.notify_all();
  initialiser.join();
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_TRUE(is_initialized());
}

// The guard and the cached queries test the thread's cache before anything else; in a
// child forked after initialisation the cache must miss so that the bad-fork check runs.
TEST(ForkSafety, WarmThreadCacheStillRaisesForkErrorInThePoisonedChild) {
  detail::ScopedBackendOverride override_(fake_backend());
  set_device_index(1);
  EXPECT_EQ(current_device_index(), 1);  // cached
  const ChildStatus child = run_in_child(
      [] {
        EXPECT_TRUE(is_fork_error(catch_error([] { current_device_index(); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { DeviceIndexGuard guard(1); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { exchange_device(1); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { maybe_exchange_device(1); })));
        EXPECT_TRUE(is_fork_error(catch_error([] { set_device_index(1); })));
      },
      5);
  EXPECT_TRUE(child.ok()) << child.describe();
  EXPECT_EQ(current_device_index(), 1);
}

}  // namespace
}  // namespace accel::test
