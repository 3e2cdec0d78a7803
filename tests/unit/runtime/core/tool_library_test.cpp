// The runtime's side of the tool interface (core/tool_library.h, Note [The tool interface]
// in accel_abi/tool_interface.h), on the GMock backend: the library ACCEL_TOOL_LIBRARY names
// is attached at initialisation, hears each pool queue's runtime name with the driver's
// handle and the allocator's bytes after each call, and a tool that cannot be used is a
// configuration error. The library is loaded once per process, so each test runs in a child.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <optional>
#include <string>

#include "accel/accel.h"
#include "backend_fixture.h"
#include "child_process.h"
#include "error_check.h"

namespace accel::test {
namespace {

// MockBackend with raw memory (bump-pointer addresses), so the allocator can run.
class ToolBackend : public ::testing::NiceMock<MockBackend> {
 public:
  detail::Result<detail::DevicePointer> allocate(int, std::size_t bytes) noexcept override {
    const std::uintptr_t address = next_;
    next_ += bytes;
    return detail::DevicePointer{address};
  }
  detail::Status deallocate(int, detail::DevicePointer) noexcept override { return {}; }
  detail::Status fill_async(int, detail::StreamHandle, void*, unsigned char,
                            std::size_t) noexcept override {
    return {};
  }

 private:
  std::uintptr_t next_ = std::uintptr_t{1} << 40;
};

class ToolLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto backend = std::make_unique<ToolBackend>();
    backend->install_defaults(std::make_shared<FakeMachine>(2));
    override_.emplace(std::move(backend));
  }
  void TearDown() override { override_.reset(); }

 private:
  std::optional<detail::ScopedBackendOverride> override_;
};

std::string tool_calls() {
  void* handle = dlopen(ACCEL_TEST_TOOL_PATH, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return "(the tool is not loaded)";
  auto calls = reinterpret_cast<const char* (*)()>(dlsym(handle, "accel_test_tool_calls"));
  return calls != nullptr ? calls() : "(no accel_test_tool_calls)";
}

std::string hex(std::uintptr_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

void expect_child_passes(const std::function<void()>& body) {
  const ChildStatus status = run_in_child(body);
  EXPECT_TRUE(status.ok()) << status.describe();
}

TEST_F(ToolLibraryTest, TheToolHearsQueueNamesAndAllocatorBytes) {
  expect_child_passes([] {
    setenv("ACCEL_TOOL_LIBRARY", ACCEL_TEST_TOOL_PATH, 1);
    init();
    EXPECT_EQ(tool_calls(), "attach 1\n") << "attached at initialisation, nothing else yet";
    const Stream stream(0, -1);
    std::istringstream lines(tool_calls());
    std::string line;
    std::getline(lines, line);
    int names = 0;
    bool found = false;
    for (; std::getline(lines, line); ++names) {
      const std::string mine = "name_queue cuda:0 " + hex(stream.native_handle()) +
                               " cuda:0 stream id=" + std::to_string(stream.id()) +
                               " (priority -1)";
      found = found || line == mine;
      EXPECT_EQ(line.rfind("name_queue cuda:0 0x", 0), 0u) << line;
    }
    EXPECT_TRUE(found) << tool_calls();
    // Every queue of device 0's pools, each once: 32 per priority level.
    const auto [least, greatest] = priority_range(0);
    const int levels = least - greatest + 1;
    EXPECT_EQ(names, 32 * levels);

    const std::string before = tool_calls();
    void* p = raw_alloc(1000);
    const std::string allocated = "memory cuda:0 " + std::to_string(memory_allocated(0)) + " " +
                                  std::to_string(memory_reserved(0)) + "\n";
    raw_delete(p);
    const std::string freed = "memory cuda:0 0 " + std::to_string(memory_reserved(0)) + "\n";
    empty_cache();
    // empty_cache tells every device's bytes.
    EXPECT_EQ(tool_calls(), before + allocated + freed + "memory cuda:0 0 0\nmemory cuda:1 0 0\n");
  });
}

// Where the program called the runtime: the return address into the caller, given on entry
// to a call that queues work, with its leave after; a call inside another (copy ->
// copy_async) adds nothing.
[[gnu::noinline]] void fill_here(void* p, const Stream& s) {
  fill_async(p, 7, 64, s);
  asm volatile("");  // keeps the call above from being a tail call
}

TEST_F(ToolLibraryTest, RuntimeCallsThatQueueWorkTellTheProgramsCallSite) {
  expect_child_passes([] {
    setenv("ACCEL_TOOL_LIBRARY", ACCEL_TEST_TOOL_PATH, 1);
    const Stream stream(0);
    void* p = raw_alloc(64);
    const std::string before = tool_calls();
    fill_here(p, stream);
    std::string after = tool_calls().substr(before.size());
    ASSERT_EQ(after.rfind("enter_api 0x", 0), 0u) << after;
    const std::uintptr_t caller = std::stoull(after.substr(10, after.find('\n') - 10), nullptr, 16);
    const auto here = reinterpret_cast<std::uintptr_t>(&fill_here);
    EXPECT_GT(caller, here) << "the return address lies inside fill_here";
    EXPECT_LT(caller, here + 256) << "the return address lies inside fill_here";
    EXPECT_EQ(after.substr(after.find('\n') + 1), "leave_api\n");
    const std::string before_copy = tool_calls();
    copy(p, p, 0);  // nothing to do: no call reaches the backend, nothing is told
    EXPECT_EQ(tool_calls(), before_copy);
    fill(p, 1, 64, stream);  // fill -> fill_async: one pair
    after = tool_calls().substr(before_copy.size());
    EXPECT_EQ(after.rfind("enter_api 0x", 0), 0u) << after;
    EXPECT_EQ(after.substr(after.find('\n') + 1), "leave_api\n");
    raw_delete(p);
  });
}

TEST_F(ToolLibraryTest, AFileThatDoesNotLoadIsAConfigurationError) {
  expect_child_passes([] {
    setenv("ACCEL_TOOL_LIBRARY", "/nonexistent/libtool.so", 1);
    EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig,
                         "ACCEL_TOOL_LIBRARY='/nonexistent/libtool.so': cannot load the tool "
                         "library: /nonexistent/libtool.so: cannot open shared object file: No "
                         "such file or directory"));
  });
}

TEST_F(ToolLibraryTest, ALibraryWithoutAttachIsNotATool) {
  expect_child_passes([] {
    setenv("ACCEL_TOOL_LIBRARY", ACCEL_TEST_NOT_A_TOOL_PATH, 1);
    EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig,
                         std::string("ACCEL_TOOL_LIBRARY='") + ACCEL_TEST_NOT_A_TOOL_PATH +
                             "': not a tool library (no accel_tool_attach)"));
    // The same answer on every call: the runtime does not retry a tool behind the user's back.
    EXPECT_TRUE(is_error_containing(catch_error([] { init(); }), ErrorKind::kConfig,
                                    "not a tool library"));
  });
}

TEST_F(ToolLibraryTest, AToolThatRefusesTheVersionIsAConfigurationError) {
  expect_child_passes([] {
    setenv("ACCEL_TOOL_LIBRARY", ACCEL_TEST_TOOL_PATH, 1);
    setenv("ACCEL_TEST_TOOL_REFUSE", "1", 1);
    EXPECT_TRUE(is_error(catch_error([] { init(); }), ErrorKind::kConfig,
                         std::string("ACCEL_TOOL_LIBRARY='") + ACCEL_TEST_TOOL_PATH +
                             "': the tool refused interface version 1 (accel_tool_attach "
                             "returned 3)"));
  });
}

TEST_F(ToolLibraryTest, WithoutAToolNothingIsLoaded) {
  expect_child_passes([] {
    unsetenv("ACCEL_TOOL_LIBRARY");
    init();
    (void)Stream(0);
    EXPECT_EQ(tool_calls(), "(the tool is not loaded)");
  });
}

}  // namespace
}  // namespace accel::test
