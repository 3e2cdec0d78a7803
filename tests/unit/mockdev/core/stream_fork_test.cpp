// Fork and the stream engine: the engine creates no threads; a child
// forked after cuInit gets the pid gate on every stream entry point, and a host function
// that another thread was running at the fork (it never ends in the child) is cancelled
// there, so the child's engine stays consistent and nothing in it waits forever.

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

std::atomic<int> g_stage{0};

void hold(void*) {
  g_stage = 1;
  while (g_stage.load() != 2) std::this_thread::yield();
}

// 0 when the child saw what it should; otherwise the number of the first wrong check.
int child_checks(CUstream s) {
  if (cuda().cuStreamSynchronize(s) != CUDA_ERROR_NOT_INITIALIZED) return 1;
  CUstream t = nullptr;
  if (cuda().cuStreamCreate(&t, 0) != CUDA_ERROR_NOT_INITIALIZED) return 2;
  CUevent e = nullptr;
  if (cuda().cuEventCreate(&e, 0) != CUDA_ERROR_NOT_INITIALIZED) return 3;
  const streams::Stats stats = streams::stats();  // takes the engine lock: must not hang
  if (stats.pending != 0) return 4;               // the running host function: cancelled
  return 0;
}

TEST_F(StreamTest, ChildForkedWhileAHostFunctionRunsStaysConsistent) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  g_stage = 0;
  ASSERT_EQ(cu().cuLaunchHostFunc(s, hold, nullptr), CUDA_SUCCESS);
  std::thread runner([&] { EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS); });
  while (g_stage.load() != 1) std::this_thread::yield();
  EXPECT_EQ(streams::stats().pending, 1u);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    alarm(10);
    _exit(child_checks(s));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  g_stage = 2;
  runner.join();
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "child check " << WEXITSTATUS(status) << " failed";
  EXPECT_EQ(streams::stats().pending, 0u);  // the parent's host function ended normally
}

}  // namespace
}  // namespace mockdev::testing
