// Ordering of the mock Level Zero driver's lists (the Level Zero specification's ordering
// rules and the mock's "spec mode"), read from kernel timestamps (50 ns per tick on the fixture's
// machine): a plain list starts its commands together ("spec mode"), an IN_ORDER one runs each
// after the previous; a synchronous list waiting for an event nobody signals reports a deadlock; a
// destroyed context takes its objects along.

#include <string>
#include <vector>

#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

using OrderingTest = ZeObjectsTest;

// Two 1 MB host-to-device copies (40 us each at the default 25 GB/s) and the timestamps of
// their signal events, in ticks.
struct TwoCopies {
  ze_kernel_timestamp_result_t first{}, second{};
};

TwoCopies two_copies(ze_command_list_handle_t list, ze_event_handle_t e1, ze_event_handle_t e2,
                     void* d1, void* d2) {
  std::vector<unsigned char> src(1000000, 9);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, d1, src.data(), src.size(), e1, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, d2, src.data(), src.size(), e2, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(e2, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(e1, UINT64_MAX), ZE_RESULT_SUCCESS);
  TwoCopies r;
  EXPECT_EQ(zeEventQueryKernelTimestamp(e1, &r.first), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryKernelTimestamp(e2, &r.second), ZE_RESULT_SUCCESS);
  return r;
}

TEST_F(OrderingTest, PlainListCommandsMayOverlap) {
  ze_event_pool_handle_t p =
      pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  void* d1 = device_alloc(1000000, card_);
  void* d2 = device_alloc(1000000, card_);
  const TwoCopies r = two_copies(immediate(card_), event(p, 0), event(p, 1), d1, d2);
  EXPECT_EQ(r.first.global.kernelStart, 80u);  // 4000 ns launch latency
  EXPECT_EQ(r.first.global.kernelEnd, 880u);
  EXPECT_EQ(r.second.global.kernelStart, 80u);  // started with the first
  EXPECT_EQ(r.second.global.kernelEnd, 880u);
}

TEST_F(OrderingTest, InOrderListRunsEachCommandAfterThePrevious) {
  ze_event_pool_handle_t p =
      pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  void* d1 = device_alloc(1000000, card_);
  void* d2 = device_alloc(1000000, card_);
  const TwoCopies r =
      two_copies(immediate(card_, 0x2), event(p, 0), event(p, 1), d1, d2);
  EXPECT_EQ(r.first.global.kernelEnd, 880u);
  EXPECT_EQ(r.second.global.kernelStart, 880u);  // after the first ended
  EXPECT_EQ(r.second.global.kernelEnd, 1680u);
}

// A barrier with wait events waits only for them, yet blocks what follows
// (zeCommandListAppendBarrier).
TEST_F(OrderingTest, BarrierWithWaitEventsBlocksLaterCommands) {
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t gate = event(p, 0);
  ze_event_handle_t done = event(p, 1);
  ze_command_list_handle_t list = immediate(card_);
  ASSERT_EQ(zeCommandListAppendBarrier(list, nullptr, 1, &gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  ASSERT_EQ(zeEventHostSignal(gate), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
}

// A command waiting for another list's signal starts once that command is appended.
TEST_F(OrderingTest, WaitOnEventsAcrossLists) {
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t produced = event(p, 0);
  ze_event_handle_t consumed = event(p, 1);
  ze_command_list_handle_t producer = immediate(card_);
  ze_command_list_handle_t consumer = immediate(tiles_[1]);
  void* d = device_alloc(4096, card_);
  std::vector<unsigned char> back(4096, 0);
  ASSERT_EQ(zeCommandListAppendWaitOnEvents(consumer, 1, &produced), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(consumer, back.data(), d, 4096, consumed, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(consumed), ZE_RESULT_NOT_READY);
  const unsigned char value = 0x77;
  ASSERT_EQ(zeCommandListAppendMemoryFill(producer, d, &value, 1, 4096, produced, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(consumed, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back[0], 0x77);
  EXPECT_EQ(back[4095], 0x77);
  EXPECT_EQ(zeCommandListAppendWaitOnEvents(consumer, 1, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

// A synchronous append completes before it returns, so one that waits for an event
// nothing will signal is a reported deadlock, never a hang.
TEST_F(OrderingTest, SynchronousAppendOnAnUnsignalledEventIsADeadlock) {
  ze_event_handle_t gate = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(zeCommandListAppendBarrier(list, nullptr, 1, &gate), ZE_RESULT_ERROR_DEVICE_LOST);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("mockdev: level zero: deadlock: zeCommandListAppendBarrier on a "
                     "synchronous list waits for an event that nothing will signal"),
            std::string::npos)
      << err;
}

// Destroying a context destroys what was made in it; only the destroys Intel's driver allows
// afterwards succeed, once (Note [Objects after their context]).
TEST_F(OrderingTest, ContextDestroyTakesItsObjects) {
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t e = event(p, 0);
  ze_command_list_handle_t list = immediate(card_);
  ASSERT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeCommandListAppendBarrier(list, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventPoolDestroy(p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventPoolDestroy(p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// Events of another context are refused.
TEST_F(OrderingTest, EventsOfAnotherContextAreRefused) {
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t other = nullptr;
  ASSERT_EQ(zeContextCreate(driver_, &desc, &other), ZE_RESULT_SUCCESS);
  ze_event_pool_desc_t pdesc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                             ZE_EVENT_POOL_FLAG_HOST_VISIBLE, 1};
  ze_event_pool_handle_t foreign_pool = nullptr;
  ASSERT_EQ(zeEventPoolCreate(other, &pdesc, 0, nullptr, &foreign_pool), ZE_RESULT_SUCCESS);
  ze_event_handle_t foreign = event(foreign_pool, 0);
  ze_command_list_handle_t list = immediate(card_);
  EXPECT_EQ(zeCommandListAppendSignalEvent(list, foreign), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeCommandListAppendBarrier(list, nullptr, 1, &foreign), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// A closed regular list takes no appends until it is reset.
TEST_F(OrderingTest, RegularListCloseAndReset) {
  ze_command_list_desc_t ldesc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
  ze_command_list_handle_t list = nullptr;
  ASSERT_EQ(zeCommandListCreate(context_, card_, &ldesc, &list), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendBarrier(list, nullptr, 0, nullptr), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(zeCommandListReset(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendBarrier(list, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ldesc.flags = 0x10;
  ze_command_list_handle_t bad = nullptr;
  EXPECT_EQ(zeCommandListCreate(context_, card_, &ldesc, &bad), ZE_RESULT_ERROR_INVALID_ENUMERATION);
  ldesc.flags = 0;
  ldesc.commandQueueGroupOrdinal = 2;
  EXPECT_EQ(zeCommandListCreate(context_, card_, &ldesc, &bad), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace ze_objects_test
