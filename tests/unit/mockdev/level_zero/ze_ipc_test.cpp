// Interprocess handles and zeContextCreateEx through the real loader (Note [Level Zero IPC
// handles] in mockdev/src/level_zero/ze_ipc.h): exporting follows the specification; no handle
// can be opened, since each process has its own simulated machine.

#include <cstring>

#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

using IpcTest = ZeObjectsTest;

bool all_zero(const char* data, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) {
    if (data[i] != 0) return false;
  }
  return true;
}

TEST_F(IpcTest, MemoryHandlesExportDeviceAllocationBasesOnly) {
  void* device = device_alloc(1 << 20, tiles_[0]);
  void* host = host_alloc(4096);
  ze_ipc_mem_handle_t handle{};
  EXPECT_EQ(zeMemGetIpcHandle(nullptr, device, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeMemGetIpcHandle(context_, nullptr, &handle), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeMemGetIpcHandle(context_, device, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  // Not the base of a device allocation of this context.
  EXPECT_EQ(zeMemGetIpcHandle(context_, static_cast<char*>(device) + 256, &handle),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeMemGetIpcHandle(context_, host, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  int on_the_stack = 0;
  EXPECT_EQ(zeMemGetIpcHandle(context_, &on_the_stack, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t other = nullptr;
  ASSERT_EQ(zeContextCreate(driver_, &desc, &other), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemGetIpcHandle(other, device, &handle), ZE_RESULT_ERROR_INVALID_ARGUMENT);

  ASSERT_EQ(zeMemGetIpcHandle(context_, device, &handle), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(all_zero(handle.data, sizeof handle.data));
  ze_ipc_mem_handle_t again{};
  ASSERT_EQ(zeMemGetIpcHandle(context_, device, &again), ZE_RESULT_SUCCESS);
  EXPECT_EQ(std::memcmp(handle.data, again.data, sizeof handle.data), 0);  // names the allocation
  void* second = device_alloc(1 << 20, tiles_[1]);
  ASSERT_EQ(zeMemGetIpcHandle(context_, second, &again), ZE_RESULT_SUCCESS);
  EXPECT_NE(std::memcmp(handle.data, again.data, sizeof handle.data), 0);
}

TEST_F(IpcTest, MemoryHandlesCannotBeOpenedInTheSimulation) {
  void* device = device_alloc(1 << 20, tiles_[0]);
  ze_ipc_mem_handle_t handle{};
  ASSERT_EQ(zeMemGetIpcHandle(context_, device, &handle), ZE_RESULT_SUCCESS);
  void* opened = reinterpret_cast<void*>(0x1234);
  EXPECT_EQ(zeMemOpenIpcHandle(nullptr, tiles_[0], handle, 0, &opened),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeMemOpenIpcHandle(context_, nullptr, handle, 0, &opened),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeMemOpenIpcHandle(context_, tiles_[0], handle, 0x4, &opened),
            ZE_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(zeMemOpenIpcHandle(context_, tiles_[0], handle, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  // The exporting process's own handle: not modelled.
  EXPECT_EQ(
      zeMemOpenIpcHandle(context_, tiles_[0], handle, ZE_IPC_MEMORY_FLAG_BIAS_CACHED, &opened),
      ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(opened, reinterpret_cast<void*>(0x1234));
  // A handle of another process (same bytes, another pid) or no driver's: nothing to import.
  ze_ipc_mem_handle_t foreign = handle;
  foreign.data[8] ^= 0x1;
  EXPECT_EQ(zeMemOpenIpcHandle(context_, tiles_[0], foreign, 0, &opened),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_ipc_mem_handle_t zeros{};
  EXPECT_EQ(zeMemOpenIpcHandle(context_, tiles_[0], zeros, 0, &opened),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  // Nothing was opened, so nothing closes; the exported memory is still the caller's.
  EXPECT_EQ(zeMemCloseIpcHandle(nullptr, device), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeMemCloseIpcHandle(context_, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeMemCloseIpcHandle(context_, device), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeMemFree(context_, device), ZE_RESULT_SUCCESS);
}

TEST_F(IpcTest, EventPoolHandlesNeedTheIpcFlagAndCannotBeOpened) {
  ze_event_pool_handle_t plain = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE);
  ze_event_pool_handle_t shared = pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_IPC);
  ze_ipc_event_pool_handle_t handle{};
  EXPECT_EQ(zeEventPoolGetIpcHandle(nullptr, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventPoolGetIpcHandle(shared, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeEventPoolGetIpcHandle(plain, &handle),
            ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT);
  ASSERT_EQ(zeEventPoolGetIpcHandle(shared, &handle), ZE_RESULT_SUCCESS);
  EXPECT_FALSE(all_zero(handle.data, sizeof handle.data));

  ze_event_pool_handle_t opened = nullptr;
  EXPECT_EQ(zeEventPoolOpenIpcHandle(nullptr, handle, &opened),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventPoolOpenIpcHandle(context_, handle, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeEventPoolOpenIpcHandle(context_, handle, &opened),
            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(opened, nullptr);
  ze_ipc_event_pool_handle_t foreign = handle;
  foreign.data[8] ^= 0x1;
  EXPECT_EQ(zeEventPoolOpenIpcHandle(context_, foreign, &opened), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  // A memory handle is no event pool handle.
  ze_ipc_event_pool_handle_t from_memory{};
  void* device = device_alloc(4096, tiles_[0]);
  ze_ipc_mem_handle_t memory{};
  ASSERT_EQ(zeMemGetIpcHandle(context_, device, &memory), ZE_RESULT_SUCCESS);
  std::memcpy(from_memory.data, memory.data, sizeof from_memory.data);
  EXPECT_EQ(zeEventPoolOpenIpcHandle(context_, from_memory, &opened),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(zeEventPoolCloseIpcHandle(nullptr), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventPoolCloseIpcHandle(shared), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeEventPoolDestroy(shared), ZE_RESULT_SUCCESS);  // still the creator's to destroy
  EXPECT_EQ(zeEventPoolGetIpcHandle(shared, &handle), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeEventPoolDestroy(plain), ZE_RESULT_SUCCESS);
}

// zeContextCreateEx (1.1): the device list is checked; a null list with a count is INVALID_SIZE.
TEST_F(IpcTest, ContextCreateExChecksItsDevices) {
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t made = nullptr;
  EXPECT_EQ(zeContextCreateEx(nullptr, &desc, 0, nullptr, &made),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeContextCreateEx(driver_, nullptr, 0, nullptr, &made),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeContextCreateEx(driver_, &desc, 0, nullptr, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeContextCreateEx(driver_, &desc, 1, nullptr, &made), ZE_RESULT_ERROR_INVALID_SIZE);
  ze_device_handle_t unknown[1] = {reinterpret_cast<ze_device_handle_t>(&desc)};
  EXPECT_EQ(zeContextCreateEx(driver_, &desc, 1, unknown, &made),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(made, nullptr);
  ASSERT_EQ(zeContextCreateEx(driver_, &desc, 2, tiles_, &made), ZE_RESULT_SUCCESS);
  ASSERT_NE(made, nullptr);
  ze_device_mem_alloc_desc_t alloc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocDevice(made, &alloc, 4096, 0, tiles_[1], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemFree(made, p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextDestroy(made), ZE_RESULT_SUCCESS);
  ze_context_handle_t all = nullptr;
  ASSERT_EQ(zeContextCreateEx(driver_, &desc, 0, nullptr, &all), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextDestroy(all), ZE_RESULT_SUCCESS);
}

}  // namespace
}  // namespace ze_objects_test
