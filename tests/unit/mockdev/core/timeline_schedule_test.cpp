// The scheduler modes (Note [Scheduler] in core/timeline.h), the legacy-stream rules (Note
// [Legacy stream] in cuda/stream_objects.h), host waits and the deadlock report.

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "core/engine.h"
#include "stream_test.h"

namespace mockdev::testing {
namespace {

TEST_F(StreamTest, EagerCompletesAtEnqueue) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(256);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 5, 256, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 0u);
  EXPECT_EQ(cu().cuStreamQuery(s), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(d), 5);
}

TEST_F(StreamTest, AdversarialCompletesOnlyWhenAHostWaitNeedsIt) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(256);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 5, 256, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 6, 1, s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 2u);
  // A query never forces progress.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(cu().cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(pending(s), 2u);
  EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 0u);
  EXPECT_EQ(cu().cuStreamQuery(s), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(d), 6);
}

TEST_F(StreamTest, AdversarialWaitForcesExactlyWhatItNeeds) {
  start(Schedule::kAdversarial);
  CUstream a = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream b = make_stream(CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = alloc(256);
  cu().cuMemsetD8Async(d, 1, 16, a);
  cu().cuMemsetD8Async(d + 16, 2, 16, b);
  EXPECT_EQ(cu().cuStreamSynchronize(a), CUDA_SUCCESS);
  EXPECT_EQ(pending(a), 0u);
  EXPECT_EQ(pending(b), 1u);  // not needed by the wait: untouched
}

// Spec section 1.3: k1 on blocking s, k2 on legacy, k3 on s => k2 after k1, k3 after k2.
TEST_F(StreamTest, LegacyStreamBarrierOrdersBlockingStreams) {
  start(Schedule::kAdversarial);
  CUstream s1 = make_stream();
  CUstream s2 = make_stream();
  CUstream nb = make_stream(CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = alloc(256);
  cu().cuMemsetD8Async(d, 1, 1, s2);           // k1 on blocking s2
  cu().cuMemsetD8Async(d + 1, 1, 1, nb);       // on the non-blocking stream
  cu().cuMemsetD8Async(d + 2, 2, 1, nullptr);  // k2 on legacy: after k1
  cu().cuMemsetD8Async(d + 3, 3, 1, s1);       // k3 on blocking s1: after k2
  EXPECT_EQ(cu().cuStreamSynchronize(s1), CUDA_SUCCESS);
  EXPECT_EQ(pending(s2), 0u);
  EXPECT_EQ(pending(nullptr), 0u);
  EXPECT_EQ(pending(nb), 1u);  // exempt
}

TEST_F(StreamTest, NonBlockingStreamDoesNotWaitForLegacy) {
  start(Schedule::kAdversarial);
  CUstream nb = make_stream(CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = alloc(256);
  cu().cuMemsetD8Async(d, 1, 1, nullptr);
  cu().cuMemsetD8Async(d + 1, 1, 1, nb);
  EXPECT_EQ(cu().cuStreamSynchronize(nb), CUDA_SUCCESS);
  EXPECT_EQ(pending(nullptr), 1u);
}

TEST_F(StreamTest, PerThreadStreamWaitsForLegacyButNotForCreatedStreams) {
  start(Schedule::kAdversarial);
  const CUstream pt = reinterpret_cast<CUstream>(0x2);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(256);
  cu().cuMemsetD8Async(d, 1, 1, s);
  EXPECT_EQ(cu().cuMemsetD8Async(d + 1, 1, 1, pt), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamSynchronize(pt), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 1u);                   // not synchronised with created streams
  cu().cuMemsetD8Async(d + 2, 1, 1, nullptr);  // legacy: waits for s and pt
  cu().cuMemsetD8Async(d + 3, 1, 1, pt);       // pt: waits for that legacy op
  EXPECT_EQ(cu().cuStreamSynchronize(pt), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 0u);
}

TEST_F(StreamTest, LegacySynchronizeCoversBlockingStreams) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUstream nb = make_stream(CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = alloc(256);
  cu().cuMemsetD8Async(d, 1, 1, s);
  cu().cuMemsetD8Async(d + 1, 1, 1, nb);
  EXPECT_EQ(cu().cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cu().cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(pending(s), 0u);
  EXPECT_EQ(pending(nb), 1u);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);  // every stream of the context
  EXPECT_EQ(pending(nb), 0u);
}

// The sequence of NOT_READY/SUCCESS answers of a random run, as a string.
std::string random_run() {
  const CudaDriver& cu = cuda();
  std::string answers;
  CUstream a = nullptr, b = nullptr;
  cu.cuStreamCreate(&a, CU_STREAM_NON_BLOCKING);
  cu.cuStreamCreate(&b, CU_STREAM_NON_BLOCKING);
  CUdeviceptr d = 0;
  cu.cuMemAlloc_v2(&d, 4096);
  for (int i = 0; i < 40; ++i) {
    cu.cuMemsetD8Async(d + static_cast<CUdeviceptr>(i), static_cast<unsigned char>(i), 1,
                       i % 3 == 0 ? b : a);
    answers += cu.cuStreamQuery(a) == CUDA_SUCCESS ? 'a' : '.';
    answers += cu.cuStreamQuery(b) == CUDA_SUCCESS ? 'b' : '.';
  }
  return answers;
}

TEST_F(StreamTest, RandomScheduleIsReproducibleBySeed) {
  start(Schedule::kRandom, 42);
  const std::string first = random_run();
  start(Schedule::kRandom, 42);
  const std::string again = random_run();
  start(Schedule::kRandom, 7);
  const std::string other = random_run();
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
  // Random progress happens: some queries see completion, some do not.
  EXPECT_NE(first.find('a'), std::string::npos);
  EXPECT_NE(first.find('.'), std::string::npos);
}

TEST_F(StreamTest, RandomScheduleStillCompletesEverythingOnSynchronize) {
  start(Schedule::kRandom, 3);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(64);
  for (int i = 0; i < 64; ++i) {
    cu().cuMemsetD8Async(d + static_cast<CUdeviceptr>(i), static_cast<unsigned char>(i + 1), 1, s);
  }
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  unsigned char host[64] = {};
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host, d, 64), CUDA_SUCCESS);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(host[i], i + 1) << i;
}

// Completed operations are pruned from the op list (Note [Op path cost]); the end times an
// event needs survive it.
TEST_F(StreamTest, EventTimesSurvivePruning) {
  MachineSpec m = load_machine("4xh100");
  m.streams.timing.memset_gb_per_s = 0.064;  // 64 bytes -> 1000 ns
  control::reset(m);
  init_and_make_current(0);
  CUstream s = make_stream();
  CUevent a = nullptr, b = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&a, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventCreate(&b, 0), CUDA_SUCCESS);
  CUdeviceptr d = alloc(64);
  ASSERT_EQ(cu().cuEventRecord(a, s), CUDA_SUCCESS);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 64, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(b, s), CUDA_SUCCESS);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(cu().cuMemsetD8Async(d, 2, 64, s), CUDA_SUCCESS);
  float ms = 0;
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, a, b), CUDA_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 3.0f);  // 3000 x 1000 ns
  EXPECT_EQ(streams::stats().completed, 6002u);
}

// Several host threads enqueue, run host functions and synchronise at once (random
// schedule): every thread's bytes arrive and nothing hangs.
TEST_F(StreamTest, ThreadsShareTheEngine) {
  start(Schedule::kRandom, 5);
  CUcontext ctx = nullptr;
  cu().cuCtxGetCurrent(&ctx);
  CUdeviceptr d = alloc(4 * 256);
  std::atomic<int> host_calls{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      cu().cuCtxSetCurrent(ctx);
      CUstream s = nullptr;
      ASSERT_EQ(cu().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
      for (int i = 0; i < 256; ++i) {
        const CUdeviceptr at = d + static_cast<CUdeviceptr>(t * 256 + i);
        ASSERT_EQ(cu().cuMemsetD8Async(at, static_cast<unsigned char>(t + i), 1, s), CUDA_SUCCESS);
        if (i % 64 == 0) {
          ASSERT_EQ(cu().cuLaunchHostFunc(
                        s, [](void* p) { ++*static_cast<std::atomic<int>*>(p); }, &host_calls),
                    CUDA_SUCCESS);
        }
      }
      ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
      ASSERT_EQ(cu().cuStreamDestroy_v2(s), CUDA_SUCCESS);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(host_calls.load(), 16);
  std::vector<unsigned char> host(4 * 256);
  ASSERT_EQ(cu().cuMemcpyDtoH_v2(host.data(), d, host.size()), CUDA_SUCCESS);
  for (int t = 0; t < 4; ++t) {
    for (int i = 0; i < 256; ++i) {
      ASSERT_EQ(host[static_cast<std::size_t>(t * 256 + i)], static_cast<unsigned char>(t + i));
    }
  }
}

TEST_F(StreamTest, ScheduleFromTheMachineFile) {
  MachineSpec m = parse_machine(
      "name: m\ndevices: [{name: d, memory: 1GiB, compute_capability: '9.0', multiprocessors: "
      "132}]\nstreams: {schedule: adversarial, seed: 9}\n",
      "m.yaml");
  EXPECT_EQ(m.streams.schedule, Schedule::kAdversarial);
  EXPECT_EQ(m.streams.seed, 9u);
  control::reset(m);
  EXPECT_EQ(streams::settings().schedule, Schedule::kAdversarial);
}

TEST(MockStreamEnvironment, OverridesAndMalformedValues) {
  StreamSettings s;
  setenv("MOCKDEV_SCHEDULE", "random", 1);
  setenv("MOCKDEV_SEED", "12345", 1);
  core::apply_stream_environment(s);
  EXPECT_EQ(s.schedule, StreamSettings::Schedule::kRandom);
  EXPECT_EQ(s.seed, 12345u);
  setenv("MOCKDEV_SCHEDULE", "lazy", 1);
  try {
    core::apply_stream_environment(s);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "MOCKDEV_SCHEDULE='lazy': expected eager, random or adversarial");
  }
  setenv("MOCKDEV_SCHEDULE", "Random", 1);  // the closest spelling is named
  try {
    core::apply_stream_environment(s);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "MOCKDEV_SCHEDULE='Random': expected eager, random or adversarial (closest: "
                 "random)");
  }
  setenv("MOCKDEV_SCHEDULE", "eager", 1);
  for (const char* bad : {"-1", "12x", "18446744073709551616", " 1"}) {
    setenv("MOCKDEV_SEED", bad, 1);
    try {
      core::apply_stream_environment(s);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("MOCKDEV_SEED='") + bad +
                    "': expected an unsigned decimal integer from 0 to 18446744073709551615 "
                    "(2^64 - 1)");
    }
  }
  unsetenv("MOCKDEV_SCHEDULE");
  unsetenv("MOCKDEV_SEED");
}

// An empty variable counts as unset (README, "Environment variables"): the machine file's
// settings stay, no error.
TEST(MockStreamEnvironment, EmptyValuesCountAsUnset) {
  StreamSettings s;
  s.schedule = StreamSettings::Schedule::kAdversarial;
  s.seed = 7;
  setenv("MOCKDEV_SCHEDULE", "", 1);
  setenv("MOCKDEV_SEED", "", 1);
  core::apply_stream_environment(s);
  EXPECT_EQ(s.schedule, StreamSettings::Schedule::kAdversarial);
  EXPECT_EQ(s.seed, 7u);
  unsetenv("MOCKDEV_SCHEDULE");
  unsetenv("MOCKDEV_SEED");
}

TEST_F(StreamTest, WaitOnCancelledWorkIsADeadlockNotAHang) {
  start(Schedule::kAdversarial);
  CUstream s0 = make_stream();
  CUevent e = nullptr;
  ASSERT_EQ(cu().cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  CUdeviceptr d = alloc(64);
  cu().cuMemsetD8Async(d, 1, 64, s0);
  ASSERT_EQ(cu().cuEventRecord(e, s0), CUDA_SUCCESS);
  CUcontext ctx1 = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  CUstream s1 = make_stream();
  ASSERT_EQ(cu().cuStreamWaitEvent(s1, e, 0), CUDA_SUCCESS);      // across devices: allowed
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);  // cancels s0's work
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(cu().cuStreamSynchronize(s1), CUDA_ERROR_ILLEGAL_STATE);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("mockdev: deadlock: cuStreamSynchronize waits for operation 3 on queue "
                     "'dev1/stream 2', which can never complete: it needs operation 2 on queue "
                     "'dev0/stream 1', cancelled when that queue's context was released"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace mockdev::testing
