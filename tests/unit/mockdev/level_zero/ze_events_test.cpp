// Event pools and events of the mock Level Zero driver (zeEventPool*, zeEvent*):
// creation rules, host signal releasing waiting commands, waits in virtual time, deadlocks
// reported instead of hung, kernel timestamps with a wrap, the
// event reuse report, global timestamps.

#include <string>
#include <vector>

#include "mockdev/streams.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

using EventsTest = ZeObjectsTest;

TEST_F(EventsTest, PoolAndEventCreationRules) {
  ze_event_pool_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, 0, 0};
  ze_event_pool_handle_t p = nullptr;
  EXPECT_EQ(zeEventPoolCreate(context_, &desc, 0, nullptr, &p), ZE_RESULT_ERROR_INVALID_SIZE);
  desc.count = 2;
  desc.flags = 0x10;
  EXPECT_EQ(zeEventPoolCreate(context_, &desc, 0, nullptr, &p), ZE_RESULT_ERROR_INVALID_ENUMERATION);
  desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
  EXPECT_EQ(zeEventPoolCreate(context_, &desc, 1, nullptr, &p), ZE_RESULT_ERROR_INVALID_SIZE);
  ASSERT_EQ(zeEventPoolCreate(context_, &desc, 1, &card_, &p), ZE_RESULT_SUCCESS);
  ze_event_desc_t edesc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, 2, 0, 0};
  ze_event_handle_t e = nullptr;
  EXPECT_EQ(zeEventCreate(p, &edesc, &e), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // index >= count
  edesc.index = 1;
  ASSERT_EQ(zeEventCreate(p, &edesc, &e), ZE_RESULT_SUCCESS);
  ze_event_handle_t again = nullptr;
  EXPECT_EQ(zeEventCreate(p, &edesc, &again), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // slot taken
  ASSERT_EQ(zeEventDestroy(e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  ASSERT_EQ(zeEventCreate(p, &edesc, &again), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventPoolDestroy(p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(again), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);  // went with it
}

// Two states; signal and reset from the host.
TEST_F(EventsTest, HostSignalQueryReset) {
  ze_event_handle_t e = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeEventHostSignal(e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSignal(e), ZE_RESULT_SUCCESS);  // no-op
  EXPECT_EQ(zeEventHostSynchronize(e, 0), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostReset(e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
}

// A command waiting for an event nobody signalled waits (and everything after it on its
// list); a timed host wait expires in virtual time, moving the host clock by exactly the
// timeout; an endless one is a reported deadlock; the host signal releases the work.
TEST_F(EventsTest, HostSignalReleasesWaitingCommandsAndTimeoutsAreVirtual) {
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t gate = event(p, 0);
  ze_event_handle_t done = event(p, 1);
  ze_command_list_handle_t list = immediate(card_);
  void* d = device_alloc(4096, card_);
  std::vector<unsigned char> src(4096, 0x33), back(4096, 0);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), 4096, nullptr, 1, &gate),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, 4096, done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  const std::uint64_t before = mockdev::streams::host_time_ns();
  EXPECT_EQ(zeEventHostSynchronize(done, 50000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), before + 50000);
  EXPECT_EQ(zeEventHostSynchronize(done, 0), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), before + 50000);  // a query never moves it
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_ERROR_DEVICE_LOST);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("mockdev: level zero: deadlock: zeEventHostSynchronize waits forever for "
                     "event 1 of its pool"),
            std::string::npos)
      << err;
  EXPECT_EQ(back[0], 0);
  ASSERT_EQ(zeEventHostSignal(gate), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, src);
}

// A wait shorter than the work's remaining virtual time expires; a long
// enough one succeeds and moves the clock to the work's end.
TEST_F(EventsTest, TimedWaitOnLongCopy) {
  ze_event_handle_t done = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ze_command_list_handle_t list = immediate(card_);
  const std::size_t n = 1000000;  // 40 us at the default 25 GB/s
  void* d = device_alloc(n, card_);
  std::vector<unsigned char> src(n, 1);
  const std::uint64_t t0 = mockdev::streams::host_time_ns();
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), n, done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  const std::uint64_t end = t0 + 4000 + 40000;  // launch latency + transfer
  EXPECT_EQ(zeEventHostSynchronize(done, 10000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(mockdev::streams::host_time_ns(), t0 + 10000);
  EXPECT_EQ(zeEventHostSynchronize(done, end - (t0 + 10000)), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::streams::host_time_ns(), end);
}

// The signalling command's start and end in device ticks (50 ns each on this
// machine), kernelTimestampValidBits (32) wide, from a start tick just below the wrap.
class WrappingClockTest : public ZeObjectsTest {
 protected:
  mockdev::MachineSpec machine() override {
    mockdev::MachineSpec m = one_card_two_tiles();
    m.devices[0].level_zero.timestamp_start_ticks = (std::uint64_t{1} << 32) - 100;
    return m;
  }
};

TEST_F(WrappingClockTest, KernelTimestampsWrapAndGiveTheElapsedTicks) {
  ze_event_handle_t e =
      event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP), 0);
  ze_kernel_timestamp_result_t r{};
  r.global.kernelStart = 42;
  EXPECT_EQ(zeEventQueryKernelTimestamp(e, &r), ZE_RESULT_NOT_READY);
  EXPECT_EQ(r.global.kernelStart, 42u);  // untouched
  ze_command_list_handle_t list = immediate(card_);
  void* d = device_alloc(1000000, card_);
  std::vector<unsigned char> src(1000000, 1);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), src.size(), e, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(e, UINT64_MAX), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventQueryKernelTimestamp(e, &r), ZE_RESULT_SUCCESS);
  // Start at 4000 ns (launch latency) = tick 80; end at 44000 ns = tick 880.
  const std::uint64_t mask = (std::uint64_t{1} << 32) - 1;
  EXPECT_EQ(r.global.kernelStart, ((std::uint64_t{1} << 32) - 100 + 80) & mask);
  EXPECT_EQ(r.global.kernelEnd, ((std::uint64_t{1} << 32) - 100 + 880) & mask);
  EXPECT_LT(r.global.kernelEnd, r.global.kernelStart);  // wrapped
  const std::uint64_t elapsed = (mask - r.global.kernelStart) + r.global.kernelEnd + 1;
  EXPECT_EQ(elapsed, 800u);
  EXPECT_EQ(r.context.kernelStart, r.global.kernelStart);
  EXPECT_EQ(r.context.kernelEnd, r.global.kernelEnd);
}

// The device's global ticks (timestampValidBits = 36) when the command ran.
TEST_F(WrappingClockTest, WriteGlobalTimestampIntoHostMemory) {
  ze_command_list_handle_t list = immediate(card_);
  auto* slot = static_cast<std::uint64_t*>(host_alloc(16));
  *slot = 0;
  ze_event_handle_t e = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ASSERT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, slot, e, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(e, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(*slot, (std::uint64_t{1} << 32) - 100 + 80);  // 36 bits: no wrap at 2^32
  EXPECT_EQ(zeCommandListAppendWriteGlobalTimestamp(
                list, reinterpret_cast<std::uint64_t*>(reinterpret_cast<char*>(slot) + 4), nullptr,
                0, nullptr),
            ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
}

// Signalling an event that is still signalled, without a reset, is reported.
TEST_F(EventsTest, ReuseWithoutResetIsReported) {
  ze_event_handle_t e = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 3);
  ze_command_list_handle_t list = immediate(card_);
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, e), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(e, UINT64_MAX), ZE_RESULT_SUCCESS);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, e), ZE_RESULT_SUCCESS);
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("mockdev: level zero: E-6: a command signals event 3 of its pool, which is "
                     "still signalled"),
            std::string::npos)
      << err;
  // Reset on the device, then signal again: nothing reported.
  ASSERT_EQ(zeCommandListAppendEventReset(list, e), ZE_RESULT_SUCCESS);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, e), ZE_RESULT_SUCCESS);
  err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_SUCCESS);
}

}  // namespace
}  // namespace ze_objects_test
