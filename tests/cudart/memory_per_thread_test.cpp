// libcudart.so.13's memory calls as a program built with `--default-stream per-thread` calls
// them (this file is compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM=1): cudaMemcpyAsync and
// cudaMemsetAsync on stream 0 are the _ptsz variants and go to the calling thread's
// per-thread default stream, the synchronous copies and memsets are the _ptds variants (spec
// cuda_runtime.md §5.1). Checked with a driver capture of the per-thread stream.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cudart_api.h"
#include "memory_driver.h"

#if !ACCEL_CUDART_TEST_TOOLKIT
// Without the toolkit's header, the renaming it does for a per-thread build.
extern "C" {
#define ACCEL_CUDART_TEST_DECLARE_VARIANT(ret, name, variant, params, args, traits) \
  ret variant params;
ACCEL_CUDART_PER_THREAD_TABLE(ACCEL_CUDART_TEST_DECLARE_VARIANT)
#undef ACCEL_CUDART_TEST_DECLARE_VARIANT
}
#define cudaMemcpy cudaMemcpy_ptds
#define cudaMemset cudaMemset_ptds
#define cudaMemcpyAsync cudaMemcpyAsync_ptsz
#define cudaMemsetAsync cudaMemsetAsync_ptsz
#endif

namespace {

using accel::cudart_test::memory_driver;
namespace drv = accel::cuda_abi;

drv::CUstream per_thread_stream() { return reinterpret_cast<drv::CUstream>(drv::kStreamPerThread); }

// The driver captures the calling thread's per-thread stream: work the runtime puts on
// stream 0 lands in the capture (not run), work on the legacy stream would run or fail.
TEST(CudartMemoryPerThread, AsyncWorkOnStreamZeroGoesToThePerThreadStream) {
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  constexpr std::size_t kBytes = 4096;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(dev, 0x11, kBytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<unsigned char> source(kBytes, 0x42);
  ASSERT_EQ(memory_driver().cuStreamBeginCapture(per_thread_stream(),
                                                 drv::CU_STREAM_CAPTURE_MODE_RELAXED),
            drv::CUDA_SUCCESS);
  EXPECT_EQ(cudaMemsetAsync(dev, 0x42, kBytes, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(dev, source.data(), kBytes, cudaMemcpyHostToDevice, nullptr),
            cudaSuccess);
  drv::CUgraph graph = nullptr;
  ASSERT_EQ(memory_driver().cuStreamEndCapture(per_thread_stream(), &graph), drv::CUDA_SUCCESS);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(memory_driver().cuGraphDestroy(graph), drv::CUDA_SUCCESS);
  std::vector<unsigned char> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), dev, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < kBytes; ++i) ASSERT_EQ(back[i], 0x11) << i;
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

TEST(CudartMemoryPerThread, SynchronousCopiesAndMemsetsMoveTheBytes) {
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  constexpr std::size_t kBytes = 4096;
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  std::vector<unsigned char> source(kBytes);
  for (std::size_t i = 0; i < kBytes; ++i) source[i] = static_cast<unsigned char>(i * 3);
  EXPECT_EQ(cudaMemcpy(dev, source.data(), kBytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemset(dev, 0x7F, 16), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  EXPECT_EQ(cudaMemcpy(back.data(), dev, kBytes, cudaMemcpyDefault), cudaSuccess);
  for (std::size_t i = 0; i < kBytes; ++i) ASSERT_EQ(back[i], i < 16 ? 0x7F : source[i]) << i;
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

}  // namespace
