#include "isolated.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>

namespace accel::scenario {

ChildResult run_isolated(const std::function<int()>& body, int timeout_seconds) {
  ChildResult result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.output = "cannot create a pipe";
    return result;
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    result.output = "fork failed";
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[1]);
    int status = 3;
    try {
      status = body();
    } catch (const std::exception& e) {
      std::cout << "runner: " << e.what() << "\n";
    } catch (...) {
      std::cout << "runner: an exception of unknown type\n";
    }
    std::cout.flush();
    std::fflush(nullptr);
    _exit(status);
  }
  setpgid(pid, pid);  // also here: whichever runs first makes the group
  close(fds[1]);
  const auto deadline = start + std::chrono::seconds(timeout_seconds);
  char buffer[4096];
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every writer closed: the child (and any grandchild) is done
    result.output.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exit_status = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  return result;
}

}  // namespace accel::scenario
