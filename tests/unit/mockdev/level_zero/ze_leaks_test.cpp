// What the Level Zero driver lists for the leak report (Note [Leak report] in
// mockdev/src/core/leak_report.h): its live objects and allocations, each with the program's
// call that made it, found past the loader's frames while MOCKDEV_LEAKS is set.

#include <cstdlib>
#include <string>

#include "core/engine_lock.h"
#include "core/leak_report.h"
#include "core/race_call_site.h"
#include "ze_objects_fixture.h"

namespace ze_objects_test {
namespace {

bool addr2line_on_path() { return std::system("addr2line --version >/dev/null 2>&1") == 0; }

class ZeLeaksTest : public ZeObjectsTest {
 protected:
  void SetUp() override {
    // Before the first Level Zero object: the policy is read once per process. `report`
    // keeps the exit status; the report at this test's exit lists what it left.
    setenv("MOCKDEV_LEAKS", "report", 1);
    ZeObjectsTest::SetUp();
  }
};

TEST_F(ZeLeaksTest, ObjectsAndAllocationsCarryTheProgramsCallSite) {
  ze_device_mem_alloc_desc_t device_desc{ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  void* on_tile = nullptr;
  const int line = __LINE__ + 1;
  ASSERT_EQ(zeMemAllocDevice(context_, &device_desc, 4096, 0, tiles_[1], &on_tile),
            ZE_RESULT_SUCCESS);
  ze_command_list_handle_t list = immediate(card_);
  void* host = host_alloc(100);
  void* freed = host_alloc(8);
  ASSERT_EQ(zeMemFree(context_, freed), ZE_RESULT_SUCCESS);

  mockdev::core::LiveObjects objects;
  {
    mockdev::core::EngineLock lock;
    objects = mockdev::core::live_objects();
  }
  std::string listed;
  for (const auto& o : objects)
    listed += o.kind + " | " + o.where + " | " + std::to_string(o.bytes) + "\n";
  // Handles in address order (the context and the list), then the context's allocations.
  const std::string context_then_list =
      "Level Zero context |  | 0\nLevel Zero command list |  | 0\n";
  const std::string list_then_context =
      "Level Zero command list |  | 0\nLevel Zero context |  | 0\n";
  const std::string memory =
      "Level Zero device memory | device 0 tile 1 | 4096\nLevel Zero host memory |  | 100\n";
  EXPECT_TRUE(listed == context_then_list + memory || listed == list_then_context + memory)
      << listed;
  if (addr2line_on_path()) {
    for (const auto& o : objects) {
      const std::string site = mockdev::core::describe_call_site(o.caller);
      const std::string expected = o.kind == "Level Zero device memory"
                                       ? "ze_leaks_test.cpp:" + std::to_string(line) + " "
                                       : "ze_objects_fixture.h:";
      EXPECT_NE(site.find(expected), std::string::npos) << o.kind << ": " << site;
    }
  }
  ASSERT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeMemFree(context_, host), ZE_RESULT_SUCCESS);
  ASSERT_EQ(zeMemFree(context_, on_tile), ZE_RESULT_SUCCESS);
  mockdev::core::EngineLock lock;
  EXPECT_EQ(mockdev::core::live_objects().size(), 1u);  // the fixture's context
}

}  // namespace
}  // namespace ze_objects_test
