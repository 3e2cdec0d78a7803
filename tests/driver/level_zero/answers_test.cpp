// Item: the driver's answers. Objects destroyed after their context (what Intel's driver
// allows); virtual-memory page sizes that depend on the size asked about; IPC handles of memory
// and of event pools, exported with the specification's codes.

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "ze_driver_test.h"

namespace accel::ze_driver_test {
namespace {

using ZeAnswers = ZeDriverTest;

bool all_zero(const char (&bytes)[ZE_MAX_IPC_HANDLE_SIZE]) {
  return std::all_of(std::begin(bytes), std::end(bytes), [](char c) { return c == 0; });
}

// zeContextDestroy frees the context; its lists, queues, fences, event pools and events are
// still the program's to destroy, once each (Intel's driver frees only the
// context; docs/HARDWARE.md, "Modules, kernels and the driver's answers").
TEST_F(ZeAnswers, ObjectsAreDestroyedAfterTheirContext) {
  ze_command_list_handle_t imm = immediate();
  ze_command_list_handle_t list = regular();
  ze_command_queue_handle_t q = queue();
  ze_fence_desc_t fdesc{ZE_STRUCTURE_TYPE_FENCE_DESC, nullptr, 0};
  ze_fence_handle_t fence = nullptr;
  ASSERT_EQ(zeFenceCreate(q, &fdesc, &fence), ZE_RESULT_SUCCESS);
  ze_event_pool_handle_t p = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_handle_t e = event(p, 0);
  ASSERT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);
  context_ = nullptr;  // TearDown has nothing left to destroy
  EXPECT_EQ(zeEventDestroy(e), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventPoolDestroy(p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceDestroy(fence), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueDestroy(q), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(imm), ZE_RESULT_SUCCESS);
}

// The page size grows with the size asked about (small pages for small sizes, as Intel's driver
// picks its heaps; docs/HARDWARE.md, same section); each is a power of two; a reservation and physical memory of one
// such page are accepted. A size of 0 is UNSUPPORTED_SIZE.
TEST_F(ZeAnswers, VirtualPageSizeDependsOnTheSize) {
  auto page_of = [&](std::size_t size) {
    std::size_t page = 0;
    EXPECT_EQ(zeVirtualMemQueryPageSize(context_, device_, size, &page), ZE_RESULT_SUCCESS);
    return page;
  };
  const std::size_t small = page_of(4096);
  const std::size_t large = page_of(std::size_t{1} << 30);
  EXPECT_LT(small, large);
  EXPECT_EQ(small & (small - 1), 0u) << small;
  EXPECT_EQ(large & (large - 1), 0u) << large;
  EXPECT_EQ(page_of(small), small);
  std::size_t page = 0;
  EXPECT_EQ(zeVirtualMemQueryPageSize(context_, device_, 0, &page),
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  EXPECT_EQ(zeVirtualMemQueryPageSize(context_, device_, 1, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeVirtualMemQueryPageSize(context_, nullptr, 1, &page),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  // A start hint a driver may ignore (the 1.4 validation layer refuses a null one).
  const void* hint = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);
  void* va = nullptr;
  ASSERT_EQ(zeVirtualMemReserve(context_, hint, small, &va), ZE_RESULT_SUCCESS);
  ze_physical_mem_desc_t desc{ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, nullptr, 0, small};
  ze_physical_mem_handle_t phys = nullptr;
  ASSERT_EQ(zePhysicalMemCreate(context_, device_, &desc, &phys), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeVirtualMemMap(context_, va, small, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeVirtualMemUnmap(context_, va, small), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zePhysicalMemDestroy(context_, phys), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeVirtualMemFree(context_, va, small), ZE_RESULT_SUCCESS);
}

// A device allocation exports an IPC handle; an event pool exports one only when made with
// ZE_EVENT_POOL_FLAG_IPC (docs/HARDWARE.md, "Interprocess handles and the entry points of newer
// loaders").
TEST_F(ZeAnswers, IpcHandlesOfMemoryAndOfEventPools) {
  void* d = device_alloc(4096);
  ze_ipc_mem_handle_t memory{};
  ASSERT_EQ(zeMemGetIpcHandle(context_, d, &memory), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(all_zero(memory.data));
  EXPECT_EQ(zeMemGetIpcHandle(context_, nullptr, &memory), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeMemGetIpcHandle(context_, d, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeMemGetIpcHandle(nullptr, d, &memory), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  ze_event_pool_handle_t plain = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_pool_handle_t shared = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_IPC);
  ze_ipc_event_pool_handle_t handle{};
  ASSERT_EQ(zeEventPoolGetIpcHandle(shared, &handle), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(all_zero(handle.data));
  EXPECT_EQ(zeEventPoolGetIpcHandle(plain, &handle),
            ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
  EXPECT_EQ(zeEventPoolGetIpcHandle(shared, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeEventPoolGetIpcHandle(nullptr, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// zeContextCreateEx (1.1) checks its device list: a count with no list is INVALID_SIZE; a
// context of the first device allocates on it.
TEST_F(ZeAnswers, ContextCreateExChecksItsDevices) {
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t made = nullptr;
  EXPECT_EQ(zeContextCreateEx(nullptr, &desc, 0, nullptr, &made),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeContextCreateEx(driver_, nullptr, 0, nullptr, &made),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeContextCreateEx(driver_, &desc, 1, nullptr, &made), ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(made, nullptr);
  ASSERT_EQ(zeContextCreateEx(driver_, &desc, 1, &device_, &made), ZE_RESULT_SUCCESS);
  ASSERT_NE(made, nullptr);
  ze_device_mem_alloc_desc_t alloc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocDevice(made, &alloc, 4096, 0, device_, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemFree(made, p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextDestroy(made), ZE_RESULT_SUCCESS);
}

}  // namespace
}  // namespace accel::ze_driver_test
