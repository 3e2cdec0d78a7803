// libcudart.so.13 where no libcuda.so.1 can be loaded (run with an empty library path):
// the calls that need no driver answer, every other call returns
// cudaErrorInsufficientDriver, and that error sticks (spec cuda_runtime.md §1.1).

#include <gtest/gtest.h>

#include "cudart_api.h"

namespace {

TEST(CudartNoDriver, DriverFreeCallsAnswerTheRestIsInsufficientDriverForGood) {
  int version = -1;
  EXPECT_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  EXPECT_EQ(version, 13000);
  EXPECT_EQ(cudaDriverGetVersion(&version), cudaSuccess);
  EXPECT_EQ(version, 0);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);

  int count = -1;
  EXPECT_EQ(cudaGetDeviceCount(&count), cudaErrorInsufficientDriver);
  EXPECT_EQ(cudaSetDevice(0), cudaErrorInsufficientDriver);
  // Sticky: the slot is never cleared, and every driver-needing call answers the same.
  EXPECT_EQ(cudaGetLastError(), cudaErrorInsufficientDriver);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInsufficientDriver);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInsufficientDriver);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorInsufficientDriver);
  EXPECT_STREQ(cudaGetErrorString(cudaErrorInsufficientDriver),
               "CUDA driver version is insufficient for CUDA runtime version");
}

}  // namespace
