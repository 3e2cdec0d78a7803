// Note [Environment reads]: the runtime's environment reads stay valid while another
// thread adds variables. glibc's setenv() moves and frees the array getenv() walks, so
// without the shared lock the readers below read freed memory (a crash, or under
// AddressSanitizer a heap-use-after-free report) within a few hundred additions.
#include "spi/environment.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace accel::detail {
namespace {

TEST(Environment, ReadsStayValidWhileAnotherThreadAddsVariables) {
  ASSERT_EQ(setenv("ACCEL_ENVIRONMENT_TEST_PROBE", "present", 1), 0);
  constexpr int kAdded = 3000;
  constexpr int kReaders = 3;
  std::atomic<bool> done{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) {
    readers.emplace_back([&] {
      while (!done.load(std::memory_order_relaxed)) {
        const char* value = environment_variable("ACCEL_ENVIRONMENT_TEST_PROBE");
        if (value == nullptr || std::strcmp(value, "present") != 0) wrong.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < kAdded; ++i) {
    const std::string name = "ACCEL_ENVIRONMENT_TEST_" + std::to_string(i);
    set_environment_default(name.c_str(), "1");
  }
  done.store(true);
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // set_environment_default never replaces a value the user set.
  set_environment_default("ACCEL_ENVIRONMENT_TEST_PROBE", "replaced");
  EXPECT_STREQ(environment_variable("ACCEL_ENVIRONMENT_TEST_PROBE"), "present");
  EXPECT_STREQ(environment_variable("ACCEL_ENVIRONMENT_TEST_2999"), "1");
}

}  // namespace
}  // namespace accel::detail
