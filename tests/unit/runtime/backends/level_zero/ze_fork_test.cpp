// Fork and the Level Zero backend through the public API (ACCEL_BACKEND=xpu on the mock
// driver): the fork-safe count leaves the parent free to fork, and a child of a parent that
// initialised is poisoned with PyTorch's XPU message (torch/xpu/__init__.py;
// Note [Fork-safe Level Zero count]). Fork tests have their own binary (STYLE.md).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cerrno>
#include <string>

#include "accel/accel.h"
#include "child_process.h"
#include "error_check.h"
#include "mockdev/control.h"
#include "mockdev/level_zero.h"
#include "ze_test_machines.h"

namespace accel::test::level_zero {
namespace {

using ze_test::kGiB;
using ze_test::two_max_1550;

constexpr const char* kXpuForkMessage =
    "Cannot re-initialize XPU in forked subprocess. To use XPU with multiprocessing, you must "
    "use the 'spawn' start method";

// The Level Zero fork rule end to end: count in the parent, fork, initialise in the child.
TEST(ZeForkTest, ForkAfterDeviceCountAndInitialiseInTheChild) {
  mockdev::control::reset(two_max_1550());
  ASSERT_EQ(accel::device_count(), 4);
  EXPECT_TRUE(accel::is_available());
  EXPECT_EQ(mockdev::control::call_count("zeInit"), 0u);  // counted by a probe child
  EXPECT_FALSE(accel::is_initialized());
  ChildStatus child = run_in_child([] {
    EXPECT_FALSE(accel::is_in_bad_fork());
    EXPECT_EQ(accel::device_count(), 4);
    DeviceProperties properties = accel::get_device_properties(3);  // initialises here
    EXPECT_EQ(properties.name, "Intel(R) Data Center GPU Max 1550");
    EXPECT_EQ(properties.total_memory_bytes, 64 * kGiB);
    EXPECT_TRUE(accel::is_initialized());
    accel::set_device_index(2);
    EXPECT_EQ(accel::current_device_index(), 2);
    EXPECT_EQ(accel::backend_report().count_source, "driver");
    EXPECT_TRUE(mockdev::control::level_zero::status().initialized);
  });
  EXPECT_TRUE(child.ok()) << child.describe();
  // The parent is untouched by its child's initialisation and can initialise itself.
  EXPECT_FALSE(accel::is_initialized());
  EXPECT_EQ(accel::get_device_properties(0).name, "Intel(R) Data Center GPU Max 1550");
  EXPECT_TRUE(accel::is_initialized());
}

TEST(ZeForkTest, ChildOfAnInitialisedParentIsPoisonedWithTheXpuMessage) {
  mockdev::control::reset(two_max_1550());
  accel::init();
  ASSERT_TRUE(accel::is_initialized());
  ChildStatus child = run_in_child([] {
    EXPECT_TRUE(accel::is_in_bad_fork());
    // The fork-safe count still answers (the parent's count for the same environment).
    EXPECT_EQ(accel::device_count(), 4);
    CaughtError caught = catch_error([] { accel::get_device_properties(0); });
    EXPECT_EQ(caught.type, "ForkError");
    EXPECT_EQ(caught.kind, ErrorKind::kFork);
    EXPECT_EQ(caught.message, kXpuForkMessage);
    // No core Level Zero call in the poisoned child.
    EXPECT_FALSE(mockdev::control::level_zero::status().initialized);
  });
  EXPECT_TRUE(child.ok()) << child.describe();
  int status = 0;
  EXPECT_EQ(waitpid(-1, &status, WNOHANG), -1);  // no zombie
}

}  // namespace
}  // namespace accel::test::level_zero
