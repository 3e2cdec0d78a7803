#pragma once
// Runs a piece of a test in a forked child process and reports how the child ended, with
// named exit codes, so fork tests can assert what happened on the other side of fork().
//
// The child arms alarm(timeout) first (a deadlocked child dies of SIGALRM instead of
// hanging the suite), runs the body, and leaves with _exit (never exit: no atexit
// handlers or static destructors of the parent's objects run twice). GTest EXPECT/ASSERT
// failures inside the body print in the child and turn into kExpectationFailed.
// Not thread-safe with respect to other forks from the same test; stdio is flushed before
// fork() so buffered output is not duplicated.

#include <sys/types.h>

#include <functional>
#include <string>

namespace accel::test {

enum class ChildExit : int {
  kOk = 0,
  kExpectationFailed = 20,    // a GTest assertion failed in the child
  kUnexpectedException = 21,  // the body let a std::exception escape
  kUnknownException = 22,     // the body let something else escape
  kForkFailed = 23,           // (parent side) fork() itself failed
};

std::string_view to_string(ChildExit code) noexcept;

struct ChildStatus {
  bool exited = false;  // ended with _exit/exit (exit_code valid)
  int exit_code = -1;
  int signal = 0;  // the terminating signal when !exited

  bool ok() const { return exited && exit_code == static_cast<int>(ChildExit::kOk); }
  bool timed_out() const;  // killed by SIGALRM
  // "exited with kOk (0)", "killed by signal 14 (SIGALRM: the child timed out)".
  std::string describe() const;
};

// Forks; the child runs `body` under alarm(timeout_s) and _exits with a ChildExit code.
pid_t start_child(const std::function<void()>& body, unsigned timeout_s = 10);
// Waits for `pid` (restarting on EINTR) and decodes its status.
ChildStatus wait_child(pid_t pid);
// start_child + wait_child.
ChildStatus run_in_child(const std::function<void()>& body, unsigned timeout_s = 10);

}  // namespace accel::test
