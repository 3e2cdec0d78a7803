#include "conformance_test.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "child_process.h"
#include "live_object_listener.h"
#include "mockdev/control.h"

namespace accel::test {

namespace {

constexpr int kSkippedExit = 24;  // a ChildExit-style code: the child asked to skip
int g_skip_pipe = -1;             // write end, valid in the child of run_isolated

}  // namespace

void skip_in_child(const std::string& reason) {
  if (g_skip_pipe >= 0) {
    const std::string text = reason.substr(0, 500);
    ssize_t written = write(g_skip_pipe, text.data(), text.size());
    (void)written;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(kSkippedExit);
}

void fail_in_child(const std::string& reason) {
  ADD_FAILURE() << reason;
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(static_cast<int>(ChildExit::kExpectationFailed));
}

int require_physical_devices(const BackendProfile& profile, int minimum) {
  std::string error;
  const int count = physical_device_count(profile, &error);
  if (count < 0) {
    fail_in_child("profile " + profile.name + ": cannot ask the physical device count: " +
                  error);
  }
  if (count < minimum) {
    skip_in_child("needs at least " + std::to_string(minimum) + " devices, profile " +
                  profile.name + " has " + std::to_string(count));
  }
  return count;
}

void ConformanceTest::run_isolated(
    const std::function<void()>& body,
    const std::vector<std::pair<std::string, std::optional<std::string>>>& environment,
    unsigned timeout_s) {
  ::accel::test::run_isolated(profile(), body, environment, timeout_s);
}

void run_isolated(const BackendProfile& current, const std::function<void()>& body,
                  const std::vector<std::pair<std::string, std::optional<std::string>>>&
                      environment,
                  unsigned timeout_s) {
  // A real-driver profile on a machine without that vendor's device: the whole profile
  // did not run, and says so in every test (ci/test lists skipped tests by name).
  if (std::string why; !real_hardware_present(current, &why)) {
    GTEST_SKIP() << "SKIPPED on profile " << current.name << ": no real " << current.vendor_title
                 << " device: hardware conformance did not run (" << why << ")";
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0) << "pipe() failed";
  const pid_t pid = start_child(
      [&] {
        close(fds[0]);
        g_skip_pipe = fds[1];
        apply_profile_environment(current);
        if (!current.on_mock) {
          waive_live_object_check("real driver: the control API cannot see its objects");
        }
        for (const auto& [name, value] : environment) {
          if (value) {
            setenv(name.c_str(), value->c_str(), 1);
          } else {
            unsetenv(name.c_str());
          }
        }
        if (current.on_mock) {
          // The engine of the test process may hold another profile's machine (several
          // profiles in one process): install this profile's, with a fresh driver state.
          try {
            mockdev::control::reset_from_environment();
          } catch (const std::exception& error) {
            fail_in_child(std::string("the simulated machine could not be installed: ") +
                          error.what());
          }
        }
        body();
        verify_live_objects();
      },
      timeout_s);
  close(fds[1]);
  const ChildStatus status = wait_child(pid);
  std::string reason;
  char buffer[512];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) reason.append(buffer, n);
  close(fds[0]);
  if (status.exited && status.exit_code == kSkippedExit) {
    GTEST_SKIP() << "SKIPPED on profile " << current.name << ": " << reason;
  }
  EXPECT_TRUE(status.ok()) << "the test's child process " << status.describe()
                           << " (profile " << current.name << "; its failures are printed above)";
}

std::string profile_param_name(const ::testing::TestParamInfo<const BackendProfile*>& info) {
  return info.param->name;
}

}  // namespace accel::test
