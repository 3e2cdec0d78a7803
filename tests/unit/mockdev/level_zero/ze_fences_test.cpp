// Fences and host synchronisation of the mock Level Zero driver (zeFence*,
// zeCommandQueueSynchronize): creation rules, the fence signalled when the work of the
// execution that carried it completes in virtual time, timeouts in virtual time, resets, a
// fence whose execution waits for an event nobody signals, and the fence's life with its queue.

#include <string>
#include <vector>

#include "mockdev/races.h"
#include "mockdev/streams.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

class FencesTest : public ZeObjectsTest {
 protected:
  ze_command_queue_handle_t queue(ze_device_handle_t device) {
    ze_command_queue_desc_t desc{
        ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
        ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_queue_handle_t q = nullptr;
    EXPECT_EQ(zeCommandQueueCreate(context_, device, &desc, &q), ZE_RESULT_SUCCESS);
    return q;
  }
  ze_command_list_handle_t regular(ze_device_handle_t device) {
    ze_command_list_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
    ze_command_list_handle_t list = nullptr;
    EXPECT_EQ(zeCommandListCreate(context_, device, &desc, &list), ZE_RESULT_SUCCESS);
    return list;
  }
  ze_fence_handle_t fence(ze_command_queue_handle_t q, ze_fence_flags_t flags = 0) {
    ze_fence_desc_t desc{ZE_STRUCTURE_TYPE_FENCE_DESC, nullptr, flags};
    ze_fence_handle_t f = nullptr;
    EXPECT_EQ(zeFenceCreate(q, &desc, &f), ZE_RESULT_SUCCESS);
    return f;
  }
};

// The adversarial schedule runs nothing until a host wait needs it.
class AdversarialFencesTest : public FencesTest {
 protected:
  mockdev::MachineSpec machine() override {
    mockdev::MachineSpec m = one_card_two_tiles();
    m.streams.schedule = mockdev::StreamSettings::Schedule::kAdversarial;
    return m;
  }
};

// A fence that no execution carries answers NOT_READY at once, even to an endless wait, and
// the clock stays (Intel's driver); a destroyed fence's handle is refused. (The create rules
// and the signalled state, which a real driver can be asked too, are the driver conformance
// suite's ZeFences.CreateRulesAndTheStatesBeforeAnyExecution.)
TEST_F(FencesTest, UnsubmittedFenceDoesNotWaitAndADestroyedOneIsRefused) {
  ze_command_queue_handle_t q = queue(card_);
  ze_fence_handle_t plain = fence(q);
  const std::uint64_t before = mockdev::streams::host_time_ns();
  EXPECT_EQ(zeFenceHostSynchronize(plain, 5000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeFenceHostSynchronize(plain, UINT64_MAX), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), before);

  ASSERT_EQ(zeFenceDestroy(plain), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceDestroy(plain), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeFenceQueryStatus(plain), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeFenceHostSynchronize(plain, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeFenceReset(plain), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// Nothing runs until the fence is waited for; the wait runs the execution's copies, and the
// bytes are there when it returns.
TEST_F(AdversarialFencesTest, FenceSignalsWhenTheExecutionsWorkCompletes) {
  ze_command_queue_handle_t q = queue(card_);
  ze_command_list_handle_t list = regular(card_);
  const std::size_t n = 4096;
  void* d = device_alloc(n, card_);
  std::vector<unsigned char> src(n), back(n, 0);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  ze_fence_handle_t f = fence(q);
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, f), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
  EXPECT_EQ(back[0], 0);  // nothing ran yet
  ASSERT_EQ(zeFenceHostSynchronize(f, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, src);
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 0u);

  // A fence of another queue, a destroyed fence.
  ze_command_queue_handle_t other = queue(card_);
  ze_fence_handle_t foreign = fence(other);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, foreign),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(zeFenceDestroy(foreign), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, foreign),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// A 1 MB host-to-device copy: 4 us launch latency + 40 us at 25 GB/s. A wait shorter than that
// expires and moves the host clock by exactly its timeout; a long enough one succeeds and
// moves the clock to the work's end. zeCommandQueueSynchronize follows the same rules.
TEST_F(FencesTest, TimeoutsRunInVirtualTime) {
  ze_command_queue_handle_t q = queue(card_);
  ze_command_list_handle_t list = regular(card_);
  const std::size_t n = 1000000;
  void* d = device_alloc(n, card_);
  std::vector<unsigned char> src(n, 5);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  ze_fence_handle_t f = fence(q);
  const std::uint64_t t0 = mockdev::streams::host_time_ns();
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, f), ZE_RESULT_SUCCESS);
  const std::uint64_t end = t0 + 4000 + 40000;
  EXPECT_EQ(zeFenceHostSynchronize(f, 10000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), t0 + 10000);
  EXPECT_EQ(zeCommandQueueSynchronize(q, 20000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), t0 + 30000);
  EXPECT_EQ(zeFenceHostSynchronize(f, end - (t0 + 30000) - 1), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), end - 1);
  EXPECT_EQ(zeFenceHostSynchronize(f, 1), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::streams::host_time_ns(), end);
  EXPECT_EQ(zeCommandQueueSynchronize(q, 0), ZE_RESULT_SUCCESS);

  // A second execution: the endless wait returns at the work's end.
  ASSERT_EQ(zeFenceReset(f), ZE_RESULT_SUCCESS);
  const std::uint64_t t1 = mockdev::streams::host_time_ns();
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, f), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandQueueSynchronize(q, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::streams::host_time_ns(), t1 + 44000);
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueSynchronize(nullptr, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// The execution's first command waits for a host-only event: its work is held, an endless wait
// on the fence is a reported deadlock (Intel's hang code), a timed one expires; the host
// signal releases the work and the fence.
TEST_F(FencesTest, ExecutionHeldBehindAnEventNobodySignals) {
  ze_command_queue_handle_t q = queue(card_);
  ze_command_list_handle_t list = regular(card_);
  ze_event_handle_t gate = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  std::vector<unsigned char> src(64, 9), back(64, 0);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), src.data(), 64, nullptr, 1, &gate),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  ze_fence_handle_t f = fence(q);
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, f), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceHostSynchronize(f, 0), ZE_RESULT_NOT_READY);
  const std::uint64_t before = mockdev::streams::host_time_ns();
  EXPECT_EQ(zeFenceHostSynchronize(f, 7000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), before + 7000);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(zeFenceHostSynchronize(f, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err,
            "mockdev: level zero: deadlock: zeFenceHostSynchronize waits forever for a fence "
            "whose execution waits for an event, which nothing will signal\n");
  EXPECT_EQ(back[0], 0);
  ASSERT_EQ(zeEventHostSignal(gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeFenceHostSynchronize(f, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, src);
}

// A reset makes the pending execution leave the fence alone: after the work ran the fence is
// still not signalled; the next execution signals it.
TEST_F(FencesTest, ResetDetachesThePendingExecution) {
  ze_command_queue_handle_t q = queue(card_);
  ze_command_list_handle_t list = regular(card_);
  ze_event_handle_t gate = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ASSERT_EQ(zeCommandListAppendBarrier(list, nullptr, 1, &gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  ze_fence_handle_t f = fence(q);
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, f), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeFenceReset(f), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSignal(gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandQueueSynchronize(q, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeFenceHostSynchronize(f, UINT64_MAX), ZE_RESULT_NOT_READY);
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(q, 1, &list, f), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceHostSynchronize(f, UINT64_MAX), ZE_RESULT_SUCCESS);
}

// A fence goes with its queue (and the queue with its context).
TEST_F(FencesTest, FenceDiesWithItsQueue) {
  ze_command_queue_handle_t q = queue(card_);
  ze_fence_handle_t f = fence(q, ZE_FENCE_FLAG_SIGNALED);
  ASSERT_EQ(zeCommandQueueDestroy(q), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceQueryStatus(f), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  ze_command_queue_handle_t q2 = queue(card_);
  ze_fence_handle_t f2 = fence(q2, ZE_FENCE_FLAG_SIGNALED);
  ASSERT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceQueryStatus(f2), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeFenceCreate(q2, nullptr, &f2), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

}  // namespace
}  // namespace ze_objects_test
