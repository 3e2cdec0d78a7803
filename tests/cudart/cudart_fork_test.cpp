// libcudart.so.13 across fork(): a child of a parent that initialised the runtime gets
// cudaErrorInitializationError from every driver-needing call, sticky, while the calls that
// need no driver answer (spec cuda_runtime.md §1.6, [inferred]; docs/HARDWARE.md). Its own
// binary: fork with threads is delicate (STYLE.md).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "cudart_api.h"

namespace {

// The child's exit codes, one per rule it checks.
enum ChildExit : int {
  kChildOk = 0,
  kCountNotInitializationError = 10,
  kLastErrorCleared = 11,
  kSetDeviceNotInitializationError = 12,
  kRuntimeVersionFailed = 13,
  kErrorStringWrong = 14,
};

int run_child() {
  int count = -1;
  if (cudaGetDeviceCount(&count) != cudaErrorInitializationError) {
    return kCountNotInitializationError;
  }
  if (cudaGetLastError() != cudaErrorInitializationError) return kLastErrorCleared;
  if (cudaGetLastError() != cudaErrorInitializationError) return kLastErrorCleared;
  if (cudaSetDevice(0) != cudaErrorInitializationError) return kSetDeviceNotInitializationError;
  int version = 0;
  if (cudaRuntimeGetVersion(&version) != cudaSuccess || version != 13000) {
    return kRuntimeVersionFailed;
  }
  if (std::string(cudaGetErrorString(cudaErrorInitializationError)) != "initialization error") {
    return kErrorStringWrong;
  }
  return kChildOk;
}

// First in the file: a parent that never called the runtime forks a child that can.
TEST(CudartFork, ChildOfAParentThatNeverInitialisedWorks) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int count = -1;
    _exit(cudaGetDeviceCount(&count) == cudaSuccess && count > 0 ? kChildOk
                                                                 : kCountNotInitializationError);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kChildOk);
}

TEST(CudartFork, ChildOfAnInitialisedParentGetsInitializationError) {
  int count = -1;
  ASSERT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  ASSERT_GT(count, 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) _exit(run_child());
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kChildOk);
  // The parent is untouched.
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
}

}  // namespace
