// Stream entry points: creation, flags, priorities, handles, special streams, destruction,
// and what a released context does to its streams (CUDA Driver API, stream management; recorded
// H200 answers in docs/HARDWARE.md).

#include <thread>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

const CUstream kLegacy = reinterpret_cast<CUstream>(0x1);
const CUstream kPerThread = reinterpret_cast<CUstream>(0x2);

TEST_F(StreamTest, CreateChecksFlagsAndOutput) {
  start(Schedule::kEager);
  CUstream s = nullptr;
  EXPECT_EQ(cu().cuStreamCreate(&s, 0x4), CUDA_ERROR_INVALID_VALUE);  // recorded
  EXPECT_EQ(cu().cuStreamCreate(&s, 0x2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cu().cuStreamCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cu().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  unsigned flags = 99;
  EXPECT_EQ(cu().cuStreamGetFlags(s, &flags), CUDA_SUCCESS);
  EXPECT_EQ(flags, 1u);
  EXPECT_EQ(cu().cuStreamGetFlags(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuStreamDestroy_v2(s), CUDA_SUCCESS);
}

TEST_F(StreamTest, PriorityRangeAndClamping) {
  start(Schedule::kEager);
  int least = 99, greatest = 99;
  EXPECT_EQ(cu().cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, -5);
  EXPECT_EQ(cu().cuCtxGetStreamPriorityRange(nullptr, &greatest), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxGetStreamPriorityRange(&least, nullptr), CUDA_SUCCESS);
  for (auto [asked, got] : {std::pair{-100, -5}, {100, 0}, {-3, -3}, {0, 0}, {-5, -5}}) {
    CUstream s = nullptr;
    ASSERT_EQ(cu().cuStreamCreateWithPriority(&s, 0, asked), CUDA_SUCCESS) << asked;
    int p = 99;
    EXPECT_EQ(cu().cuStreamGetPriority(s, &p), CUDA_SUCCESS);
    EXPECT_EQ(p, got) << asked;
    cu().cuStreamDestroy_v2(s);
  }
}

TEST_F(StreamTest, PriorityRangeFromTheMachineFile) {
  control::reset(
      parse_machine("name: m\ndevices: [{name: d, memory: 1GiB, compute_capability: '9.0', "
                    "multiprocessors: 132}]\n"
                    "streams: {least_priority: 2, greatest_priority: -1}\n",
                    "m.yaml"));
  init_and_make_current(0);
  int least = 99, greatest = 99;
  EXPECT_EQ(cu().cuCtxGetStreamPriorityRange(&least, &greatest), CUDA_SUCCESS);
  EXPECT_EQ(least, 2);
  EXPECT_EQ(greatest, -1);
  CUstream s = nullptr;
  ASSERT_EQ(cu().cuStreamCreateWithPriority(&s, 0, 7), CUDA_SUCCESS);
  int p = 99;
  cu().cuStreamGetPriority(s, &p);
  EXPECT_EQ(p, 2);
}

TEST_F(StreamTest, NoCurrentContextIs201) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUstream s = nullptr;
  EXPECT_EQ(cu().cuStreamCreate(&s, 0), CUDA_ERROR_INVALID_CONTEXT);
  int least = 0;
  EXPECT_EQ(cu().cuCtxGetStreamPriorityRange(&least, nullptr), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext ctx = nullptr;
  EXPECT_EQ(cu().cuStreamGetCtx(nullptr, &ctx), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuStreamGetCtx(kLegacy, &ctx), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuStreamGetCtx(kPerThread, &ctx), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cu().cuStreamSynchronize(nullptr), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(StreamTest, BadHandlesAre400AndNeverDereferenced) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  ASSERT_EQ(cu().cuStreamDestroy_v2(s), CUDA_SUCCESS);
  const CUstream garbage = reinterpret_cast<CUstream>(0x12345678);
  for (CUstream bad : {s, garbage}) {
    int p = 0;
    unsigned f = 0;
    unsigned long long id = 0;
    CUcontext c = nullptr;
    EXPECT_EQ(cu().cuStreamGetPriority(bad, &p), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamGetFlags(bad, &f), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamGetId(bad, &id), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamGetCtx(bad, &c), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamQuery(bad), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamSynchronize(bad), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamDestroy_v2(bad), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuMemsetD8Async(alloc(16), 1, 16, bad), CUDA_ERROR_INVALID_HANDLE);
  }
}

TEST_F(StreamTest, SpecialHandles) {
  CUcontext ctx = start(Schedule::kEager);
  CUcontext got = nullptr;
  for (CUstream special : {static_cast<CUstream>(nullptr), kLegacy, kPerThread}) {
    EXPECT_EQ(cu().cuStreamGetCtx(special, &got), CUDA_SUCCESS);
    EXPECT_EQ(got, ctx);
    unsigned f = 99;
    EXPECT_EQ(cu().cuStreamGetFlags(special, &f), CUDA_SUCCESS);
    EXPECT_EQ(f, 0u);
    // [inferred] destroying a special handle is refused.
    EXPECT_EQ(cu().cuStreamDestroy_v2(special), CUDA_ERROR_INVALID_HANDLE);
    EXPECT_EQ(cu().cuStreamSynchronize(special), CUDA_SUCCESS);
    EXPECT_EQ(cu().cuStreamQuery(special), CUDA_SUCCESS);
  }
  unsigned long long null_id = 0, legacy_id = 0, pt_id = 0, other_thread_pt_id = 0;
  EXPECT_EQ(cu().cuStreamGetId(nullptr, &null_id), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamGetId(kLegacy, &legacy_id), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamGetId(kPerThread, &pt_id), CUDA_SUCCESS);
  EXPECT_EQ(null_id, legacy_id);  // 0 means the legacy stream in the plain entry points
  EXPECT_NE(pt_id, legacy_id);
  std::thread([&] {
    cu().cuCtxSetCurrent(ctx);
    EXPECT_EQ(cu().cuStreamGetId(kPerThread, &other_thread_pt_id), CUDA_SUCCESS);
  }).join();
  EXPECT_NE(other_thread_pt_id, pt_id);  // per thread
  EXPECT_NE(other_thread_pt_id, 0u);
}

TEST_F(StreamTest, IdsAreUniqueAndNeverReused) {
  start(Schedule::kEager);
  CUstream a = make_stream();
  unsigned long long id_a = 0, id_b = 0;
  cu().cuStreamGetId(a, &id_a);
  cu().cuStreamDestroy_v2(a);
  CUstream b = make_stream();
  cu().cuStreamGetId(b, &id_b);
  EXPECT_NE(id_a, id_b);
  EXPECT_EQ(cu().cuStreamGetId(b, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(StreamTest, ReleasedContextKillsItsStreams) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuStreamDestroy_v2(s), CUDA_ERROR_INVALID_HANDLE);
  // The released context is still current: work on it says so.
  EXPECT_EQ(cu().cuStreamSynchronize(nullptr), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  CUcontext again = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&again, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamQuery(s), CUDA_ERROR_INVALID_HANDLE);  // still dead
  EXPECT_EQ(cu().cuStreamSynchronize(nullptr), CUDA_SUCCESS);
}

TEST_F(StreamTest, DestroyedStreamStillRunsItsWork) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUdeviceptr d = alloc(64);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 7, 64, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamDestroy_v2(s), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(byte_at(d), 7);
}

}  // namespace
}  // namespace mockdev::testing
