#include "ze_driver_test.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "accel_abi/level_zero_results.h"

void PrintTo(ze_result_t result, std::ostream* os) {
  *os << accel::ze_driver_test::name_of(result);
}

namespace accel::ze_driver_test {
namespace {

std::string_view profile() {
  const char* p = std::getenv("ACCEL_DRIVER_PROFILE");
  return p != nullptr && *p != '\0' ? std::string_view(p) : std::string_view("xpu_mock");
}

}  // namespace

std::string name_of(ze_result_t result) {
  if (const char* name =
          accel::abi::level_zero::ze_result_name(static_cast<std::uint32_t>(result))) {
    return name;
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "ze_result_t 0x%x", static_cast<unsigned>(result));
  return hex;
}

bool ZeDriverTest::on_mock() { return profile() == "xpu_mock"; }

void* ZeDriverTest::loader_symbol(const char* symbol) { return dlsym(RTLD_DEFAULT, symbol); }

void ZeDriverTest::SetUp() {
  const std::string_view p = profile();
  if (p != "xpu_mock" && p != "xpu_real") {
    FAIL() << "ACCEL_DRIVER_PROFILE='" << p << "' is not a profile (known: xpu_mock, xpu_real)";
  }
  if (on_mock() && std::getenv("ZE_ENABLE_ALT_DRIVERS") == nullptr) {
    FAIL() << "xpu_mock: ZE_ENABLE_ALT_DRIVERS must name the simulated driver (ctest sets it)";
  }
  if (!on_mock() && std::getenv("ZE_ENABLE_ALT_DRIVERS") != nullptr) {
    GTEST_SKIP() << "no real Level Zero GPU: driver conformance did not run "
                    "(ZE_ENABLE_ALT_DRIVERS is set, so another driver, such as the simulated "
                    "one, would answer)";
  }
  const ze_result_t init = zeInit(ZE_INIT_FLAG_GPU_ONLY);
  std::uint32_t drivers = 0;
  const ze_result_t listed = init == ZE_RESULT_SUCCESS ? zeDriverGet(&drivers, nullptr) : init;
  if (listed != ZE_RESULT_SUCCESS || drivers == 0) {
    if (on_mock()) FAIL() << "the simulated driver did not initialise: " << name_of(listed);
    GTEST_SKIP() << "no real Level Zero GPU: driver conformance did not run (zeInit: "
                 << name_of(init) << ", drivers: " << drivers << ")";
  }
  drivers = 1;
  ASSERT_EQ(zeDriverGet(&drivers, &driver_), ZE_RESULT_SUCCESS);
  std::uint32_t devices = 1;
  if (zeDeviceGet(driver_, &devices, &device_) != ZE_RESULT_SUCCESS || devices == 0) {
    if (on_mock()) FAIL() << "the simulated driver lists no device";
    GTEST_SKIP() << "no real Level Zero GPU: driver conformance did not run (no device)";
  }
  std::uint32_t groups = 0;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(device_, &groups, nullptr), ZE_RESULT_SUCCESS);
  std::vector<ze_command_queue_group_properties_t> props(groups);
  for (auto& g : props) g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  ASSERT_EQ(zeDeviceGetCommandQueueGroupProperties(device_, &groups, props.data()),
            ZE_RESULT_SUCCESS);
  compute_ordinal_ = groups;
  for (std::uint32_t i = 0; i < groups && compute_ordinal_ == groups; ++i) {
    if ((props[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) != 0) compute_ordinal_ = i;
  }
  ASSERT_LT(compute_ordinal_, groups) << "device 0 has no compute engine group";
  compute_.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetComputeProperties(device_, &compute_), ZE_RESULT_SUCCESS);
  ze_context_desc_t desc{ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  ASSERT_EQ(zeContextCreate(driver_, &desc, &context_), ZE_RESULT_SUCCESS);
}

void ZeDriverTest::TearDown() {
  if (context_ == nullptr) return;
  // What the test queued ends before its objects go; a test that destroyed the context
  // itself set context_ to nullptr.
  for (ze_command_queue_handle_t q : queues_) zeCommandQueueSynchronize(q, kBoundedWaitNs);
  for (ze_command_list_handle_t l : lists_) zeCommandListDestroy(l);
  for (ze_command_queue_handle_t q : queues_) zeCommandQueueDestroy(q);
  for (ze_event_handle_t e : events_) zeEventDestroy(e);
  for (ze_event_pool_handle_t p : pools_) zeEventPoolDestroy(p);
  for (void* a : allocations_) zeMemFree(context_, a);
  EXPECT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);
}

void* ZeDriverTest::device_alloc(std::size_t bytes) {
  ze_device_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocDevice(context_, &desc, bytes, 0, device_, &p), ZE_RESULT_SUCCESS);
  if (p != nullptr) allocations_.push_back(p);
  return p;
}

void* ZeDriverTest::host_alloc(std::size_t bytes) {
  ze_host_mem_alloc_desc_t desc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocHost(context_, &desc, bytes, 0, &p), ZE_RESULT_SUCCESS);
  if (p != nullptr) allocations_.push_back(p);
  return p;
}

void* ZeDriverTest::shared_alloc(std::size_t bytes) {
  ze_device_mem_alloc_desc_t ddesc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  ze_host_mem_alloc_desc_t hdesc{ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, nullptr, 0};
  void* p = nullptr;
  EXPECT_EQ(zeMemAllocShared(context_, &ddesc, &hdesc, bytes, 0, device_, &p), ZE_RESULT_SUCCESS);
  if (p != nullptr) allocations_.push_back(p);
  return p;
}

ze_command_list_handle_t ZeDriverTest::immediate(ze_command_queue_mode_t mode) {
  ze_command_queue_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, compute_ordinal_, 0,
                               0, mode, ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_list_handle_t list = nullptr;
  EXPECT_EQ(zeCommandListCreateImmediate(context_, device_, &desc, &list), ZE_RESULT_SUCCESS);
  if (list != nullptr) lists_.push_back(list);
  return list;
}

ze_command_list_handle_t ZeDriverTest::regular() {
  ze_command_list_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC, nullptr, compute_ordinal_, 0};
  ze_command_list_handle_t list = nullptr;
  EXPECT_EQ(zeCommandListCreate(context_, device_, &desc, &list), ZE_RESULT_SUCCESS);
  if (list != nullptr) lists_.push_back(list);
  return list;
}

ze_command_queue_handle_t ZeDriverTest::queue() {
  ze_command_queue_desc_t desc{ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC, nullptr, compute_ordinal_, 0,
                               0, ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                               ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  ze_command_queue_handle_t q = nullptr;
  EXPECT_EQ(zeCommandQueueCreate(context_, device_, &desc, &q), ZE_RESULT_SUCCESS);
  if (q != nullptr) queues_.push_back(q);
  return q;
}

ze_event_pool_handle_t ZeDriverTest::pool(ze_event_pool_flags_t flags, std::uint32_t count) {
  ze_event_pool_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr, flags, count};
  ze_event_pool_handle_t p = nullptr;
  EXPECT_EQ(zeEventPoolCreate(context_, &desc, 1, &device_, &p), ZE_RESULT_SUCCESS);
  if (p != nullptr) pools_.push_back(p);
  return p;
}

ze_event_handle_t ZeDriverTest::event(ze_event_pool_handle_t pool, std::uint32_t index) {
  ze_event_desc_t desc{ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, index, 0, ZE_EVENT_SCOPE_FLAG_HOST};
  ze_event_handle_t e = nullptr;
  EXPECT_EQ(zeEventCreate(pool, &desc, &e), ZE_RESULT_SUCCESS);
  if (e != nullptr) events_.push_back(e);
  return e;
}

}  // namespace accel::ze_driver_test
