// libcudart.so.13 on the simulated machine: streams, events and graphs from capture (spec
// cuda_runtime.md §5; behaviour cuda_streams.md §1-§4). Run under MOCKDEV_SCHEDULE=adversarial,
// where the simulation leaves work pending until something waits for it: the ordering rules
// show as cudaErrorNotReady (600) before a synchronisation and cudaSuccess after. A program
// written against the runtime API; run once per machine (4xh100 per test, 2xa100 whole).

#include "streams_test.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using accel::cudart_test::stream_driver;
namespace drv = accel::cuda_abi;

constexpr std::size_t kBytes = std::size_t{1} << 20;

class CudartStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    (void)cudaGetLastError();
  }
  void TearDown() override {
    for (void* p : buffers_) EXPECT_EQ(cudaFree(p), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  void* buffer(int value = 0) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, kBytes), cudaSuccess);
    EXPECT_EQ(cudaMemset(p, value, kBytes), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // non-blocking streams do not wait for it
    buffers_.push_back(p);
    return p;
  }
  static std::vector<unsigned char> read(const void* dev) {
    std::vector<unsigned char> out(kBytes, 0xee);
    EXPECT_EQ(cudaMemcpy(out.data(), dev, kBytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return out;
  }

 private:
  std::vector<void*> buffers_;
};

TEST_F(CudartStreams, FlagsAndPrioritiesAreExact) {
  cudaStream_t blocking = nullptr, non_blocking = nullptr, plain = nullptr;
  ASSERT_EQ(cudaStreamCreate(&plain), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&blocking, cudaStreamDefault), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking), cudaSuccess);
  unsigned flags = 99;
  EXPECT_EQ(cudaStreamGetFlags(plain, &flags), cudaSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(cudaStreamGetFlags(blocking, &flags), cudaSuccess);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(cudaStreamGetFlags(non_blocking, &flags), cudaSuccess);
  EXPECT_EQ(flags, 1u);

  int least = 99, greatest = 99;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  ASSERT_LT(greatest, least);
  cudaStream_t high = nullptr, low = nullptr, clamped = nullptr;
  ASSERT_EQ(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithPriority(&low, cudaStreamDefault, least), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithPriority(&clamped, cudaStreamDefault, greatest - 5), cudaSuccess);
  int priority = 99;
  EXPECT_EQ(cudaStreamGetPriority(high, &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest);
  EXPECT_EQ(cudaStreamGetFlags(high, &flags), cudaSuccess);
  EXPECT_EQ(flags, 1u);
  EXPECT_EQ(cudaStreamGetPriority(low, &priority), cudaSuccess);
  EXPECT_EQ(priority, least);
  EXPECT_EQ(cudaStreamGetPriority(clamped, &priority), cudaSuccess);
  EXPECT_EQ(priority, greatest);  // clamped to the range, silently
  EXPECT_EQ(cudaStreamGetPriority(plain, &priority), cudaSuccess);
  EXPECT_EQ(priority, 0);

  // Ids: distinct, and the driver's.
  unsigned long long id_a = 0, id_b = 0, driver_id = 0;
  EXPECT_EQ(cudaStreamGetId(plain, &id_a), cudaSuccess);
  EXPECT_EQ(cudaStreamGetId(high, &id_b), cudaSuccess);
  EXPECT_NE(id_a, id_b);
  ASSERT_NE(stream_driver().cuStreamGetId, nullptr);
  EXPECT_EQ(stream_driver().cuStreamGetId(reinterpret_cast<drv::CUstream>(plain), &driver_id),
            drv::CUDA_SUCCESS);
  EXPECT_EQ(id_a, driver_id);
  int device = -1;
  EXPECT_EQ(cudaStreamGetDevice(plain, &device), cudaSuccess);
  EXPECT_EQ(device, 0);

  for (cudaStream_t s : {plain, blocking, non_blocking, high, low, clamped}) {
    EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  }
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(CudartStreams, BadFlagsAndHandlesAreRecordedAsTheLastError) {
  cudaStream_t s = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&s, 0x4), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
  cudaEvent_t e = nullptr;
  EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&e, 0x8), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaStreamAddCallback(s, nullptr, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaLaunchHostFunc(s, nullptr, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  (void)cudaGetLastError();
  // An event never recorded: elapsed time is an invalid handle (400).
  cudaEvent_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaEventCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventElapsedTime(nullptr, a, b), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaEventDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(b), cudaSuccess);
}

// Work on s1, an event recorded after it, s2 waiting on the event, then work on s2 that reads
// what s1 wrote: nothing has run before the wait is forced (adversarial), and synchronising
// s2 completes s1's work and the event first. cudaErrorNotReady is a status: not recorded.
TEST_F(CudartStreams, EventWaitOrdersWorkAcrossStreams) {
  void* a = buffer(0);
  void* b = buffer(0);
  cudaStream_t s1 = nullptr, s2 = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t e = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 0x5a, kBytes, s1), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, s2), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s1), cudaErrorNotReady);
  EXPECT_EQ(cudaEventQuery(e), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(s2), cudaErrorNotReady);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // 600 is a status, not an error
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(e), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s2), cudaSuccess);
  EXPECT_EQ(read(b), std::vector<unsigned char>(kBytes, 0x5a));
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
}

// The legacy default stream waits for every blocking stream of its context and blocking
// streams wait for it; a non-blocking stream takes no part.
TEST_F(CudartStreams, LegacyStreamSynchronisesWithBlockingStreamsOnly) {
  void* a = buffer(0);
  void* b = buffer(0);
  void* c = buffer(0);
  cudaStream_t blocking = nullptr, non_blocking = nullptr;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 1, kBytes, blocking), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(b, 2, kBytes, non_blocking), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(c, 3, kBytes, 0), cudaSuccess);  // the legacy stream
  EXPECT_EQ(cudaStreamQuery(blocking), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(non_blocking), cudaErrorNotReady);
  EXPECT_EQ(cudaStreamQuery(0), cudaErrorNotReady);
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(blocking), cudaSuccess);  // the legacy stream waited for it
  EXPECT_EQ(cudaStreamQuery(non_blocking), cudaErrorNotReady);
  // Work on the blocking stream after legacy work waits for it.
  ASSERT_EQ(cudaMemsetAsync(c, 4, kBytes, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(a, c, kBytes, cudaMemcpyDeviceToDevice, blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(blocking), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(0), cudaSuccess);
  EXPECT_EQ(read(a), std::vector<unsigned char>(kBytes, 4));
  EXPECT_EQ(cudaStreamSynchronize(non_blocking), cudaSuccess);
  EXPECT_EQ(read(b), std::vector<unsigned char>(kBytes, 2));
  EXPECT_EQ(cudaStreamDestroy(blocking), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(non_blocking), cudaSuccess);
}

struct CallbackLog {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<cudaError_t> statuses;
  std::vector<cudaStream_t> streams;
};
CallbackLog g_log;

void on_callback(cudaStream_t stream, cudaError_t status, void* data) {
  std::lock_guard<std::mutex> lock(g_log.mutex);
  g_log.order.push_back(*static_cast<int*>(data));
  g_log.statuses.push_back(status);
  g_log.streams.push_back(stream);
}
void on_host_function(void* data) {
  std::lock_guard<std::mutex> lock(g_log.mutex);
  g_log.order.push_back(*static_cast<int*>(data));
}

TEST_F(CudartStreams, CallbacksAndHostFunctionsRunOnceInStreamOrderWithTheStatus) {
  void* a = buffer(0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  static int one = 1, two = 2, three = 3, four = 4;
  ASSERT_EQ(cudaMemsetAsync(a, 9, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaStreamAddCallback(s, on_callback, &one, 0), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(s, on_host_function, &two), cudaSuccess);
  ASSERT_EQ(cudaStreamAddCallback(s, on_callback, &three, 0), cudaSuccess);
  ASSERT_EQ(cudaStreamAddCallback(0, on_callback, &four, 0), cudaSuccess);
  EXPECT_EQ(cudaStreamAddCallback(s, on_callback, &one, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(0), cudaSuccess);
  std::lock_guard<std::mutex> lock(g_log.mutex);
  EXPECT_EQ(g_log.order, (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(g_log.statuses, (std::vector<cudaError_t>{cudaSuccess, cudaSuccess, cudaSuccess}));
  EXPECT_EQ(g_log.streams, (std::vector<cudaStream_t>{s, s, nullptr}));
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// cudaEventElapsedTime answers the driver's virtual milliseconds for the same events.
TEST_F(CudartStreams, ElapsedTimeIsTheDriversVirtualTime) {
  void* a = buffer(0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  cudaEvent_t start = nullptr, stop = nullptr, untimed = nullptr;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 1, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecordWithFlags(stop, s, 0), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(untimed, s), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
  EXPECT_EQ(cudaEventQuery(stop), cudaErrorNotReady);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  float driver_ms = -2;
  ASSERT_NE(stream_driver().cuEventElapsedTime, nullptr);
  ASSERT_EQ(stream_driver().cuEventElapsedTime(&driver_ms, reinterpret_cast<drv::CUevent>(start),
                                               reinterpret_cast<drv::CUevent>(stop)),
            drv::CUDA_SUCCESS);
  EXPECT_GT(ms, 0.0f);
  EXPECT_EQ(ms, driver_ms);
  ASSERT_EQ(cudaEventElapsedTime(&ms, stop, start), cudaSuccess);
  EXPECT_EQ(ms, -driver_ms);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
  (void)cudaGetLastError();
  for (cudaEvent_t e : {start, stop, untimed}) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// The special handles mean the same in a plain build: cudaStreamPerThread is the calling
// thread's own stream (a different stream per thread), cudaStreamLegacy and 0 the legacy one.
TEST_F(CudartStreams, SpecialHandlesNameTheLegacyAndPerThreadStreams) {
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(cudaStreamLegacy), drv::kStreamLegacy);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(cudaStreamPerThread), drv::kStreamPerThread);
  unsigned long long zero = 0, legacy = 0, per_thread = 0, other_thread = 0;
  ASSERT_EQ(cudaStreamGetId(0, &zero), cudaSuccess);
  ASSERT_EQ(cudaStreamGetId(cudaStreamLegacy, &legacy), cudaSuccess);
  ASSERT_EQ(cudaStreamGetId(cudaStreamPerThread, &per_thread), cudaSuccess);
  EXPECT_EQ(zero, legacy);
  EXPECT_NE(per_thread, legacy);
  std::thread([&] {
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaStreamGetId(cudaStreamPerThread, &other_thread), cudaSuccess);
  }).join();
  EXPECT_NE(other_thread, per_thread);
  EXPECT_NE(other_thread, legacy);
}

class CudartCapture : public CudartStreams {};

std::atomic<int> g_host_nodes_run{0};
void count_host_node(void*) { g_host_nodes_run.fetch_add(1); }

TEST_F(CudartCapture, ACapturedSequenceIsInstantiatedAndLaunched) {
  void* a = buffer(0);
  void* b = buffer(0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  g_host_nodes_run = 0;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 0x33, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(b, a, kBytes, cudaMemcpyDeviceToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(s, count_host_node, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  unsigned long long id = 0;
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t count = 0;
  ASSERT_EQ(cudaStreamGetCaptureInfo(s, &status, &id, &capturing, &deps, &edges, &count),
            cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  EXPECT_NE(id, 0u);
  EXPECT_NE(capturing, nullptr);
  EXPECT_EQ(count, 1u);  // the host node, the last captured
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  ASSERT_EQ(graph, capturing);
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  EXPECT_EQ(g_host_nodes_run.load(), 0);  // captured, not run
  EXPECT_EQ(read(b), std::vector<unsigned char>(kBytes, 0));

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(graph), cudaSuccess);  // the exec is a snapshot
  ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s), cudaErrorNotReady);
  ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(g_host_nodes_run.load(), 2);
  EXPECT_EQ(read(b), std::vector<unsigned char>(kBytes, 0x33));
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  cudaGraphExec_t with_flags = nullptr;
  EXPECT_EQ(cudaGraphInstantiateWithFlags(&with_flags, nullptr, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST_F(CudartCapture, ThreadModeIsExchanged) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeGlobal);  // every thread starts in GLOBAL
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeRelaxed);
  EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

// Synchronising a capturing stream is prohibited (900) and invalidates the capture; End then
// answers 901 and no graph. Each code is the thread's last error.
TEST_F(CudartCapture, SynchronisingACapturingStreamInvalidatesTheCapture) {
  void* a = buffer(0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 1, kBytes, s), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureUnsupported);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusInvalidated);
  cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x1);
  EXPECT_EQ(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph, nullptr);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// While a blocking stream captures, any use of the legacy stream is an implicit dependency on
// it (906): introspection leaves the capture alone, work invalidates it (End: 901, no graph).
TEST_F(CudartCapture, LegacyStreamUseDuringABlockingCaptureIsImplicit) {
  void* a = buffer(0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);  // blocking
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 1, kBytes, s), cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  EXPECT_EQ(cudaStreamIsCapturing(0, &status), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureImplicit);
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  EXPECT_EQ(cudaMemsetAsync(a, 2, kBytes, cudaStreamLegacy), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureImplicit);
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusInvalidated);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph, nullptr);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

// A captured event cannot be queried (907), even by a thread in RELAXED mode; in GLOBAL mode
// the capturing thread's query is a prohibited call (900) before that.
TEST_F(CudartCapture, CapturedEventsCannotBeQueried) {
  void* a = buffer(0);
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t e = nullptr;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 1, kBytes, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(e), cudaErrorCapturedEvent);
  EXPECT_EQ(cudaGetLastError(), cudaErrorCapturedEvent);
  EXPECT_EQ(cudaEventSynchronize(e), cudaErrorCapturedEvent);
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeRelaxed);
  cudaGraph_t graph = nullptr;
  (void)cudaStreamEndCapture(s, &graph);
  if (graph != nullptr) {
    EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  }
  (void)cudaGetLastError();
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST_F(CudartCapture, CallbacksCannotBeCaptured) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  static int unused = 0;
  EXPECT_EQ(cudaStreamAddCallback(s, on_callback, &unused, 0), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureUnsupported);
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
  (void)cudaGetLastError();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

}  // namespace
