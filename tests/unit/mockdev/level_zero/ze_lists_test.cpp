// Command lists and queues of the mock Level Zero driver (zeCommandListCreate*, zeCommandQueue*):
// creation rules, copies and fills that move real bytes, fill pattern rules, the race detector on
// two lists, regular lists on a command queue.

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mockdev/races.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

using ListsTest = ZeObjectsTest;

// ze_command_queue_desc_t: ordinal = a queue group (two: compute+copy, copy), index < numQueues (4
// compute by default), flags/mode/priority within their enums; IN_ORDER (0x2, 1.7) is accepted.
TEST_F(ListsTest, ImmediateListDescriptorRules) {
  ze_command_queue_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 2, 0, 0,
                               ZE_COMMAND_QUEUE_MODE_DEFAULT, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t list = nullptr;
  EXPECT_EQ(zeCommandListCreateImmediate(context_, card_, &desc, &list),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  desc.ordinal = 0;
  desc.index = 4;
  EXPECT_EQ(zeCommandListCreateImmediate(context_, card_, &desc, &list),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  desc.index = 3;
  desc.mode = static_cast<ze_command_queue_mode_t>(3);
  EXPECT_EQ(zeCommandListCreateImmediate(context_, card_, &desc, &list),
            ZE_RESULT_ERROR_INVALID_ENUMERATION);
  desc.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
  desc.flags = 0x8;
  EXPECT_EQ(zeCommandListCreateImmediate(context_, card_, &desc, &list),
            ZE_RESULT_ERROR_INVALID_ENUMERATION);
  desc.flags = 0x2;  // IN_ORDER
  ASSERT_EQ(zeCommandListCreateImmediate(context_, card_, &desc, &list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// Host, device and plain host pointers in any mix; the bytes really move.
TEST_F(ListsTest, CopiesMoveBytesThroughDeviceMemory) {
  ze_command_list_handle_t list = immediate(tiles_[0], 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  const std::size_t n = 100000;
  std::vector<unsigned char> plain(n), back(n, 0);
  for (std::size_t i = 0; i < n; ++i) plain[i] = static_cast<unsigned char>(i * 31 + 1);
  void* d1 = device_alloc(n, tiles_[0]);
  void* d2 = device_alloc(n, tiles_[1]);
  auto* h = static_cast<unsigned char*>(host_alloc(n));
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d1, plain.data(), n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d2, d1, n, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, h, d2, n, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), h, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, plain);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, nullptr, h, n, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  // Past the end of the allocation: not memory of the context.
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, d1, plain.data(), n + 1, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_event_handle_t* no_waits = nullptr;
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, d1, h, n, nullptr, 1, no_waits),
            ZE_RESULT_ERROR_INVALID_SIZE);
}

// Any power-of-two pattern on the compute group; the copy group's limit (1 byte by
// default); 0, 3 or oversize -> INVALID_SIZE.
TEST_F(ListsTest, FillPatternsAndTheirLimits) {
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  const std::size_t n = 64;
  void* d = device_alloc(n, card_);
  std::vector<unsigned char> back(n, 0);
  const std::uint64_t pattern8 = 0x0102030405060708ull;
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, d, &pattern8, 8, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  for (std::size_t i = 0; i < n; i += 8) {
    EXPECT_EQ(std::memcmp(back.data() + i, &pattern8, 8), 0) << "offset " << i;
  }
  const std::uint32_t pattern4 = 0xdeadbeef;
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, d, &pattern4, 4, 16, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(std::memcmp(back.data() + 12, &pattern4, 4), 0);
  EXPECT_EQ(std::memcmp(back.data() + 16, &pattern8, 8), 0);
  // Host memory is filled too.
  auto* h = static_cast<unsigned char*>(host_alloc(n));
  const unsigned char byte = 0x5a;
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, h, &byte, 1, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(h[0], 0x5a);
  EXPECT_EQ(h[n - 1], 0x5a);

  EXPECT_EQ(zeCommandListAppendMemoryFill(list, d, &pattern8, 0, n, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeCommandListAppendMemoryFill(list, d, &pattern8, 3, n, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  ze_command_list_handle_t copy = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS, 1);
  EXPECT_EQ(zeCommandListAppendMemoryFill(copy, d, &pattern4, 2, n, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeCommandListAppendMemoryFill(copy, d, &byte, 1, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
}

// Two lists writing the same bytes with no event between them race; an event
// between them orders them.
TEST_F(ListsTest, TwoListsWithoutAnEventRace) {
  void* d = device_alloc(4096, card_);
  ze_command_list_handle_t a = immediate(card_);
  ze_command_list_handle_t b = immediate(card_);
  const unsigned char one = 1;
  const unsigned char two = 2;
  mockdev::control::clear_races();
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t e = event(p, 0);
  ASSERT_EQ(zeCommandListAppendMemoryFill(a, d, &one, 1, 4096, e, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryFill(b, d, &two, 1, 4096, nullptr, 1, &e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 0u);
  ASSERT_EQ(zeCommandListAppendMemoryFill(a, d, &one, 1, 4096, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 1u);
}

// An immediate list the runtime named through its tool interface (Note [Runtime names] in
// mockdev/src/core/runtime_tool.h; libmockdev.so exports accel_tool_name_queue) is reported by
// its handle, the runtime's name and its label; a regular list has no queue of its own, so
// naming it changes nothing.
TEST_F(ListsTest, ARaceNamesAnImmediateListByTheRuntimesName) {
  using NameQueue = void (*)(const char*, const void*, const char*);
  const auto name_queue =
      reinterpret_cast<NameQueue>(dlsym(RTLD_DEFAULT, "accel_tool_name_queue"));
  ASSERT_NE(name_queue, nullptr) << "libmockdev.so exports accel_tool_name_queue";
  void* d = device_alloc(4096, card_);
  ze_command_list_handle_t a = immediate(card_);
  ze_command_list_handle_t b = immediate(card_);
  ze_command_list_desc_t regular_desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
  ze_command_list_handle_t regular = nullptr;
  ASSERT_EQ(zeCommandListCreate(context_, card_, &regular_desc, &regular), ZE_RESULT_SUCCESS);
  name_queue("xpu:0", a, "xpu:0 stream id=1 (priority 0)");
  name_queue("xpu:0", regular, "xpu:0 stream id=2 (priority 0)");
  const unsigned char one = 1;
  mockdev::control::clear_races();
  ASSERT_EQ(zeCommandListAppendMemoryFill(a, d, &one, 1, 4096, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryFill(b, d, &one, 1, 4096, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  const std::vector<mockdev::control::Race> races = mockdev::control::races();
  ASSERT_EQ(races.size(), 1u);
  char handle[64];
  std::snprintf(handle, sizeof handle, "ze_command_list_handle_t %p", static_cast<void*>(a));
  EXPECT_EQ(races[0].first.handle, handle);
  EXPECT_EQ(races[0].first.runtime_name, "xpu:0 stream id=1 (priority 0)");
  EXPECT_EQ(races[0].second.runtime_name, "");
  EXPECT_NE(races[0].text.find(std::string(handle) + " = \"xpu:0 stream id=1 (priority 0)\" (queue \"" +
                               races[0].first.queue + "\")"),
            std::string::npos)
      << races[0].text;
  EXPECT_EQ(zeCommandListDestroy(regular), ZE_RESULT_SUCCESS);
}

// Both operations of a Level Zero race carry the program's call site, though the calls come
// through the loader's dispatch (Note [Call sites of operations]): each names the test's
// line that enqueued it, the earlier one included.
TEST_F(ListsTest, BothSidesOfARaceNameTheProgramsCall) {
  if (std::system("addr2line --version >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "addr2line (binutils) is not on PATH: call sites cannot be file:line";
  }
  void* d = device_alloc(4096, card_);
  ze_command_list_handle_t a = immediate(card_);
  ze_command_list_handle_t b = immediate(card_);
  const unsigned char one = 1;
  mockdev::control::clear_races();
  const int first_line = __LINE__ + 1;
  ASSERT_EQ(zeCommandListAppendMemoryFill(a, d, &one, 1, 4096, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  const int second_line = __LINE__ + 1;
  ASSERT_EQ(zeCommandListAppendMemoryFill(b, d, &one, 1, 4096, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  const std::vector<mockdev::control::Race> races = mockdev::control::races();
  ASSERT_EQ(races.size(), 1u);
  // "<path>/ze_lists_test.cpp:<line> <namespaces>::ListsTest_..._Test::TestBody()"
  const std::string test = "ListsTest_BothSidesOfARaceNameTheProgramsCall_Test::TestBody()";
  for (const auto& [site, line] : {std::pair{races[0].first.call_site, first_line},
                                   std::pair{races[0].second.call_site, second_line}}) {
    EXPECT_NE(site.find("/ze_lists_test.cpp:" + std::to_string(line) + " "), std::string::npos)
        << site;
    EXPECT_TRUE(site.ends_with(test)) << site;
  }
}

// The adversarial schedule runs nothing until a host wait needs it, so only the
// dependencies the driver gave an operation make earlier work run before it.
class AdversarialListsTest : public ZeObjectsTest {
 protected:
  mockdev::MachineSpec machine() override {
    mockdev::MachineSpec m = one_card_two_tiles();
    m.streams.schedule = mockdev::StreamSettings::Schedule::kAdversarial;
    return m;
  }
};

// A barrier without wait events orders everything before it on its list
// (zeCommandListAppendBarrier): waiting for the barrier's event runs the fill and the copy before
// it.
TEST_F(AdversarialListsTest, BarrierOrdersEarlierCommandsAndSignals) {
  ze_command_list_handle_t list = immediate(card_);
  void* d = device_alloc(4096, card_);
  std::vector<unsigned char> back(4096, 0);
  const unsigned char seven = 7;
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t done = event(p, 0);
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, d, &seven, 1, 4096, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, 4096, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, done, 0, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);  // nothing ran yet
  EXPECT_EQ(back[0], 0);
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back[0], 7);
  EXPECT_EQ(back[4095], 7);
  EXPECT_EQ(mockdev::control::race_count(), 0u);
}

// Not just the previous command: every command since the last fence.
TEST_F(AdversarialListsTest, BarrierWaitsForEveryEarlierCommand) {
  ze_command_list_handle_t list = immediate(card_);
  auto* first = static_cast<unsigned char*>(host_alloc(64));
  auto* second = static_cast<unsigned char*>(host_alloc(64));
  first[0] = second[0] = 0;
  const unsigned char one = 1;
  const unsigned char two = 2;
  ze_event_handle_t done = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, first, &one, 1, 64, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, second, &two, 1, 64, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, done, 0, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(first[0], 0);  // nothing ran yet
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(first[63], 1);
  EXPECT_EQ(second[63], 2);
}

// Signal, device reset, signal again on an IN_ORDER list is legal reuse (nothing
// reported), and when the work finally runs the later signal survives the reset.
TEST_F(AdversarialListsTest, DeviceResetBetweenSignalsKeepsTheLaterSignal) {
  ze_event_handle_t e = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ze_command_list_handle_t list = immediate(card_, 0x2);
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, e), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendEventReset(list, e), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendSignalEvent(list, e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_NOT_READY);
  ASSERT_EQ(zeEventHostSynchronize(e, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(e), ZE_RESULT_SUCCESS);
}

// A command waiting for another list's event runs that list's signalling command first.
TEST_F(AdversarialListsTest, WaitEventPullsTheSignallingCommand) {
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t produced = event(p, 0);
  ze_event_handle_t consumed = event(p, 1);
  ze_command_list_handle_t producer = immediate(card_);
  ze_command_list_handle_t consumer = immediate(card_);
  void* d = device_alloc(4096, card_);
  std::vector<unsigned char> back(4096, 0);
  const unsigned char value = 0x42;
  ASSERT_EQ(zeCommandListAppendMemoryFill(producer, d, &value, 1, 4096, produced, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(consumer, back.data(), d, 4096, consumed, 1, &produced),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventHostSynchronize(consumed, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back[4095], 0x42);
  EXPECT_EQ(mockdev::control::race_count(), 0u);
}

// Regular lists recorded, closed, executed on a queue of their group.
TEST_F(ListsTest, RegularListsOnACommandQueue) {
  ze_command_list_desc_t ldesc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 0, 0};
  ze_command_list_handle_t list = nullptr;
  ASSERT_EQ(zeCommandListCreate(context_, card_, &ldesc, &list), ZE_RESULT_SUCCESS);
  void* d = device_alloc(256, card_);
  std::vector<unsigned char> src(256), back(256, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(255 - i);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), 256, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, 256, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(back[0], 0);  // nothing ran yet
  ze_command_queue_desc_t qdesc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0,
                                ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_queue_handle_t queue = nullptr;
  ASSERT_EQ(zeCommandQueueCreate(context_, card_, &qdesc, &queue), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(queue, 1, &list, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);  // not closed
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(queue, 0, &list, nullptr), ZE_RESULT_ERROR_INVALID_SIZE);
  ze_command_list_desc_t copy_desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, 1, 0};
  ze_command_list_handle_t copy_list = nullptr;
  ASSERT_EQ(zeCommandListCreate(context_, card_, &copy_desc, &copy_list), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListClose(copy_list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueExecuteCommandLists(queue, 1, &copy_list, nullptr),
            ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  ASSERT_EQ(zeCommandQueueExecuteCommandLists(queue, 1, &list, nullptr), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandQueueSynchronize(queue, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, src);
  EXPECT_EQ(zeCommandQueueDestroy(queue), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueSynchronize(queue, 0), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

}  // namespace
}  // namespace ze_objects_test
