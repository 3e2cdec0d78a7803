#include "child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

namespace accel::test {

namespace {

// Failed test parts recorded so far for the running test (0 outside a test).
int failed_parts() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return 0;
  const ::testing::TestResult* result = info->result();
  int failed = 0;
  for (int i = 0; i < result->total_part_count(); ++i) {
    if (result->GetTestPartResult(i).failed()) ++failed;
  }
  return failed;
}

[[noreturn]] void child_exit(ChildExit code) {
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(static_cast<int>(code));
}

}  // namespace

std::string_view to_string(ChildExit code) noexcept {
  switch (code) {
    case ChildExit::kOk:
      return "kOk";
    case ChildExit::kExpectationFailed:
      return "kExpectationFailed";
    case ChildExit::kUnexpectedException:
      return "kUnexpectedException";
    case ChildExit::kUnknownException:
      return "kUnknownException";
    case ChildExit::kForkFailed:
      return "kForkFailed";
  }
  return "unknown";
}

bool ChildStatus::timed_out() const { return !exited && signal == SIGALRM; }

std::string ChildStatus::describe() const {
  if (exited) {
    std::string name = "unnamed";
    for (ChildExit code :
         {ChildExit::kOk, ChildExit::kExpectationFailed, ChildExit::kUnexpectedException,
          ChildExit::kUnknownException, ChildExit::kForkFailed}) {
      if (static_cast<int>(code) == exit_code) name = std::string(to_string(code));
    }
    return "exited with " + name + " (" + std::to_string(exit_code) + ")";
  }
  std::string text = "killed by signal " + std::to_string(signal) + " (" + strsignal(signal);
  if (signal == SIGALRM) text += ": the child timed out, probably deadlocked";
  return text + ")";
}

pid_t start_child(const std::function<void()>& body, unsigned timeout_s) {
  const int failed_before = failed_parts();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid != 0) return pid;  // parent (or -1)

  alarm(timeout_s);
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child %d: unexpected exception: %s\n", static_cast<int>(getpid()),
                 e.what());
    child_exit(ChildExit::kUnexpectedException);
  } catch (...) {
    std::fprintf(stderr, "child %d: unexpected non-std exception\n", static_cast<int>(getpid()));
    child_exit(ChildExit::kUnknownException);
  }
  child_exit(failed_parts() > failed_before ? ChildExit::kExpectationFailed : ChildExit::kOk);
}

ChildStatus wait_child(pid_t pid) {
  ChildStatus status;
  if (pid < 0) {
    status.exited = true;
    status.exit_code = static_cast<int>(ChildExit::kForkFailed);
    return status;
  }
  int raw = 0;
  pid_t got;
  do {
    got = waitpid(pid, &raw, 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0) {
    status.exited = true;
    status.exit_code = static_cast<int>(ChildExit::kForkFailed);
    return status;
  }
  if (WIFEXITED(raw)) {
    status.exited = true;
    status.exit_code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.signal = WTERMSIG(raw);
  }
  return status;
}

ChildStatus run_in_child(const std::function<void()>& body, unsigned timeout_s) {
  return wait_child(start_child(body, timeout_s));
}

}  // namespace accel::test
