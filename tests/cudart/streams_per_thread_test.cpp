// libcudart.so.13's stream calls as a program built with `--default-stream per-thread` calls
// them (this file is compiled with CUDA_API_PER_THREAD_DEFAULT_STREAM=1): stream 0 is the
// calling thread's per-thread default stream (the _ptsz variants), the same stream as
// cudaStreamPerThread, a different one on every thread, and never the legacy stream (spec
// cuda_runtime.md §5.1). Run under MOCKDEV_SCHEDULE=adversarial.

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "streams_test.h"

#if !ACCEL_CUDART_TEST_TOOLKIT
// Without the toolkit's header, the renaming it does for a per-thread build.
extern "C" {
#define ACCEL_CUDART_TEST_DECLARE_VARIANT(ret, name, variant, params, args, traits) \
  ret variant params;
ACCEL_CUDART_PER_THREAD_TABLE(ACCEL_CUDART_TEST_DECLARE_VARIANT)
#undef ACCEL_CUDART_TEST_DECLARE_VARIANT
}
#define cudaStreamGetId cudaStreamGetId_ptsz
#define cudaStreamQuery cudaStreamQuery_ptsz
#define cudaStreamSynchronize cudaStreamSynchronize_ptsz
#define cudaMemsetAsync cudaMemsetAsync_ptsz
#define cudaEventRecord cudaEventRecord_ptsz
#define cudaStreamBeginCapture cudaStreamBeginCapture_ptsz
#define cudaStreamEndCapture cudaStreamEndCapture_ptsz
#define cudaStreamIsCapturing cudaStreamIsCapturing_ptsz
#endif

namespace {

constexpr std::size_t kBytes = std::size_t{1} << 20;

unsigned long long id_of(cudaStream_t s) {
  unsigned long long id = 0;
  EXPECT_EQ(cudaStreamGetId(s, &id), cudaSuccess);
  return id;
}

TEST(CudartStreamsPerThread, StreamZeroIsThisThreadsPerThreadStream) {
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  const unsigned long long zero = id_of(0);
  EXPECT_EQ(zero, id_of(cudaStreamPerThread));
  EXPECT_NE(zero, id_of(cudaStreamLegacy));
  unsigned long long other_zero = 0, other_per_thread = 0;
  std::thread([&] {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    other_zero = id_of(0);
    other_per_thread = id_of(cudaStreamPerThread);
  }).join();
  EXPECT_EQ(other_zero, other_per_thread);
  EXPECT_NE(other_zero, zero);
}

// Work on stream 0 is pending on this thread's stream (adversarial) and nowhere else: another
// thread's stream 0 is idle; synchronising stream 0 completes it.
TEST(CudartStreamsPerThread, WorkOnStreamZeroIsThisThreadsOnly) {
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  void* dev = nullptr;
  ASSERT_EQ(cudaMalloc(&dev, kBytes), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(dev, 7, kBytes, 0), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(0), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(cudaStreamPerThread), cudaErrorNotReady);
  cudaError_t other = cudaErrorUnknown;
  std::thread([&] {
    (void)cudaSetDevice(0);
    other = cudaStreamQuery(0);
  }).join();
  EXPECT_EQ(other, cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(cudaStreamPerThread), cudaSuccess);
  std::vector<unsigned char> back(kBytes, 0);
  ASSERT_EQ(cudaMemcpy(back.data(), dev, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, std::vector<unsigned char>(kBytes, 7));
  EXPECT_EQ(cudaFree(dev), cudaSuccess);
}

// Capturing stream 0 captures the per-thread stream, which the legacy stream does not see.
TEST(CudartStreamsPerThread, StreamZeroCanBeCaptured) {
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(0, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  ASSERT_EQ(cudaStreamIsCapturing(cudaStreamPerThread, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(0, &graph), cudaSuccess);
  ASSERT_NE(graph, nullptr);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
}

}  // namespace
