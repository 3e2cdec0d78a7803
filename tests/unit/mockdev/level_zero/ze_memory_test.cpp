// Contexts and memory of the mock Level Zero driver (zeContext*, zeMem*)
// and virtual memory, through the real loader.

#include <cstring>
#include <vector>

#include "mockdev/memory.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

using MemoryTest = ZeObjectsTest;

TEST_F(MemoryTest, ContextFlagsAndDestroyReturnsMemory) {
  ze_context_desc_t bad{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0x2};
  ze_context_handle_t other = nullptr;
  EXPECT_EQ(zeContextCreate(driver_, &bad, &other), ZE_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(zeContextGetStatus(context_), ZE_RESULT_SUCCESS);
  void* p = device_alloc(1, tiles_[0]);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(mockdev::control::used_bytes(0), kGranule);
  EXPECT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::used_bytes(0), 0u);  // its memory returns to the device
  EXPECT_EQ(zeContextGetStatus(context_), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeMemFree(context_, p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

TEST_F(MemoryTest, DeviceAllocationArgumentRules) {
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, 0, 0, card_, &p), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, 64, 3, card_, &p),
            ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
  desc.ordinal = 1;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, 64, 0, card_, &p), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  desc.ordinal = 0;
  desc.flags = 0x8;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, 64, 0, card_, &p),
            ZE_RESULT_ERROR_INVALID_ENUMERATION);
  desc.flags = 0;
  // An alignment above the granularity is honoured.
  ASSERT_EQ(zeMemAllocDevice(context_, &desc, 64, 8 * kGranule, card_, &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (8 * kGranule), 0u);
}

// The per-allocation cap (one tile's memory) is UNSUPPORTED_SIZE, lifted by the
// relaxed-limits link up to the device's memory; the link without its flag is refused.
TEST_F(MemoryTest, MaxAllocationSizeAndRelaxedLimits) {
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, kTileBytes + 1, 0, card_, &p),
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  ze_relaxed_allocation_limits_exp_desc_t relaxed{
      ZE_STRUCTURE_TYPE_RELAXED_ALLOCATION_LIMITS_EXP_DESC, nullptr, 0};
  desc.pNext = &relaxed;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, kTileBytes + 1, 0, card_, &p),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  relaxed.flags = ZE_RELAXED_ALLOCATION_LIMITS_EXP_FLAG_MAX_SIZE;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, 2 * kTileBytes + 1, 0, card_, &p),
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE);  // above the card's memory
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, kTileBytes + kGranule, 0, card_, &p),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::used_bytes(0), kTileBytes + kGranule);
}

// A tile has its own budget; the card's capacity bounds all of them together.
TEST_F(MemoryTest, TileRunsOutBeforeTheCard) {
  void* p = nullptr;
  const std::uint64_t three_gib = std::uint64_t{3} << 30;
  const std::uint64_t two_gib = std::uint64_t{2} << 30;
  ASSERT_EQ(try_device_alloc(three_gib, tiles_[0], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(try_device_alloc(two_gib, tiles_[0], &p), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(try_device_alloc(two_gib, tiles_[1], &p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(try_device_alloc(two_gib, card_, &p), ZE_RESULT_SUCCESS);  // 7 of 8 GiB
  EXPECT_EQ(try_device_alloc(two_gib, tiles_[1], &p), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(mockdev::control::used_bytes(0), std::uint64_t{7} << 30);
}

TEST_F(MemoryTest, EngineMemoryFaultsApply) {
  void* p = nullptr;
  mockdev::control::fail_nth_allocation(0, 1);  // the engine's memory fault, not a call fault
  EXPECT_EQ(try_device_alloc(64, card_, &p), ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
  EXPECT_EQ(try_device_alloc(64, card_, &p), ZE_RESULT_SUCCESS);
}

TEST_F(MemoryTest, FreeOfUnknownOrFreedPointerIsInvalidArgument) {
  void* p = device_alloc(4096, card_);
  int local = 0;
  EXPECT_EQ(zeMemFree(context_, &local), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeMemFree(context_, static_cast<char*>(p) + 1), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t other = nullptr;
  ASSERT_EQ(zeContextCreate(driver_, &desc, &other), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemFree(other, p), ZE_RESULT_ERROR_INVALID_ARGUMENT);  // unknown there
  EXPECT_EQ(zeMemFree(context_, p), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemFree(context_, p), ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mockdev::control::used_bytes(0), 0u);
}

// Interior pointers resolve to their allocation; foreign ones are UNKNOWN with the
// device left untouched.
TEST_F(MemoryTest, AllocationPropertiesOfInteriorAndForeignPointers) {
  char* d = static_cast<char*>(device_alloc(1 << 20, tiles_[1]));
  char* h = static_cast<char*>(host_alloc(4096));
  ze_device_mem_alloc_desc_t ddesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  ze_host_mem_alloc_desc_t hdesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* s = nullptr;
  ASSERT_EQ(zeMemAllocShared(context_, &ddesc, &hdesc, 100, 0, card_, &s), ZE_RESULT_SUCCESS);

  ze_memory_allocation_properties_t a{ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES, nullptr,
                                      ZE_MEMORY_TYPE_UNKNOWN, 0, 0};
  ze_memory_allocation_properties_t b = a;
  ze_device_handle_t owner = nullptr;
  ASSERT_EQ(zeMemGetAllocProperties(context_, d, &a, &owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(a.type, ZE_MEMORY_TYPE_DEVICE);
  EXPECT_EQ(a.pageSize, kGranule);
  EXPECT_EQ(owner, tiles_[1]);
  owner = nullptr;
  ASSERT_EQ(zeMemGetAllocProperties(context_, d + 12345, &b, &owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(b.type, ZE_MEMORY_TYPE_DEVICE);
  EXPECT_EQ(b.id, a.id);
  EXPECT_EQ(owner, tiles_[1]);

  ASSERT_EQ(zeMemGetAllocProperties(context_, h + 4095, &b, &owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(b.type, ZE_MEMORY_TYPE_HOST);
  EXPECT_NE(b.id, a.id);
  EXPECT_EQ(owner, nullptr);
  ASSERT_EQ(zeMemGetAllocProperties(context_, s, &b, &owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(b.type, ZE_MEMORY_TYPE_SHARED);
  EXPECT_EQ(owner, card_);

  int local = 0;
  owner = card_;
  ASSERT_EQ(zeMemGetAllocProperties(context_, &local, &b, &owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(b.type, ZE_MEMORY_TYPE_UNKNOWN);
  EXPECT_EQ(owner, card_);  // untouched
  ASSERT_EQ(zeMemGetAllocProperties(context_, h + 4096, &b, &owner), ZE_RESULT_SUCCESS);
  EXPECT_EQ(b.type, ZE_MEMORY_TYPE_UNKNOWN);  // one past the end
}

// A 1.4-header mock answers ZE_RESULT_ERROR_UNKNOWN for an unknown pointer.
TEST_F(MemoryTest, AddressRangeOfInteriorAndUnknownPointers) {
  char* d = static_cast<char*>(device_alloc(3000, card_));
  void* base = nullptr;
  std::size_t size = 0;
  ASSERT_EQ(zeMemGetAddressRange(context_, d + 2999, &base, &size), ZE_RESULT_SUCCESS);
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, 3000u);
  EXPECT_EQ(zeMemGetAddressRange(context_, d + 3000, &base, &size), ZE_RESULT_ERROR_UNKNOWN);
  int local = 0;
  EXPECT_EQ(zeMemGetAddressRange(context_, &local, nullptr, nullptr), ZE_RESULT_ERROR_UNKNOWN);
}

// Virtual memory: the page of a 2 MiB size is 2 MiB (ze_virtual_pages_test.cpp: the rule); map,
// copy through the mapping, unmap.
TEST_F(MemoryTest, VirtualMemoryMapCopyUnmap) {
  std::size_t page = 0;
  ASSERT_EQ(zeVirtualMemQueryPageSize(context_, card_, kGranule, &page), ZE_RESULT_SUCCESS);
  EXPECT_EQ(page, kGranule);
  void* va = nullptr;
  EXPECT_EQ(zeVirtualMemReserve(context_, nullptr, page + 1, &va), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  ASSERT_EQ(zeVirtualMemReserve(context_, nullptr, 2 * page, &va), ZE_RESULT_SUCCESS);
  ze_physical_mem_desc_t pdesc{ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, nullptr, 0, page};
  ze_physical_mem_handle_t phys = nullptr;
  ASSERT_EQ(zePhysicalMemCreate(context_, card_, &pdesc, &phys), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::used_bytes(0), page);
  ASSERT_EQ(zeVirtualMemMap(context_, va, page, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
            ZE_RESULT_SUCCESS);
  ze_memory_access_attribute_t access = ZE_MEMORY_ACCESS_ATTRIBUTE_NONE;
  std::size_t out = 0;
  ASSERT_EQ(zeVirtualMemGetAccessAttribute(context_, static_cast<char*>(va) + 10, 1, &access, &out),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(access, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE);
  EXPECT_EQ(out, page - 10);

  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  std::vector<unsigned char> src(4096), back(4096, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, va, src.data(), src.size(), nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), va, back.size(), nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, src);
  // The unmapped half is no memory a copy can reach.
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, static_cast<char*>(va) + page, src.data(), 16,
                                          nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeVirtualMemFree(context_, va, 2 * page), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
  ASSERT_EQ(zeVirtualMemUnmap(context_, va, page), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryCopy(list, va, src.data(), 16, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zePhysicalMemDestroy(context_, phys), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::used_bytes(0), 0u);
  EXPECT_EQ(zeVirtualMemFree(context_, va, 2 * page), ZE_RESULT_SUCCESS);
}

}  // namespace
}  // namespace ze_objects_test
