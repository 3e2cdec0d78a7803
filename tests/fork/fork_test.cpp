// Fork safety with a real fork() (PyTorch's fork poisoning, Note [Fork safety] in the runtime): a
// child of a parent that never initialised can initialise; a child of an initialised parent is
// "in a bad fork" and every device API raises ForkError before reaching the driver, while
// the fork-safe counts keep working; a thread hammering the runtime while the main thread
// forks never leaves a child deadlocked. Every child runs under alarm().
//
// The runtime's state is process-wide, so the order matters when this binary runs as a
// whole: tests that need a never-initialised parent come first and check that they got
// one (ctest runs each test in its own process anyway).

#include <gtest/gtest.h>
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <initializer_list>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "accel/accel.h"
#include "child_process.h"
#include "error_check.h"
#include "mockdev/control.h"

namespace accel::test {
namespace {

constexpr int kDevices = 4;

void require_simulated_machine() {
  ASSERT_EQ(device_count(), kDevices)
      << "this test runs on the simulated 4xh100 machine: set MOCKDEV_MACHINE=4xh100 and point "
         "ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY at the mock facades (ctest does)";
}

// Every device-touching call, by name.
const std::vector<std::pair<std::string, std::function<void()>>>& device_apis() {
  static const std::vector<std::pair<std::string, std::function<void()>>> kApis = {
      {"init()", [] { init(); }},
      {"current_device_index()", [] { current_device_index(); }},
      {"set_device_index(0)", [] { set_device_index(0); }},
      {"set_device_index(\"cuda:1\")", [] { set_device_index("cuda:1"); }},
      {"exchange_device(1)", [] { exchange_device(1); }},
      {"maybe_exchange_device(1)", [] { maybe_exchange_device(1); }},
      {"DeviceIndexGuard(1)", [] { DeviceIndexGuard guard(1); }},
      {"get_memory_info()", [] { get_memory_info(); }},
      {"get_memory_info(2)", [] { get_memory_info(2); }},
      {"get_device_capability()", [] { get_device_capability(); }},
      {"get_device_properties(0)", [] { get_device_properties(0); }},
      {"random::get_rng_state()", [] { random::get_rng_state(); }},
      {"random::get_rng_state_all()", [] { random::get_rng_state_all(); }},
      {"random::initial_seed()", [] { random::initial_seed(); }},
  };
  return kApis;
}

TEST(ForkFromUninitialisedParent, ChildInitialisesAndParentStaysUsable) {
  ASSERT_FALSE(is_initialized()) << "this test needs a parent that never initialised";
  require_simulated_machine();
  ASSERT_EQ(mockdev::control::call_count("cuInit"), 0u) << "device_count() called cuInit";

  const ChildStatus child = run_in_child([] {
    EXPECT_FALSE(is_in_bad_fork());
    EXPECT_FALSE(mockdev::control::forked_after_init());
    init();
    EXPECT_TRUE(is_initialized());
    EXPECT_EQ(device_count(), kDevices);
    EXPECT_EQ(current_device_index(), 0);
    set_device_index(3);
    EXPECT_EQ(current_device_index(), 3);
    EXPECT_GT(get_memory_info().total_bytes, 0u);
    EXPECT_TRUE(mockdev::control::driver_initialized());
  });
  EXPECT_TRUE(child.ok()) << "child " << child.describe();

  // The parent is untouched by the child's initialisation.
  EXPECT_FALSE(is_initialized());
  EXPECT_FALSE(is_in_bad_fork());
  EXPECT_EQ(device_count(), kDevices);
  init();
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(current_device_index(), 0);
}

TEST(ForkFromInitialisedParent, EveryDeviceApiRaisesForkError) {
  require_simulated_machine();
  init();
  set_device_index(2);
  const std::uint64_t cuinit_calls = mockdev::control::call_count("cuInit");
  ASSERT_GE(cuinit_calls, 1u);

  const ChildStatus child = run_in_child([cuinit_calls] {
    EXPECT_TRUE(is_in_bad_fork());
    EXPECT_FALSE(is_initialized());
    EXPECT_TRUE(mockdev::control::forked_after_init());
    for (const auto& [name, call] : device_apis()) {
      EXPECT_TRUE(is_fork_error(catch_error(call))) << name;
    }
    // The fork-safe queries keep working.
    EXPECT_EQ(device_count(), kDevices);
    EXPECT_TRUE(is_available());
    EXPECT_EQ(current_accelerator(), Device(DeviceType::kCUDA));
    EXPECT_EQ(current_accelerator(true), Device(DeviceType::kCUDA));
    // Calls that never touch a device stay no-ops.
    set_device_index(-1);
    { DeviceIndexGuard empty(std::nullopt); }
    // Deferred calls queue silently; they can never run here.
    bool ran = false;
    lazy_call([&ran] { ran = true; });
    random::manual_seed(1);
    random::manual_seed_all(2);
    EXPECT_FALSE(ran);
    EXPECT_TRUE(is_fork_error(catch_error([] { init(); }))) << "init() after lazy_call";
    EXPECT_FALSE(ran);
    // The runtime stopped before the driver: cuInit was not called again in the child.
    EXPECT_EQ(mockdev::control::call_count("cuInit"), cuinit_calls);
    EXPECT_FALSE(is_initialized());
  });
  EXPECT_TRUE(child.ok()) << "child " << child.describe();

  // The parent keeps working.
  EXPECT_FALSE(is_in_bad_fork());
  EXPECT_TRUE(is_initialized());
  EXPECT_EQ(current_device_index(), 2);
  {
    DeviceIndexGuard guard(1);
    EXPECT_EQ(current_device_index(), 1);
  }
  EXPECT_EQ(current_device_index(), 2);
}

TEST(ForkFromInitialisedParent, GrandchildIsInABadForkToo) {
  require_simulated_machine();
  init();
  const ChildStatus child = run_in_child([] {
    const ChildStatus grandchild = run_in_child([] {
      EXPECT_TRUE(is_in_bad_fork());
      EXPECT_TRUE(is_fork_error(catch_error([] { current_device_index(); })));
      EXPECT_EQ(device_count(), kDevices);
    });
    EXPECT_TRUE(grandchild.ok()) << "grandchild " << grandchild.describe();
  });
  EXPECT_TRUE(child.ok()) << "child " << child.describe();
}

TEST(ForkUnderLoad, HammeringThreadNeverDeadlocksAChild) {
  require_simulated_machine();
  init();
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> iterations{0};
  std::thread hammer([&] {
    for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      set_device_index(i % kDevices);
      {
        DeviceIndexGuard guard((i + 1) % kDevices);
        current_device_index();
        if (i % 8 == 0) get_memory_info();
      }
      current_device_index();
      iterations.fetch_add(1, std::memory_order_relaxed);
    }
  });
  // Let the hammer get going before the first fork (no sleep: wait for its progress).
  while (iterations.load() < 100) std::this_thread::yield();

  constexpr int kForks = 100;
  int timed_out = 0;
  std::vector<std::string> failures;
  for (int n = 0; n < kForks; ++n) {
    const ChildStatus child = run_in_child(
        [] {
          if (device_count() != kDevices) _exit(30);
          if (!is_fork_error(catch_error([] { current_device_index(); }))) _exit(31);
        },
        5);
    if (child.timed_out()) ++timed_out;
    if (!child.ok()) failures.push_back("fork " + std::to_string(n) + ": " + child.describe());
    if (timed_out >= 3) break;  // deadlocking: report now rather than wait out every alarm
  }
  stop = true;
  hammer.join();
  EXPECT_EQ(timed_out, 0) << "children killed by SIGALRM (deadlocked after fork)";
  EXPECT_TRUE(failures.empty()) << failures.size() << " of " << kForks
                                << " children failed; first: "
                                << (failures.empty() ? "" : failures.front())
                                << " (30: wrong device_count, 31: no ForkError)";
  std::printf(
      "[ fork ] %d forks while a thread hammered the runtime (%llu iterations): %d timed "
      "out, %zu failed\n",
      kForks, static_cast<unsigned long long>(iterations.load()), timed_out, failures.size());
}

}  // namespace
}  // namespace accel::test
