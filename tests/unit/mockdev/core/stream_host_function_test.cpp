// Host functions (Note [Host functions] in core/timeline.h): when they run, on which thread,
// with the engine lock released, and what a driver call from inside one returns.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

struct Probe {
  int runs = 0;
  std::thread::id thread;
  CUresult inner = CUDA_SUCCESS;
  std::uint64_t queued_seen = 0;
};

void record_run(void* p) {
  auto* probe = static_cast<Probe*>(p);
  ++probe->runs;
  probe->thread = std::this_thread::get_id();
  // A driver call from inside: refused.
  CUstream s = nullptr;
  probe->inner = cuda().cuStreamCreate(&s, 0);
  // The control API takes the engine lock: it would hang if the lock were held here.
  probe->queued_seen = streams::stats().enqueued;
}

TEST_F(StreamTest, EagerHostFunctionRunsAtTheCall) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  Probe probe;
  ASSERT_EQ(cu().cuLaunchHostFunc(s, record_run, &probe), CUDA_SUCCESS);
  EXPECT_EQ(probe.runs, 1);
  EXPECT_EQ(probe.thread, std::this_thread::get_id());
  EXPECT_EQ(probe.inner, CUDA_ERROR_NOT_PERMITTED);
  EXPECT_EQ(probe.queued_seen, 1u);
  // Outside the host function the driver answers again.
  CUstream t = nullptr;
  EXPECT_EQ(cu().cuStreamCreate(&t, 0), CUDA_SUCCESS);
}

TEST_F(StreamTest, AdversarialHostFunctionRunsOnTheWaitingThread) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  Probe probe;
  ASSERT_EQ(cu().cuLaunchHostFunc(s, record_run, &probe), CUDA_SUCCESS);
  EXPECT_EQ(probe.runs, 0);
  EXPECT_EQ(cu().cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(probe.runs, 0);
  std::thread::id waiter;
  std::thread([&] {
    waiter = std::this_thread::get_id();
    EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  }).join();
  EXPECT_EQ(probe.runs, 1);
  EXPECT_EQ(probe.thread, waiter);
  EXPECT_EQ(probe.inner, CUDA_ERROR_NOT_PERMITTED);
}

TEST_F(StreamTest, HostFunctionIsOrderedInItsStream) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(4);
  struct Seen {
    CUdeviceptr d;
    unsigned char byte = 0;
  } seen{d};
  cu().cuMemsetD8Async(d, 4, 4, s);
  // Reads device memory through the control-free path: a host function cannot call the
  // driver, so it reads what the test copies out after; here it only checks the order.
  ASSERT_EQ(cu().cuLaunchHostFunc(
                s, [](void* p) { static_cast<Seen*>(p)->byte = 1; }, &seen),
            CUDA_SUCCESS);
  cu().cuMemsetD8Async(d, 5, 4, s);
  EXPECT_EQ(pending(s), 3u);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(seen.byte, 1);
  EXPECT_EQ(byte_at(d), 5);
}

void callback(CUstream stream, CUresult status, void* user) {
  auto* out = static_cast<std::pair<CUstream, CUresult>*>(user);
  *out = {stream, status};
}

TEST_F(StreamTest, StreamCallbackGetsItsStreamAndStatus) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  std::pair<CUstream, CUresult> got{nullptr, CUDA_ERROR_UNKNOWN};
  EXPECT_EQ(cu().cuStreamAddCallback(s, callback, &got, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuStreamAddCallback(s, nullptr, &got, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cu().cuStreamAddCallback(s, callback, &got, 0), CUDA_SUCCESS);
  EXPECT_EQ(got.first, s);
  EXPECT_EQ(got.second, CUDA_SUCCESS);
  EXPECT_EQ(cu().cuLaunchHostFunc(s, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(StreamTest, WaitForAHostFunctionRunningOnAnotherThread) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  static std::atomic<int> stage{0};
  stage = 0;
  ASSERT_EQ(cu().cuLaunchHostFunc(
                s,
                [](void*) {
                  stage = 1;
                  while (stage.load() != 2) std::this_thread::yield();
                },
                nullptr),
            CUDA_SUCCESS);
  std::thread runner([&] { EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS); });
  while (stage.load() != 1) std::this_thread::yield();
  // The host function runs on `runner` with the lock released: this thread can use the
  // driver, and its own wait blocks until the function returns.
  std::thread releaser([&] {
    std::this_thread::yield();
    stage = 2;
  });
  EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(stage.load(), 2);
  runner.join();
  releaser.join();
}

// Note [Progress guarantee]: a program that waits on its own condition variable for a
// callback, making no driver call, still sees it run under the schedules that complete work
// only when asked; work that is no host function (a memset nobody waits for) stays pending.
struct Signal {
  std::uint64_t queue = 0;  // the stream's engine queue
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread::id thread;
  std::size_t pending_in_callback = 0;
};

void signal_done(void* p) {
  auto* signal = static_cast<Signal*>(p);
  // Read without the driver (a callback may not call it): what the stream still holds while
  // its callback runs is the callback alone; the memset before it has completed.
  const std::size_t pending_now = streams::pending_operations(signal->queue).size();
  std::lock_guard lock(signal->m);
  signal->pending_in_callback = pending_now;
  signal->done = true;
  signal->thread = std::this_thread::get_id();
  signal->cv.notify_all();
}

class ProgressTest : public StreamTest {
 protected:
  void wait_for_callback_without_the_driver(Schedule schedule);
};

void ProgressTest::wait_for_callback_without_the_driver(Schedule schedule) {
  start(schedule);
  CUstream s = make_stream();
  CUstream other = make_stream(CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = alloc(4096), e = alloc(4096);
  ASSERT_EQ(cuda().cuMemsetD8Async(e, 1, 4096, other), CUDA_SUCCESS);
  Signal signal;
  const auto queue = streams::cuda_stream_queue(s);
  ASSERT_TRUE(queue.has_value());
  signal.queue = *queue;
  ASSERT_EQ(cuda().cuMemsetD8Async(d, 2, 4096, s), CUDA_SUCCESS);
  ASSERT_EQ(cuda().cuLaunchHostFunc(s, signal_done, &signal), CUDA_SUCCESS);
  {
    // Bounded, so that a broken guarantee fails the test instead of hanging it.
    std::unique_lock lock(signal.m);
    ASSERT_TRUE(signal.cv.wait_for(lock, std::chrono::seconds(20), [&] { return signal.done; }));
  }
  EXPECT_NE(signal.thread, std::this_thread::get_id());  // the progress thread ran it
  EXPECT_EQ(signal.pending_in_callback, 1u);             // what it needed ran first
  // The callback's own operation completes when the function has returned, on the progress
  // thread, a moment after the signal: wait for that, bounded, without a driver call.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (pending(s) != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pending(s), 0u);
  // Nobody waited for this memset and it is no host function: adversarial leaves it pending
  // however long the program idles (random may have run it at one of the calls above).
  if (schedule == Schedule::kAdversarial) {
    EXPECT_EQ(pending(other), 1u);
  }
  ASSERT_EQ(cuda().cuStreamSynchronize(other), CUDA_SUCCESS);
}

TEST_F(ProgressTest, ACallbackWaitedForWithoutTheDriverRunsUnderAdversarial) {
  wait_for_callback_without_the_driver(Schedule::kAdversarial);
}

TEST_F(ProgressTest, ACallbackWaitedForWithoutTheDriverRunsUnderRandom) {
  wait_for_callback_without_the_driver(Schedule::kRandom);
}

}  // namespace
}  // namespace mockdev::testing
