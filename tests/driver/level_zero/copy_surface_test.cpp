// Item: the copy and memory surface. Region copies move exactly their box; copies between
// contexts; memory-range barriers, prefetch and advice; timestamps written into memory;
// residency; the image and external-memory queries answered (not UNSUPPORTED).

#include <cstring>
#include <vector>

#include "ze_driver_test.h"

namespace accel::ze_driver_test {
namespace {

using ZeCopySurface = ZeDriverTest;

constexpr unsigned char kUntouched = 0xee;

// A box of 5 x 3 bytes from (2, 1) of a 16-byte-pitch buffer to (4, 2) of a 32-byte-pitch
// device buffer, and the whole device buffer back: exactly those 15 bytes changed. The
// specification's argument codes: null pointers, a wait list with a count and no array,
// overlapping boxes in one buffer.
TEST_F(ZeCopySurface, RegionCopyMovesExactlyTheBox) {
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  auto* src = static_cast<unsigned char*>(host_alloc(16 * 8));
  auto* back = static_cast<unsigned char*>(host_alloc(32 * 8));
  void* d = device_alloc(32 * 8);
  ASSERT_NE(src, nullptr);
  ASSERT_NE(back, nullptr);
  for (int i = 0; i < 16 * 8; ++i) src[i] = static_cast<unsigned char>(i);
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, d, &kUntouched, 1, 32 * 8, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  const ze_copy_region_t from{2, 1, 0, 5, 3, 0};
  const ze_copy_region_t to{4, 2, 0, 5, 3, 0};
  ASSERT_EQ(zeCommandListAppendMemoryCopyRegion(list, d, &to, 32, 0, src, &from, 16, 0, nullptr, 0,
                                                nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back, d, 32 * 8, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::vector<unsigned char> expected(32 * 8, kUntouched);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 5; ++x) expected[(2 + y) * 32 + 4 + x] = src[(1 + y) * 16 + 2 + x];
  }
  EXPECT_EQ(std::vector<unsigned char>(back, back + 32 * 8), expected);

  const ze_copy_region_t r{0, 0, 0, 4, 2, 0};
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, nullptr, &r, 8, 0, src, &r, 8, 0, nullptr, 0,
                                                nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, d, nullptr, 8, 0, src, &r, 8, 0, nullptr, 0,
                                                nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, d, &r, 8, 0, src, &r, 8, 0, nullptr, 1,
                                                nullptr),
            ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(nullptr, d, &r, 8, 0, src, &r, 8, 0, nullptr, 0,
                                                nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  const ze_copy_region_t next{2, 1, 0, 4, 2, 0};  // rows 1-2 against rows 0-1: row 1 shared
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, src, &next, 8, 0, src, &r, 8, 0, nullptr, 0,
                                                nullptr),
            ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
}

// zeCommandListAppendMemoryCopyFromContext: the source is an allocation of another context.
TEST_F(ZeCopySurface, CopyFromAnotherContext) {
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t other = nullptr;
  ASSERT_EQ(zeContextCreate(driver_, &desc, &other), ZE_RESULT_SUCCESS);
  ze_host_mem_alloc_desc_t hdesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* theirs = nullptr;
  ASSERT_EQ(zeMemAllocHost(other, &hdesc, 256, 0, &theirs), ZE_RESULT_SUCCESS);
  for (int i = 0; i < 256; ++i) static_cast<unsigned char*>(theirs)[i] = static_cast<unsigned char>(255 - i);
  auto* ours = static_cast<unsigned char*>(host_alloc(256));
  ASSERT_NE(ours, nullptr);
  std::memset(ours, 0, 256);
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ASSERT_EQ(zeCommandListAppendMemoryCopyFromContext(list, ours, other, theirs, 256, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(std::memcmp(ours, theirs, 256), 0);
  EXPECT_EQ(zeCommandListAppendMemoryCopyFromContext(list, ours, nullptr, theirs, 256, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeCommandListAppendMemoryCopyFromContext(list, ours, other, nullptr, 256, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeMemFree(other, theirs), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextDestroy(other), ZE_RESULT_SUCCESS);
}

// A memory-range barrier signals its event after the earlier copy; prefetch and advice take the
// context's allocations; memory the driver did not allocate is refused where the device has no
// shared-system allocations.
TEST_F(ZeCopySurface, RangesBarrierPrefetchAndAdvice) {
  ze_command_list_handle_t list = immediate();
  auto* h = static_cast<unsigned char*>(host_alloc(4096));
  void* d = device_alloc(4096);
  void* shared = shared_alloc(4096);
  ASSERT_NE(h, nullptr);
  std::memset(h, 1, 4096);
  ze_event_handle_t done = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, h, 4096, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  const std::size_t sizes[1] = {4096};
  const void* ranges[1] = {d};
  ASSERT_EQ(zeCommandListAppendMemoryRangesBarrier(list, 1, sizes, ranges, done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(done, kBoundedWaitNs), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryRangesBarrier(list, 1, nullptr, ranges, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemoryRangesBarrier(list, 1, sizes, nullptr, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);

  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, shared, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, nullptr, 4096),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(nullptr, shared, 4096),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  for (ze_memory_advice_t advice :
       {ZE_MEMORY_ADVICE_SET_PREFERRED_LOCATION, ZE_MEMORY_ADVICE_CLEAR_PREFERRED_LOCATION}) {
    EXPECT_EQ(zeCommandListAppendMemAdvise(list, device_, shared, 4096, advice), ZE_RESULT_SUCCESS)
        << advice;
  }
  EXPECT_EQ(zeCommandListAppendMemAdvise(list, device_, nullptr, 4096,
                                         ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemAdvise(list, nullptr, shared, 4096,
                                         ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  ze_device_memory_access_properties_t access{};
  access.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES;
  ASSERT_EQ(zeDeviceGetMemoryAccessProperties(device_, &access), ZE_RESULT_SUCCESS);
  if (access.sharedSystemAllocCapabilities == 0) {
    std::vector<unsigned char> plain(4096);
    EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, plain.data(), 4096),
              ZE_RESULT_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(zeCommandListAppendMemAdvise(list, device_, plain.data(), 4096,
                                           ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
              ZE_RESULT_ERROR_INVALID_ARGUMENT);
  }
  ze_event_handle_t last = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 1);
  ASSERT_EQ(zeCommandListAppendBarrier(list, last, 0, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(last, kBoundedWaitNs), ZE_RESULT_SUCCESS);
}

// Global timestamps written into host memory advance; a kernel-timestamp event's results, written
// by zeCommandListAppendQueryKernelTimestamps, are what zeEventQueryKernelTimestamp answers.
TEST_F(ZeCopySurface, TimestampsWrittenIntoMemory) {
  ze_command_list_handle_t list = immediate(ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  auto* stamps = static_cast<std::uint64_t*>(host_alloc(2 * sizeof(std::uint64_t)));
  ASSERT_NE(stamps, nullptr);
  stamps[0] = stamps[1] = 0;
  ASSERT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[0], nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ze_event_pool_handle_t p =
      pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  ze_event_handle_t copied = event(p, 0);
  void* d = device_alloc(1 << 20);
  void* h = host_alloc(1 << 20);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, h, 1 << 20, copied, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, &stamps[1], nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_NE(stamps[0], 0u);
  EXPECT_GT(stamps[1], stamps[0]);
  EXPECT_EQ(zeCommandListAppendWriteGlobalTimestamp(list, nullptr, nullptr, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);

  ASSERT_EQ(zeEventHostSynchronize(copied, kBoundedWaitNs), ZE_RESULT_SUCCESS);
  ze_kernel_timestamp_result_t expected{};
  ASSERT_EQ(zeEventQueryKernelTimestamp(copied, &expected), ZE_RESULT_SUCCESS);
  auto* written = static_cast<ze_kernel_timestamp_result_t*>(
      host_alloc(sizeof(ze_kernel_timestamp_result_t)));
  ASSERT_NE(written, nullptr);
  std::memset(written, 0, sizeof *written);
  ASSERT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 1, &copied, written, nullptr, nullptr,
                                                     0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(std::memcmp(written, &expected, sizeof expected), 0);
  EXPECT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 1, nullptr, written, nullptr, nullptr,
                                                     0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 1, &copied, nullptr, nullptr, nullptr,
                                                     0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
}

// Residency of an allocation of the context on the device: made resident, evicted.
TEST_F(ZeCopySurface, MakeResidentAndEvict) {
  void* d = device_alloc(4096);
  void* h = host_alloc(4096);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, device_, d, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, device_, h, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextEvictMemory(context_, device_, d, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextEvictMemory(context_, device_, h, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, device_, nullptr, 64),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, nullptr, d, 64),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeContextEvictMemory(nullptr, device_, d, 64), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// The image and external-memory queries answer, whatever the device supports; the flags are
// the specification's.
TEST_F(ZeCopySurface, ImageAndExternalMemoryQueriesAnswer) {
  ze_device_image_properties_t images{};
  images.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES;
  EXPECT_EQ(zeDeviceGetImageProperties(device_, &images), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeDeviceGetImageProperties(device_, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ze_device_external_memory_properties_t ext{};
  ext.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES;
  ASSERT_EQ(zeDeviceGetExternalMemoryProperties(device_, &ext), ZE_RESULT_SUCCESS);
  const std::uint32_t known = ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_FD |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32 |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_OPAQUE_WIN32_KMT |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_TEXTURE |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_D3D11_TEXTURE_KMT |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_HEAP |
                              ZE_EXTERNAL_MEMORY_TYPE_FLAG_D3D12_RESOURCE;
  EXPECT_EQ(ext.memoryAllocationImportTypes & ~known, 0u);
  EXPECT_EQ(ext.memoryAllocationExportTypes & ~known, 0u);
  EXPECT_EQ(zeDeviceGetExternalMemoryProperties(nullptr, &ext),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

}  // namespace
}  // namespace accel::ze_driver_test
