#pragma once
// Running a function in a child process of its own (fork, no exec), with its stdout and
// stderr captured and a wall-clock limit. The runner never initialises the runtime itself,
// so every child starts from a fresh runtime; a child that forks, crashes or hangs cannot
// affect the runner. The child is the leader of a new process group, and a timeout kills
// the whole group (a forked grandchild too). Call only while the process is
// single-threaded.

#include <functional>
#include <string>

namespace accel::scenario {

struct ChildResult {
  int exit_status = -1;  // when exited
  int signal = 0;        // when killed by a signal (not by the timeout)
  bool timed_out = false;
  double seconds = 0;
  std::string output;  // stdout and stderr, interleaved
};

// Runs `body` in a child; its return value is the exit status. An exception escaping
// `body` is printed and exits 3.
ChildResult run_isolated(const std::function<int()>& body, int timeout_seconds);

}  // namespace accel::scenario
