// Where a Level Zero program made its objects, and which are still live: the leak report's
// view of the Level Zero driver (Note [Leak report] in core/leak_report.h; contracts in
// ze_objects.h).

#include <dlfcn.h>
#include <execinfo.h>

#include <cstring>
#include <string>
#include <string_view>

#include "core/leak_report.h"
#include "level_zero/ze_objects.h"

namespace mockdev::level_zero {
namespace {

// Whether a frame in `object` belongs to the Level Zero stack below the program: this very
// library (libmockdev), or a file named libze_* (the loader, its validation and tracing
// layers, the mock's own driver file).
bool below_the_program(const char* object, const char* self) {
  if (object == nullptr) return true;
  if (self != nullptr && std::strcmp(object, self) == 0) return true;
  std::string_view name(object);
  if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) {
    name.remove_prefix(slash + 1);
  }
  return name.starts_with("libze_");
}

std::string_view kind_name(HandleKind kind) {
  switch (kind) {
    case HandleKind::kContext:
      return "Level Zero context";
    case HandleKind::kCommandList:
      return "Level Zero command list";
    case HandleKind::kCommandQueue:
      return "Level Zero command queue";
    case HandleKind::kEventPool:
      return "Level Zero event pool";
    case HandleKind::kEvent:
      return "Level Zero event";
    case HandleKind::kPhysicalMem:
      return "Level Zero physical memory";
    case HandleKind::kFence:
      return "Level Zero fence";
    case HandleKind::kModule:
      return "Level Zero module";
    case HandleKind::kBuildLog:
      return "Level Zero module build log";
    case HandleKind::kKernel:
      return "Level Zero kernel";
  }
  return "Level Zero object";
}

std::string_view memory_name(MemKind kind) {
  switch (kind) {
    case MemKind::kDevice:
      return "Level Zero device memory";
    case MemKind::kHost:
      return "Level Zero host memory";
    case MemKind::kShared:
      return "Level Zero shared memory";
  }
  return "Level Zero memory";
}

// "device 0" for a card by its position among the Intel devices, "device 0 tile 1" for a
// tile; "" for memory no device owns.
std::string device_text(const ZeDevice* device) {
  if (device == nullptr) return "";
  std::string text = "device " + std::to_string(device->card_ordinal);
  if (device->tile >= 0) text += " tile " + std::to_string(device->tile);
  return text;
}

}  // namespace

const void* program_call_site() {
  if (core::leak_policy() == core::LeakPolicy::kOff) return nullptr;
  constexpr int kMaxFrames = 32;
  void* frames[kMaxFrames];
  const int count = backtrace(frames, kMaxFrames);
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&program_call_site), &self) == 0)
    self.dli_fname = nullptr;
  for (int i = 1; i < count; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) == 0) continue;
    if (below_the_program(info.dli_fname, self.dli_fname)) continue;
    return frames[i];
  }
  return nullptr;
}

void list_live_objects(core::LiveObjects& out) {
  ObjectsState& o = objects();
  for (const auto& [handle, kind] : o.kinds) {
    auto caller = o.callers.find(handle);
    out.push_back({std::string(kind_name(kind)), "", 0,
                   caller == o.callers.end() ? nullptr : caller->second});
  }
  for (const _ze_context_handle_t* context : o.contexts) {
    for (const auto& [address, a] : context->allocations) {
      if (a.module_global) continue;  // its module's: freed with it
      out.push_back({std::string(memory_name(a.kind)), device_text(a.device), a.bytes, a.caller});
    }
  }
}

}  // namespace mockdev::level_zero
