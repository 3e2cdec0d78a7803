// Events: flags, record snapshots, query, synchronize, destroy, elapsed time in virtual
// milliseconds, and cuStreamWaitEvent (CUDA Driver API, event management and cuStreamWaitEvent;
// H200 recording).

#include <cmath>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

CUevent make_event(unsigned flags = 0) {
  CUevent e = nullptr;
  EXPECT_EQ(cuda().cuEventCreate(&e, flags), CUDA_SUCCESS);
  return e;
}

TEST_F(StreamTest, EventCreateFlags) {
  start(Schedule::kEager);
  CUevent e = nullptr;
  EXPECT_EQ(cu().cuEventCreate(&e, 0x10), CUDA_ERROR_INVALID_VALUE);  // recorded
  EXPECT_EQ(cu().cuEventCreate(&e, CU_EVENT_INTERPROCESS), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(e, nullptr);
  EXPECT_EQ(cu().cuEventCreate(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(e), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuEventCreate(&e, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
}

TEST_F(StreamTest, EventWithoutContextIs201) {
  ASSERT_EQ(cu().cuInit(0), CUDA_SUCCESS);
  CUevent e = nullptr;
  EXPECT_EQ(cu().cuEventCreate(&e, 0), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(StreamTest, NeverRecordedEvent) {
  start(Schedule::kAdversarial);
  CUevent never = make_event();
  CUevent other = make_event();
  CUstream s = make_stream();
  float ms = -1;
  EXPECT_EQ(cu().cuEventQuery(never), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventSynchronize(never), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, never, other), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cu().cuEventRecord(other, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, other, never), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuStreamWaitEvent(s, never, 0), CUDA_SUCCESS);  // nothing to wait for
  EXPECT_EQ(pending(s), 0u);
  EXPECT_EQ(ms, -1);
}

TEST_F(StreamTest, BadEventArguments) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  CUevent e = make_event();
  const CUevent garbage = reinterpret_cast<CUevent>(0x5000);
  EXPECT_EQ(cu().cuEventRecord(nullptr, s), CUDA_ERROR_INVALID_HANDLE);  // recorded
  EXPECT_EQ(cu().cuEventRecord(garbage, s), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuEventQuery(garbage), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuEventSynchronize(nullptr), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuStreamWaitEvent(s, nullptr, 0), CUDA_ERROR_INVALID_HANDLE);  // recorded
  EXPECT_EQ(cu().cuStreamWaitEvent(s, e, 0x10), CUDA_ERROR_INVALID_VALUE);      // recorded
  // WAIT_EXTERNAL / RECORD_EXTERNAL outside capture (Recording 2); unknown flags.
  EXPECT_EQ(cu().cuStreamWaitEvent(s, e, CU_EVENT_WAIT_EXTERNAL), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cu().cuEventRecordWithFlags(e, s, CU_EVENT_RECORD_EXTERNAL), CUDA_ERROR_ILLEGAL_STATE);
  EXPECT_EQ(cu().cuEventRecordWithFlags(e, s, 0x4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuEventRecordWithFlags(e, s, 0), CUDA_SUCCESS);
  float ms = 0;
  EXPECT_EQ(cu().cuEventElapsedTime_v2(nullptr, e, e), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, e, e), CUDA_SUCCESS);
  EXPECT_EQ(ms, 0.0f);
}

TEST_F(StreamTest, EventAndStreamOfDifferentContextsAre400) {
  start(Schedule::kEager);
  CUevent e0 = make_event();
  CUcontext ctx1 = nullptr;
  ASSERT_EQ(cu().cuDevicePrimaryCtxRetain(&ctx1, 1), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuCtxSetCurrent(ctx1), CUDA_SUCCESS);
  CUstream s1 = make_stream();
  CUevent e1 = make_event();
  EXPECT_EQ(cu().cuEventRecord(e0, s1), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuEventRecord(e1, s1), CUDA_SUCCESS);
  // A wait may use an event of another device (CUDA Programming Guide, stream and event
  // behavior).
  EXPECT_EQ(cu().cuStreamWaitEvent(s1, e0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(e0, nullptr), CUDA_ERROR_INVALID_HANDLE);  // legacy of ctx1
}

TEST_F(StreamTest, ElapsedTimeAcrossDevicesIs400) {
  start(Schedule::kEager);
  CUevent e0 = make_event();
  ASSERT_EQ(cu().cuEventRecord(e0, nullptr), CUDA_SUCCESS);
  CUcontext ctx1 = nullptr;
  cu().cuDevicePrimaryCtxRetain(&ctx1, 1);
  cu().cuCtxSetCurrent(ctx1);
  CUevent e1 = make_event();
  ASSERT_EQ(cu().cuEventRecord(e1, nullptr), CUDA_SUCCESS);
  float ms = 0;
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, e0, e1), CUDA_ERROR_INVALID_HANDLE);  // [inferred]
}

TEST_F(StreamTest, PendingEventAndElapsedTime) {
  start(Schedule::kAdversarial);
  CUstream s = make_stream();
  CUevent start_ev = make_event(), stop = make_event(),
          untimed = make_event(CU_EVENT_DISABLE_TIMING);
  CUdeviceptr d = alloc(1 << 20);
  ASSERT_EQ(cu().cuEventRecord(start_ev, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuMemsetD8Async(d, 1, 1 << 20, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(stop, s), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuEventRecord(untimed, s), CUDA_SUCCESS);
  float ms = -1;
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, start_ev, stop), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cu().cuEventQuery(stop), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cu().cuStreamQuery(s), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cu().cuEventSynchronize(stop), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventQuery(stop), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventQuery(untimed), CUDA_ERROR_NOT_READY);  // after stop: not forced
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, start_ev, stop), CUDA_SUCCESS);
  // Timing model defaults: 2^20 bytes at 2000 GB/s = 524.288 ns -> 525 ns; the record after
  // it ends when the memset ends; the first record ends at launch latency.
  EXPECT_FLOAT_EQ(ms, 525e-6f);
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, stop, start_ev), CUDA_SUCCESS);
  EXPECT_FLOAT_EQ(ms, -525e-6f);  // reversed: negative (recorded)
  EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventElapsedTime_v2(&ms, start_ev, untimed), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(StreamTest, ElapsedTimeFollowsTheTimingModel) {
  MachineSpec m = load_machine("4xh100");
  m.streams.schedule = Schedule::kEager;
  m.streams.timing.htod_gb_per_s = 10;  // 1e6 bytes -> 100000 ns
  m.streams.timing.launch_latency_ns = 2000;
  control::reset(m);
  init_and_make_current(0);
  CUstream s = make_stream();
  CUevent a = make_event(), b = make_event();
  CUdeviceptr d = alloc(1000000);
  std::vector<unsigned char> host(1000000, 3);
  cu().cuEventRecord(a, s);
  ASSERT_EQ(cu().cuMemcpyHtoDAsync_v2(d, host.data(), host.size(), s), CUDA_SUCCESS);
  cu().cuEventRecord(b, s);
  float ms = 0;
  ASSERT_EQ(cu().cuEventElapsedTime_v2(&ms, a, b), CUDA_SUCCESS);
  EXPECT_FLOAT_EQ(ms, 0.1f);
}

// Spec section 2.2: a wait holds the snapshot it saw; re-recording and destroying the event
// do not change it (recorded: destroying an event waited on never cancels the wait).
TEST_F(StreamTest, WaitHoldsTheSnapshot) {
  start(Schedule::kAdversarial);
  CUstream producer = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream consumer = make_stream(CU_STREAM_NON_BLOCKING);
  CUstream later = make_stream(CU_STREAM_NON_BLOCKING);
  CUevent e = make_event(CU_EVENT_DISABLE_TIMING);
  CUdeviceptr d = alloc(64);
  cu().cuMemsetD8Async(d, 1, 1, producer);
  ASSERT_EQ(cu().cuEventRecord(e, producer), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamWaitEvent(consumer, e, 0), CUDA_SUCCESS);
  cu().cuMemsetD8Async(d + 1, 1, 1, later);
  ASSERT_EQ(cu().cuEventRecord(e, later), CUDA_SUCCESS);  // re-record: the wait keeps the old
  ASSERT_EQ(cu().cuEventDestroy_v2(e), CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(consumer), CUDA_SUCCESS);
  EXPECT_EQ(pending(producer), 0u);
  EXPECT_EQ(pending(later), 2u);
  EXPECT_EQ(byte_at(d), 1);
}

TEST_F(StreamTest, StreamWaitingOnItsOwnEventIsSatisfied) {
  start(Schedule::kEager);
  CUstream s = make_stream();
  CUevent e = make_event();
  ASSERT_EQ(cu().cuEventRecord(e, s), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamWaitEvent(s, e, 0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuStreamSynchronize(s), CUDA_SUCCESS);
}

TEST_F(StreamTest, ReleasedContextKillsItsEvents) {
  start(Schedule::kEager);
  CUevent e = make_event();
  ASSERT_EQ(cu().cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
  EXPECT_EQ(cu().cuEventQuery(e), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cu().cuEventDestroy_v2(e), CUDA_ERROR_INVALID_HANDLE);
}

}  // namespace
}  // namespace mockdev::testing
