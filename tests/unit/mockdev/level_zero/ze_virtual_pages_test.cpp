// The page size of Level Zero virtual memory depends on the size asked about
// (zeVirtualMemQueryPageSize): the machine file's small_page below large_page, large_page from
// there up (defaults 64 KiB and 2 MiB); reservations and physical memory take multiples of the
// page their size gets.

#include <string>
#include <vector>

#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * 1024;
// The start hint (the mock ignores it; the 1.4 validation layer refuses a null one).
const void* const kHint = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);

class VirtualPagesTest : public ZeObjectsTest {
 protected:
  std::size_t page_of(std::size_t size) {
    std::size_t page = 0;
    EXPECT_EQ(zeVirtualMemQueryPageSize(context_, card_, size, &page), ZE_RESULT_SUCCESS);
    return page;
  }
};

TEST_F(VirtualPagesTest, PageSizeDependsOnTheSize) {
  EXPECT_EQ(page_of(1), 64 * kKiB);
  EXPECT_EQ(page_of(64 * kKiB), 64 * kKiB);
  EXPECT_EQ(page_of(2 * kMiB - 1), 64 * kKiB);
  EXPECT_EQ(page_of(2 * kMiB), 2 * kMiB);
  EXPECT_EQ(page_of(std::size_t{1} << 30), 2 * kMiB);
  std::size_t page = 0;
  EXPECT_EQ(zeVirtualMemQueryPageSize(context_, card_, 0, &page), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  EXPECT_EQ(zeVirtualMemQueryPageSize(context_, card_, 1, nullptr),
            ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(zeVirtualMemQueryPageSize(context_, nullptr, 1, &page),
            ZE_RESULT_ERROR_INVALID_NULL_HANDLE);

  // Sizes are multiples of the page their size gets.
  void* va = nullptr;
  EXPECT_EQ(zeVirtualMemReserve(context_, kHint, 96 * kKiB, &va), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  EXPECT_EQ(zeVirtualMemReserve(context_, kHint, 3 * kMiB, &va),
            ZE_RESULT_ERROR_UNSUPPORTED_SIZE);  // 2 MiB pages from 2 MiB up
  ASSERT_EQ(zeVirtualMemReserve(context_, kHint, 128 * kKiB, &va), ZE_RESULT_SUCCESS);
  ze_physical_mem_desc_t desc{ZE_STRUCTURE_TYPE_PHYSICAL_MEM_DESC, nullptr, 0,
                              2 * kMiB + 64 * kKiB};
  ze_physical_mem_handle_t phys = nullptr;
  EXPECT_EQ(zePhysicalMemCreate(context_, card_, &desc, &phys), ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
  desc.size = 64 * kKiB;
  ASSERT_EQ(zePhysicalMemCreate(context_, card_, &desc, &phys), ZE_RESULT_SUCCESS);
  EXPECT_EQ(mockdev::control::used_bytes(0), 64 * kKiB);
  ASSERT_EQ(zeVirtualMemMap(context_, va, 64 * kKiB, phys, 0, ZE_MEMORY_ACCESS_ATTRIBUTE_READWRITE),
            ZE_RESULT_SUCCESS);
  ze_command_list_handle_t list = immediate(card_, 0, ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS);
  std::vector<unsigned char> src(64 * kKiB), back(64 * kKiB, 0);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 13);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, va, src.data(), src.size(), nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeCommandListAppendMemoryCopy(list, back.data(), va, back.size(), nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(back, src);
  ASSERT_EQ(zeVirtualMemUnmap(context_, va, 64 * kKiB), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zePhysicalMemDestroy(context_, phys), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeVirtualMemFree(context_, va, 128 * kKiB), ZE_RESULT_SUCCESS);
}

// The machine file's small_page and large_page.
class CustomPagesTest : public VirtualPagesTest {
 protected:
  mockdev::MachineSpec machine() override {
    mockdev::MachineSpec m = one_card_two_tiles();
    m.devices[0].level_zero = mockdev::parse_machine(R"(name: pages
devices:
  - name: Intel(R) Arc(TM) A770 Graphics
    vendor: intel
    memory: 16GiB
    level_zero: {small_page: 4KiB, large_page: 1GiB}
)",
                                                     "pages_machine")
                                  .devices[0]
                                  .level_zero;
    return m;
  }
};

TEST_F(CustomPagesTest, PagesFromTheMachineFile) {
  EXPECT_EQ(page_of(1), 4 * kKiB);
  EXPECT_EQ(page_of(512 * kMiB), 4 * kKiB);
  EXPECT_EQ(page_of(std::size_t{1} << 30), std::size_t{1} << 30);
}

TEST(ZeMachineKeys, PageSizesAreChecked) {
  auto reject = [](const char* value) {
    const std::string text = std::string(
                                 "name: x\ndevices:\n  - {name: i, vendor: intel, memory: 1GiB, "
                                 "level_zero: {") +
                             value + "}}\n";
    try {
      mockdev::parse_machine(text, "m.yaml");
    } catch (const mockdev::MachineFileError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reject("small_page: 2KiB"),
            "m.yaml:3: devices[0].level_zero.small_page: expected a power of two from 4096 bytes "
            "to 1GiB, got '2KiB'");
  EXPECT_EQ(reject("large_page: 3MiB"),
            "m.yaml:3: devices[0].level_zero.large_page: expected a power of two from 65536 bytes "
            "to 1GiB, got '3MiB'");
  EXPECT_EQ(reject("small_page: 4MiB"),
            "m.yaml:3: devices[0].level_zero.small_page: expected at most large_page (2097152 "
            "bytes), got '4MiB'");
  EXPECT_EQ(reject("small_page: 4MiB, large_page: 4MiB"), "accepted");
}

}  // namespace
}  // namespace ze_objects_test
