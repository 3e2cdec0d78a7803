#pragma once
// The fixture of the mock Level Zero driver's object tests: a simulated machine built in
// code (one Intel card of two 4 GiB tiles, COMPOSITE hierarchy, a tick period of exactly
// 50 ns), then zeInit, the driver, the card, its tiles and one context, all through
// Debian's real loader (linked as ze_loader; it opens the mock through
// ZE_ENABLE_ALT_DRIVERS, which ctest sets).
//
// The loader initialises once per process, so each test runs in its own process (ctest
// registers every test on its own); running several in one process fails loudly.

#include <gtest/gtest.h>
#include <level_zero/ze_api.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "mockdev/control.h"
#include "mockdev/machine.h"

namespace ze_objects_test {

inline constexpr std::uint64_t kTileBytes = std::uint64_t{4} << 30;
inline constexpr std::uint64_t kGranule = std::uint64_t{2} << 20;

inline mockdev::MachineSpec one_card_two_tiles() {
  mockdev::MachineSpec m;
  m.name = "ze-objects-test";
  m.source = "ze_objects_fixture.h";
  m.level_zero.default_hierarchy = "COMPOSITE";
  mockdev::DeviceSpec d;
  d.name = "Intel(R) Data Center GPU Max 1550";
  d.vendor = mockdev::Vendor::kIntel;
  d.tiles = 2;
  d.memory_bytes = 2 * kTileBytes;
  d.uuid = "80860000-0000-0000-0000-000000000000";
  d.pci_bus_id = "0000:30:00.0";
  d.level_zero.timer_resolution_ns = 50.0;
  m.devices = {d};
  return m;
}

inline bool& loader_used_in_this_process() {
  static bool used = false;
  return used;
}

class ZeObjectsTest : public ::testing::Test {
 protected:
  virtual mockdev::MachineSpec machine() { return one_card_two_tiles(); }

  void SetUp() override {
    ASSERT_FALSE(loader_used_in_this_process())
        << "each Level Zero loader test needs its own process: run it through ctest, or "
           "pass --gtest_filter with one test";
    loader_used_in_this_process() = true;
    ASSERT_NE(std::getenv("ZE_ENABLE_ALT_DRIVERS"), nullptr)
        << "ZE_ENABLE_ALT_DRIVERS must name the mock driver (ctest sets it)";
    unsetenv("ZE_AFFINITY_MASK");
    unsetenv("ZE_FLAT_DEVICE_HIERARCHY");
    mockdev::control::reset(machine());
    ASSERT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
    std::uint32_t count = 1;
    ASSERT_EQ(zeDriverGet(&count, &driver_), ZE_RESULT_SUCCESS);
    count = 1;
    ASSERT_EQ(zeDeviceGet(driver_, &count, &card_), ZE_RESULT_SUCCESS);
    count = 2;
    ASSERT_EQ(zeDeviceGetSubDevices(card_, &count, tiles_), ZE_RESULT_SUCCESS);
    ASSERT_EQ(count, 2u);
    ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    ASSERT_EQ(zeContextCreate(driver_, &desc, &context_), ZE_RESULT_SUCCESS);
  }

  void* device_alloc(std::size_t bytes, ze_device_handle_t device) {
    ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    void* p = nullptr;
    EXPECT_EQ(zeMemAllocDevice(context_, &desc, bytes, 0, device, &p), ZE_RESULT_SUCCESS);
    return p;
  }
  ze_result_t try_device_alloc(std::size_t bytes, ze_device_handle_t device, void** out) {
    ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
    return zeMemAllocDevice(context_, &desc, bytes, 0, device, out);
  }
  void* host_alloc(std::size_t bytes) {
    ze_host_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
    void* p = nullptr;
    EXPECT_EQ(zeMemAllocHost(context_, &desc, bytes, 0, &p), ZE_RESULT_SUCCESS);
    return p;
  }
  // An immediate list on `device`: ordinal, index, flags, mode as given.
  ze_command_list_handle_t immediate(ze_device_handle_t device, std::uint32_t flags = 0,
                                     ze_command_queue_mode_t mode =
                                         ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                     std::uint32_t ordinal = 0) {
    ze_command_queue_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, ordinal, 0,
                                 flags, mode, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_command_list_handle_t list = nullptr;
    EXPECT_EQ(zeCommandListCreateImmediate(context_, device, &desc, &list), ZE_RESULT_SUCCESS);
    return list;
  }
  ze_event_pool_handle_t pool(ze_event_pool_flags_t flags, std::uint32_t count = 4) {
    ze_event_pool_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, flags, count};
    ze_event_pool_handle_t p = nullptr;
    EXPECT_EQ(zeEventPoolCreate(context_, &desc, 0, nullptr, &p), ZE_RESULT_SUCCESS);
    return p;
  }
  ze_event_handle_t event(ze_event_pool_handle_t p, std::uint32_t index) {
    ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, index, 0, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t e = nullptr;
    EXPECT_EQ(zeEventCreate(p, &desc, &e), ZE_RESULT_SUCCESS);
    return e;
  }

  ze_driver_handle_t driver_ = nullptr;
  ze_device_handle_t card_ = nullptr;
  ze_device_handle_t tiles_[2] = {nullptr, nullptr};
  ze_context_handle_t context_ = nullptr;
};

}  // namespace ze_objects_test
