// The copy and memory surface of the mock Level Zero driver: region copies
// (zeCommandListAppendMemoryCopyRegion) that move exactly their box and declare exactly their
// rows to the race detector, copies from another context, memory ranges barriers, prefetch and
// memory advice, kernel timestamps queried into memory, residency, and the image and external
// memory capabilities the machine file gives.

#include <cstdlib>
#include <cstring>
#include <vector>

#include "mockdev/races.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

using SurfaceTest = ZeObjectsTest;

class AdversarialSurfaceTest : public ZeObjectsTest {
 protected:
  mockdev::MachineSpec machine() override {
    mockdev::MachineSpec m = one_card_two_tiles();
    m.streams.schedule = mockdev::StreamSettings::Schedule::kAdversarial;
    return m;
  }
};

constexpr unsigned char kUntouched = 0xee;

// A 2D box of 5 x 3 bytes from (2, 1) of a 16-byte-pitch host buffer to (4, 2) of a
// 32-byte-pitch device buffer: exactly those 15 bytes change.
TEST_F(SurfaceTest, RegionCopy2DMovesExactlyTheBox) {
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  std::vector<unsigned char> src(16 * 8);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i);
  const std::size_t n = 32 * 8;
  void* d = device_alloc(n, card_);
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, d, &kUntouched, 1, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  const ze_copy_region_t src_region{2, 1, 0, 5, 3, 0};
  const ze_copy_region_t dst_region{4, 2, 0, 5, 3, 0};
  ASSERT_EQ(zeCommandListAppendMemoryCopyRegion(list, d, &dst_region, 32, 0, src.data(),
                                                &src_region, 16, 0, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::vector<unsigned char> back(n, 0);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), d, n, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  std::vector<unsigned char> expected(n, kUntouched);
  for (std::size_t y = 0; y < 3; ++y) {
    for (std::size_t x = 0; x < 5; ++x) expected[(2 + y) * 32 + 4 + x] = src[(1 + y) * 16 + 2 + x];
  }
  EXPECT_EQ(back, expected);
}

// Two slices of 3 x 2 bytes, with slice pitches, between host memory and a device buffer and
// back into a host allocation.
TEST_F(SurfaceTest, RegionCopy3DMovesEverySlice) {
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  std::vector<unsigned char> src(8 * 4 * 3);  // pitch 8, 4 rows per slice, 3 slices
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i + 1);
  void* d = device_alloc(256, card_);
  auto* h = static_cast<unsigned char*>(host_alloc(256));
  std::memset(h, kUntouched, 256);
  const ze_copy_region_t from{1, 1, 1, 3, 2, 2};
  const ze_copy_region_t packed{0, 0, 0, 3, 2, 2};
  ASSERT_EQ(zeCommandListAppendMemoryCopyRegion(list, d, &packed, 3, 6, src.data(), &from, 8, 32,
                                                nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopyRegion(list, h, &packed, 3, 6, d, &packed, 3, 6, nullptr,
                                                0, nullptr),
            ZE_RESULT_SUCCESS);
  std::vector<unsigned char> expected;
  for (std::size_t z = 0; z < 2; ++z) {
    for (std::size_t y = 0; y < 2; ++y) {
      for (std::size_t x = 0; x < 3; ++x)
        expected.push_back(src[(1 + z) * 32 + (1 + y) * 8 + 1 + x]);
    }
  }
  EXPECT_EQ(std::vector<unsigned char>(h, h + 12), expected);
  EXPECT_EQ(h[12], kUntouched);
}

// Null pointers, boxes of different sizes, rows wider than their pitch, a box outside the
// allocation; two boxes in one buffer may interleave but not share a byte.
TEST_F(SurfaceTest, RegionCopyRules) {
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  auto* h = static_cast<unsigned char*>(host_alloc(64));
  for (int i = 0; i < 64; ++i) h[i] = static_cast<unsigned char>(i);
  void* d = device_alloc(64, card_);
  const ze_copy_region_t r{0, 0, 0, 4, 2, 0};
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, nullptr, &r, 8, 0, h, &r, 8, 0, nullptr, 0,
                                                nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(
      zeCommandListAppendMemoryCopyRegion(list, d, nullptr, 8, 0, h, &r, 8, 0, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  const ze_copy_region_t wider{0, 0, 0, 5, 2, 0};
  EXPECT_EQ(
      zeCommandListAppendMemoryCopyRegion(list, d, &wider, 8, 0, h, &r, 8, 0, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      zeCommandListAppendMemoryCopyRegion(list, d, &r, 3, 0, h, &r, 8, 0, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_ARGUMENT);         // 4-byte rows on a 3-byte pitch
  const ze_copy_region_t low{0, 7, 0, 4, 2, 0};  // rows 7 and 8 of 8 bytes: past 64
  EXPECT_EQ(
      zeCommandListAppendMemoryCopyRegion(list, d, &low, 8, 0, h, &r, 8, 0, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ze_event_handle_t* no_waits = nullptr;
  EXPECT_EQ(
      zeCommandListAppendMemoryCopyRegion(list, d, &r, 8, 0, h, &r, 8, 0, nullptr, 1, no_waits),
      ZE_RESULT_ERROR_INVALID_SIZE);
  // Rows 0-1 and rows 1-2 of one buffer share row 1.
  const ze_copy_region_t next{2, 1, 0, 4, 2, 0};
  EXPECT_EQ(
      zeCommandListAppendMemoryCopyRegion(list, h, &next, 8, 0, h, &r, 8, 0, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_OVERLAPPING_REGIONS);
  // Even rows to odd rows of one buffer (pitch 16 over an 8-byte row stride) interleave.
  const ze_copy_region_t even{0, 0, 0, 8, 3, 0};
  EXPECT_EQ(zeCommandListAppendMemoryCopyRegion(list, h + 8, &even, 16, 0, h, &even, 16, 0, nullptr,
                                                0, nullptr),
            ZE_RESULT_SUCCESS);
  for (int y = 0; y < 3; ++y) {
    EXPECT_EQ(std::memcmp(h + 16 * y + 8, h + 16 * y, 8), 0) << "row " << y;
    EXPECT_EQ(h[16 * y], 16 * y);  // the source rows kept their bytes
  }
}

// The operation declares the rows, not the extent: a write between two rows of the box is no
// race, a write inside a row is one.
TEST_F(SurfaceTest, RegionCopyDeclaresItsRowsToTheRaceDetector) {
  void* d = device_alloc(4096, card_);
  std::vector<unsigned char> src(4096, 1);
  ze_command_list_handle_t a = immediate(card_);
  ze_command_list_handle_t b = immediate(card_);
  mockdev::control::clear_races();
  const ze_copy_region_t box{0, 0, 0, 64, 4, 0};  // rows at 0, 256, 512, 768
  ASSERT_EQ(zeCommandListAppendMemoryCopyRegion(a, d, &box, 256, 0, src.data(), &box, 256, 0,
                                                nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  const unsigned char two = 2;
  auto* base = static_cast<unsigned char*>(d);
  ASSERT_EQ(zeCommandListAppendMemoryFill(b, base + 100, &two, 1, 100, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 0u);
  ASSERT_EQ(zeCommandListAppendMemoryFill(b, base + 520, &two, 1, 4, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::race_count(), 1u);
}

// The source is memory of another context; the destination memory of the list's.
TEST_F(SurfaceTest, CopyFromAnotherContext) {
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ze_context_handle_t other = nullptr;
  ASSERT_EQ(zeContextCreate(driver_, &desc, &other), ZE_RESULT_SUCCESS);
  ze_device_mem_alloc_desc_t ddesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* theirs = nullptr;
  ASSERT_EQ(zeMemAllocDevice(other, &ddesc, 256, 0, card_, &theirs), ZE_RESULT_SUCCESS);
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  const unsigned char seven = 7;
  ze_command_queue_desc_t qdesc{
      ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, 0, 0, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS,
      ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t their_list = nullptr;
  ASSERT_EQ(zeCommandListCreateImmediate(other, card_, &qdesc, &their_list), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryFill(their_list, theirs, &seven, 1, 256, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  void* mine = device_alloc(256, card_);
  ASSERT_EQ(
      zeCommandListAppendMemoryCopyFromContext(list, mine, other, theirs, 256, nullptr, 0, nullptr),
      ZE_RESULT_SUCCESS);
  std::vector<unsigned char> back(256, 0);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), mine, 256, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, std::vector<unsigned char>(256, 7));
  EXPECT_EQ(zeCommandListAppendMemoryCopyFromContext(list, mine, nullptr, theirs, 256, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeCommandListAppendMemoryCopyFromContext(list, mine, other, nullptr, 256, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  // Device memory of the list's own context is not memory of `other`.
  EXPECT_EQ(zeCommandListAppendMemoryCopyFromContext(list, back.data(), other, mine, 256, nullptr,
                                                     0, nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// A memory ranges barrier orders like a barrier: waiting for its event runs the fill before it.
TEST_F(AdversarialSurfaceTest, MemoryRangesBarrierOrdersEarlierCommands) {
  ze_command_list_handle_t list = immediate(card_);
  auto* h = static_cast<unsigned char*>(host_alloc(64));
  h[0] = 0;
  const unsigned char one = 1;
  ze_event_handle_t done = event(pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE), 0);
  ASSERT_EQ(zeCommandListAppendMemoryFill(list, h, &one, 1, 64, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  const std::size_t sizes[] = {64};
  const void* ranges[] = {h};
  EXPECT_EQ(zeCommandListAppendMemoryRangesBarrier(list, 1, nullptr, ranges, done, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemoryRangesBarrier(list, 1, sizes, nullptr, done, 0, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  ASSERT_EQ(zeCommandListAppendMemoryRangesBarrier(list, 1, sizes, ranges, done, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(h[0], 0);  // nothing ran yet
  ASSERT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(h[63], 1);
}

// Prefetch and advice take any allocation of the context; plain host memory is refused as a
// device without shared-system allocations refuses it.
TEST_F(SurfaceTest, PrefetchAndAdviceTakeAllocationsOnly) {
  ze_device_memory_access_properties_t access{};
  access.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES;
  ASSERT_EQ(zeDeviceGetMemoryAccessProperties(card_, &access), ZE_RESULT_SUCCESS);
  EXPECT_EQ(access.sharedSystemAllocCapabilities, 0u);
  ze_command_list_handle_t list = immediate(card_);
  ze_device_mem_alloc_desc_t ddesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  ze_host_mem_alloc_desc_t hdesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* shared = nullptr;
  ASSERT_EQ(zeMemAllocShared(context_, &ddesc, &hdesc, 4096, 0, card_, &shared), ZE_RESULT_SUCCESS);
  void* d = device_alloc(4096, card_);
  std::vector<unsigned char> plain(4096);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, shared, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, d, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, plain.data(), 4096),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, nullptr, 4096),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(nullptr, shared, 4096),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeCommandListAppendMemAdvise(list, card_, shared, 4096,
                                         ZE_MEMORY_ADVICE_SET_PREFERRED_LOCATION),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemAdvise(list, card_, shared, 4096, ZE_MEMORY_ADVICE_BIAS_UNCACHED),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(
      zeCommandListAppendMemAdvise(list, card_, shared, 4096, static_cast<ze_memory_advice_t>(8)),
      ZE_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(
      zeCommandListAppendMemAdvise(list, nullptr, shared, 4096, ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
      ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(
      zeCommandListAppendMemAdvise(list, card_, nullptr, 4096, ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
      ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendMemAdvise(list, card_, plain.data(), 4096,
                                         ZE_MEMORY_ADVICE_SET_READ_MOSTLY),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(zeMemFree(context_, shared), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListAppendMemoryPrefetch(list, shared, 4096),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// The query writes, per event, exactly what zeEventQueryKernelTimestamp answers: packed in event
// order, or at the given offsets.
TEST_F(SurfaceTest, QueryKernelTimestampsIntoMemory) {
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  ze_event_pool_handle_t p =
      pool(ZE_EVENT_POOL_FLAG_HOST_VISIBLE | ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  ze_event_handle_t events[2] = {event(p, 0), event(p, 1)};
  void* d = device_alloc(1000000, card_);
  std::vector<unsigned char> src(1000000, 3);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, d, src.data(), 1000000, events[0], 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendBarrier(list, events[1], 0, nullptr), ZE_RESULT_SUCCESS);
  constexpr std::size_t kResult = sizeof(ze_kernel_timestamp_result_t);
  auto* packed = static_cast<ze_kernel_timestamp_result_t*>(host_alloc(2 * kResult));
  std::memset(packed, 0, 2 * kResult);
  ASSERT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 2, events, packed, nullptr, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_SUCCESS);
  ze_kernel_timestamp_result_t expected[2] = {};
  ASSERT_EQ(zeEventQueryKernelTimestamp(events[0], &expected[0]), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeEventQueryKernelTimestamp(events[1], &expected[1]), ZE_RESULT_SUCCESS);
  EXPECT_EQ(expected[0].global.kernelEnd - expected[0].global.kernelStart, 800u);  // 40 us / 50 ns
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(std::memcmp(&packed[i], &expected[i], kResult), 0) << "event " << i;
  }
  // At offsets: event 1 first, event 0 two slots later, into device memory.
  void* slots = device_alloc(4 * kResult, card_);
  ASSERT_EQ(
      zeCommandListAppendMemoryFill(list, slots, &kUntouched, 1, 4 * kResult, nullptr, 0, nullptr),
      ZE_RESULT_SUCCESS);
  ze_event_handle_t reversed[2] = {events[1], events[0]};
  const std::size_t offsets[2] = {0, 2 * kResult};
  ASSERT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 2, reversed, slots, offsets, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_SUCCESS);
  ze_kernel_timestamp_result_t back[4];
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back, slots, 4 * kResult, nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(std::memcmp(&back[0], &expected[1], kResult), 0);
  EXPECT_EQ(std::memcmp(&back[2], &expected[0], kResult), 0);
  EXPECT_EQ(reinterpret_cast<unsigned char*>(&back[1])[0], kUntouched);

  EXPECT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 2, nullptr, packed, nullptr, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 2, events, nullptr, nullptr, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  const std::size_t past_end[2] = {0, 4 * kResult};  // the second result would not fit
  EXPECT_EQ(zeCommandListAppendQueryKernelTimestamps(list, 2, events, slots, past_end, nullptr, 0,
                                                     nullptr),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

// Residency takes a range inside one allocation of the context, for a device of the driver.
TEST_F(SurfaceTest, MakeResidentAndEvict) {
  void* d = device_alloc(4096, tiles_[0]);
  auto* h = static_cast<unsigned char*>(host_alloc(4096));
  std::vector<unsigned char> plain(64);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, tiles_[0], d, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, tiles_[0], h + 64, 128), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextEvictMemory(context_, tiles_[0], d, 4096), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, tiles_[0], d, 4097),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeContextEvictMemory(context_, tiles_[0], plain.data(), 64),
            ZE_RESULT_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, tiles_[0], nullptr, 64),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeContextMakeMemoryResident(context_, nullptr, d, 64),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(zeContextEvictMemory(nullptr, tiles_[0], d, 64), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// Default machine: no images, no external memory, both answered (not UNSUPPORTED).
TEST_F(SurfaceTest, NoImagesAndNoExternalMemoryByDefault) {
  ze_device_image_properties_t images{};
  images.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES;
  images.maxImageDims2D = 77;
  ASSERT_EQ(zeDeviceGetImageProperties(tiles_[1], &images), ZE_RESULT_SUCCESS);
  EXPECT_EQ(images.maxImageDims1D, 0u);
  EXPECT_EQ(images.maxImageDims2D, 0u);
  EXPECT_EQ(images.maxImageBufferSize, 0u);
  EXPECT_EQ(images.maxWriteImageArgs, 0u);
  ze_device_external_memory_properties_t ext{};
  ext.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES;
  ext.memoryAllocationImportTypes = 0x3;
  ASSERT_EQ(zeDeviceGetExternalMemoryProperties(card_, &ext), ZE_RESULT_SUCCESS);
  EXPECT_EQ(ext.memoryAllocationImportTypes, 0u);
  EXPECT_EQ(ext.memoryAllocationExportTypes, 0u);
  EXPECT_EQ(ext.imageImportTypes, 0u);
  EXPECT_EQ(ext.imageExportTypes, 0u);
  EXPECT_EQ(zeDeviceGetImageProperties(card_, nullptr), ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeDeviceGetExternalMemoryProperties(nullptr, &ext),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

// A machine file with images and DMA-BUF memory (the keys `images`, `external_memory`).
class ImagesMachineTest : public ZeObjectsTest {
 protected:
  mockdev::MachineSpec machine() override {
    return mockdev::parse_machine(R"(name: images
level_zero: {default_hierarchy: COMPOSITE}
devices:
  - name: Intel(R) Arc(TM) A770 Graphics
    vendor: intel
    memory: 16GiB
    tiles: 2
    level_zero: {images: true, external_memory: [dma_buf], max_mem_alloc: 4GiB}
)",
                                  "images_machine");
  }
};

TEST_F(ImagesMachineTest, ImagesAndExternalMemoryFromTheMachineFile) {
  ze_device_image_properties_t images{};
  images.stype = ZE_STRUCTURE_TYPE_DEVICE_IMAGE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetImageProperties(card_, &images), ZE_RESULT_SUCCESS);
  EXPECT_EQ(images.maxImageDims1D, 16384u);
  EXPECT_EQ(images.maxImageDims2D, 16384u);
  EXPECT_EQ(images.maxImageDims3D, 2048u);
  EXPECT_EQ(images.maxImageBufferSize, std::uint64_t{1} << 30);
  EXPECT_EQ(images.maxImageArraySlices, 2048u);
  EXPECT_EQ(images.maxSamplers, 16u);
  EXPECT_EQ(images.maxReadImageArgs, 128u);
  EXPECT_EQ(images.maxWriteImageArgs, 128u);
  ze_device_external_memory_properties_t ext{};
  ext.stype = ZE_STRUCTURE_TYPE_DEVICE_EXTERNAL_MEMORY_PROPERTIES;
  ASSERT_EQ(zeDeviceGetExternalMemoryProperties(tiles_[0], &ext), ZE_RESULT_SUCCESS);
  EXPECT_EQ(ext.memoryAllocationImportTypes, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF);
  EXPECT_EQ(ext.memoryAllocationExportTypes, ZE_EXTERNAL_MEMORY_TYPE_FLAG_DMA_BUF);
  EXPECT_EQ(ext.imageImportTypes, 0u);
}

// What the reader refuses in the new keys.
TEST(ZeMachineKeys, ExternalMemoryListIsChecked) {
  auto reject = [](const char* value) {
    const std::string text = std::string(
                                 "name: x\ndevices:\n  - {name: i, vendor: intel, memory: 1GiB, "
                                 "level_zero: {external_memory: ") +
                             value + "}}\n";
    try {
      mockdev::parse_machine(text, "m.yaml");
    } catch (const mockdev::MachineFileError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reject("[dma_buf, dma_buf]"),
            "m.yaml:3: devices[0].level_zero.external_memory[1]: expected opaque_fd or dma_buf, "
            "each at most once, got 'dma_buf'");
  EXPECT_EQ(reject("dma_buf"),
            "m.yaml:3: devices[0].level_zero.external_memory: expected a list of external memory "
            "types: opaque_fd, dma_buf, got 'dma_buf'");
  EXPECT_EQ(reject("[opaque_fd, dma_buf]"), "accepted");
}

}  // namespace
}  // namespace ze_objects_test
