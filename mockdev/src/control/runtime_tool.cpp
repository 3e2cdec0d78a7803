// libmockdev.so as the runtime's tool (Note [The tool interface] in
// accel_abi/tool_interface.h): with ACCEL_TOOL_LIBRARY naming this library, the runtime tells
// the simulated hardware its names for the driver's queues and its caching allocator's bytes,
// which race reports and the trace then show (Note [Runtime names] in core/runtime_tool.h).
// The library is the one already loaded behind the simulated driver, so the calls reach the
// same engine. C linkage and default visibility (libmockdev.so exports its symbols; nm -D
// lists these five). Each call takes the engine lock, catches everything, and does nothing
// before the engine started or for a queue handle the mock did not hand out.

#include <type_traits>

#include "accel_abi/tool_interface.h"
#include "core/engine.h"
#include "core/race_call_site.h"
#include "core/runtime_tool.h"

extern "C" {

__attribute__((visibility("default"))) int accel_tool_attach(unsigned interface_version) {
  return interface_version == ACCEL_TOOL_INTERFACE_VERSION ? 0 : 1;
}

__attribute__((visibility("default"))) void accel_tool_name_queue(const char* device,
                                                                  const void* native_queue,
                                                                  const char* name) {
  (void)device;  // the handle alone says which queue; the name says the runtime's device
  if (name == nullptr) return;
  try {
    mockdev::core::EngineLock lock;
    if (!mockdev::core::engine_started()) return;
    if (auto queue = mockdev::core::queue_of_native_handle(native_queue)) {
      mockdev::core::name_queue(*queue, name);
    }
  } catch (...) {  // never across the C boundary; a lost name costs only a label
  }
}

__attribute__((visibility("default"))) void accel_tool_memory(const char* device,
                                                              long long allocated_bytes,
                                                              long long reserved_bytes) {
  if (device == nullptr) return;
  try {
    mockdev::core::EngineLock lock;
    if (!mockdev::core::engine_started()) return;
    mockdev::core::note_runtime_memory(device, allocated_bytes, reserved_bytes);
  } catch (...) {
  }
}

// Around a runtime call that queues work: the program's return address, which the driver
// calls made meanwhile on this thread carry as their call site (Note [Call sites of
// operations] in core/race_call_site.h). Thread-local, no lock.
__attribute__((visibility("default"))) void accel_tool_enter_api(const void* caller) {
  mockdev::core::detail::t_api_caller = caller;
}

__attribute__((visibility("default"))) void accel_tool_leave_api() {
  mockdev::core::detail::t_api_caller = nullptr;
}

}  // extern "C"

// The definitions have the interface's types exactly.
static_assert(std::is_same_v<decltype(&accel_tool_attach), accel_tool_attach_fn>);
static_assert(std::is_same_v<decltype(&accel_tool_name_queue), accel_tool_name_queue_fn>);
static_assert(std::is_same_v<decltype(&accel_tool_memory), accel_tool_memory_fn>);
static_assert(std::is_same_v<decltype(&accel_tool_enter_api), accel_tool_enter_api_fn>);
static_assert(std::is_same_v<decltype(&accel_tool_leave_api), accel_tool_leave_api_fn>);
