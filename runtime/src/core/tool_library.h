#pragma once
// The runtime's side of the tool interface (Note [The tool interface] in
// accel_abi/tool_interface.h): loading the library ACCEL_TOOL_LIBRARY names, once per
// process, and the hooks it exports. The core calls the hooks where the runtime learns what
// a tool cannot see: StreamPools names each queue it creates, CachingAllocator reports its
// bytes after each call that may change them.
//
// Loading happens at the runtime's initialisation (ensure_initialized), before the driver is
// touched, so every queue the runtime creates is named. The library stays loaded for the
// life of the process (a tool may be called from any thread until exit, and a forked child
// inherits it). Thread-safe: the first call loads, every later call returns the same answer.

#include <atomic>
#include <string>

#include "accel_abi/tool_interface.h"
#include "accel_common/environment_variables.h"
#include "spi/status.h"

namespace accel::detail {

inline constexpr const char* kToolLibraryVariable =
    ::accel::common::environment_variable_name("ACCEL_TOOL_LIBRARY");

// The hooks of the attached tool; null members are the ones it does not export. Both null
// when no tool is set.
struct ToolHooks {
  accel_tool_name_queue_fn name_queue = nullptr;
  accel_tool_memory_fn memory = nullptr;
  accel_tool_enter_api_fn enter_api = nullptr;  // with leave_api, or neither (both looked up)
  accel_tool_leave_api_fn leave_api = nullptr;
  bool attached() const noexcept {
    return name_queue != nullptr || memory != nullptr || enter_api != nullptr;
  }
};

// The tool ACCEL_TOOL_LIBRARY names, loaded and attached on the first call (unset or empty:
// no tool, empty hooks). kConfig, the same on every call, when it cannot be used:
//   "ACCEL_TOOL_LIBRARY='<path>': cannot load the tool library: <dlerror>"
//   "ACCEL_TOOL_LIBRARY='<path>': not a tool library (no accel_tool_attach)"
//   "ACCEL_TOOL_LIBRARY='<path>': the tool refused interface version 1 (accel_tool_attach
//    returned <n>)"
Result<const ToolHooks*> tool_hooks_from_environment();

// Loads and attaches `path` (no caching): the function behind the one above, for tests.
Result<ToolHooks> load_tool_library(const std::string& path);

namespace tool_detail {
// The attached tool's enter/leave hooks once initialisation attached one (null before and
// without a tool), and this thread's depth of runtime calls inside a ToolApiScope.
extern constinit std::atomic<const ToolHooks*> g_api_tool;
extern constinit thread_local int t_api_depth;
}  // namespace tool_detail

// Publishes `tool` for ToolApiScope (ensure_initialized, once attached).
void publish_api_tool(const ToolHooks* tool) noexcept;

// Around a public runtime call that queues device work: tells the tool the caller's return
// address on entry and that the call ended on exit (accel_tool_enter_api/leave_api), the
// outermost call on the thread only. One atomic load when no tool is attached.
class ToolApiScope {
 public:
  explicit ToolApiScope(const void* caller) noexcept {
    const ToolHooks* tool = tool_detail::g_api_tool.load(std::memory_order_acquire);
    if (tool == nullptr) [[likely]]
      return;
    counted_ = true;
    if (tool_detail::t_api_depth++ == 0) {
      outermost_ = tool;
      tool->enter_api(caller);
    }
  }
  ~ToolApiScope() {
    if (!counted_) return;
    --tool_detail::t_api_depth;
    if (outermost_ != nullptr) outermost_->leave_api();
  }
  ToolApiScope(const ToolApiScope&) = delete;
  ToolApiScope& operator=(const ToolApiScope&) = delete;

 private:
  bool counted_ = false;
  const ToolHooks* outermost_ = nullptr;
};

}  // namespace accel::detail
