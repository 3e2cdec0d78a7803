// Loading the tool library: tool_library.h.
#include "core/tool_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>

namespace accel::detail {
namespace {

Status tool_error(const std::string& path, const std::string& why) {
  return Status(ErrorKind::kConfig,
                std::string(kToolLibraryVariable) + "='" + path + "': " + why);
}

}  // namespace

Result<ToolHooks> load_tool_library(const std::string& path) {
  try {
    // RTLD_LOCAL: the tool's symbols never stand in for the program's. A library already
    // loaded (the one behind a simulated driver) is the same instance.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return tool_error(path, std::string("cannot load the tool library: ") +
                                  (why != nullptr ? why : "unknown error"));
    }
    auto attach = reinterpret_cast<accel_tool_attach_fn>(dlsym(handle, "accel_tool_attach"));
    if (attach == nullptr) {
      dlclose(handle);
      return tool_error(path, "not a tool library (no accel_tool_attach)");
    }
    if (const int answer = attach(ACCEL_TOOL_INTERFACE_VERSION); answer != 0) {
      dlclose(handle);
      return tool_error(path, "the tool refused interface version " +
                                  std::to_string(ACCEL_TOOL_INTERFACE_VERSION) +
                                  " (accel_tool_attach returned " + std::to_string(answer) +
                                  ")");
    }
    // Attached: kept loaded for the life of the process.
    ToolHooks hooks;
    hooks.name_queue =
        reinterpret_cast<accel_tool_name_queue_fn>(dlsym(handle, "accel_tool_name_queue"));
    hooks.memory = reinterpret_cast<accel_tool_memory_fn>(dlsym(handle, "accel_tool_memory"));
    hooks.enter_api =
        reinterpret_cast<accel_tool_enter_api_fn>(dlsym(handle, "accel_tool_enter_api"));
    hooks.leave_api =
        reinterpret_cast<accel_tool_leave_api_fn>(dlsym(handle, "accel_tool_leave_api"));
    // The pair or neither: an enter without its leave would attribute later calls wrongly.
    if (hooks.enter_api == nullptr || hooks.leave_api == nullptr) {
      hooks.enter_api = nullptr;
      hooks.leave_api = nullptr;
    }
    return hooks;
  } catch (...) {
    return host_out_of_memory();
  }
}

namespace tool_detail {
constinit std::atomic<const ToolHooks*> g_api_tool{nullptr};
constinit thread_local int t_api_depth = 0;
}  // namespace tool_detail

void publish_api_tool(const ToolHooks* tool) noexcept {
  if (tool != nullptr && tool->enter_api != nullptr) {
    tool_detail::g_api_tool.store(tool, std::memory_order_release);
  }
}

Result<const ToolHooks*> tool_hooks_from_environment() {
  static std::once_flag once;
  static std::optional<Result<ToolHooks>> loaded;
  std::call_once(once, [] {
    const char* path = std::getenv(kToolLibraryVariable);
    if (path == nullptr || *path == '\0') {
      loaded.emplace(ToolHooks{});
    } else {
      loaded.emplace(load_tool_library(path));
    }
  });
  if (!loaded->ok()) return loaded->status();
  return &loaded->value();
}

}  // namespace accel::detail
