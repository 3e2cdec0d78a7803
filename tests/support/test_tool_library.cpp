// A tool library for the runtime's tool-interface tests (accel_abi/tool_interface.h): it
// records every call it receives as a line of text, which the test reads back through
// accel_test_tool_calls(). Built twice: as accel_test_tool, and with ACCEL_TEST_NOT_A_TOOL as
// accel_test_not_a_tool (no accel_tool_attach), to check the runtime refuses it.
// ACCEL_TEST_TOOL_REFUSE set in the environment makes accel_tool_attach answer 3.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "accel_abi/tool_interface.h"

namespace {

std::mutex g_mutex;
std::string g_calls;  // one line per call

}  // namespace

extern "C" {

// The calls so far, one per line: "attach <version>", "name_queue <device> <handle> <name>",
// "memory <device> <allocated> <reserved>", "enter_api <caller>", "leave_api". Valid until the next call of any function here.
__attribute__((visibility("default"))) const char* accel_test_tool_calls() {
  std::lock_guard lock(g_mutex);
  static thread_local std::string copy;
  copy = g_calls;
  return copy.c_str();
}

#ifndef ACCEL_TEST_NOT_A_TOOL
__attribute__((visibility("default"))) int accel_tool_attach(unsigned version) {
  std::lock_guard lock(g_mutex);
  g_calls += "attach " + std::to_string(version) + "\n";
  return std::getenv("ACCEL_TEST_TOOL_REFUSE") != nullptr ? 3 : 0;
}

__attribute__((visibility("default"))) void accel_tool_name_queue(const char* device,
                                                                  const void* native_queue,
                                                                  const char* name) {
  char handle[32];
  std::snprintf(handle, sizeof handle, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(native_queue)));
  std::lock_guard lock(g_mutex);
  g_calls += std::string("name_queue ") + device + " " + handle + " " + name + "\n";
}

__attribute__((visibility("default"))) void accel_tool_memory(const char* device,
                                                              long long allocated_bytes,
                                                              long long reserved_bytes) {
  std::lock_guard lock(g_mutex);
  g_calls += std::string("memory ") + device + " " + std::to_string(allocated_bytes) + " " +
             std::to_string(reserved_bytes) + "\n";
}
__attribute__((visibility("default"))) void accel_tool_enter_api(const void* caller) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(caller)));
  std::lock_guard lock(g_mutex);
  g_calls += std::string("enter_api ") + text + "\n";
}

__attribute__((visibility("default"))) void accel_tool_leave_api() {
  std::lock_guard lock(g_mutex);
  g_calls += "leave_api\n";
}
#endif
}
