// Where a Level Zero program made its objects, and which are still live: the leak report's
// view of the Level Zero driver (Note [Leak report] in core/leak_report.h; contracts in
// ze_objects.h).

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

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

// The address ranges of the objects below the program (this library and every libze_*
// file), read once from the loaded objects' program headers: the loader and its layers are
// loaded before any call can reach the driver. A frame is then classified by comparing its
// address, with no dladdr per frame on the path that runs at every enqueue.
struct Range {
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
};

const std::vector<Range>& ranges_below_the_program() {
  static const std::vector<Range> ranges = [] {
    std::vector<Range> out;
    Dl_info self{};
    if (dladdr(reinterpret_cast<const void*>(&ranges_below_the_program), &self) == 0)
      self.dli_fname = nullptr;
    struct Walk {
      std::vector<Range>* out;
      const char* self;
    } walk{&out, self.dli_fname};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) -> int {
          auto* w = static_cast<Walk*>(data);
          const char* name = info->dlpi_name != nullptr && info->dlpi_name[0] != '\0'
                                 ? info->dlpi_name
                                 : nullptr;
          if (name == nullptr || !below_the_program(name, w->self)) return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& h = info->dlpi_phdr[i];
            if (h.p_type != PT_LOAD) continue;
            const std::uintptr_t begin = info->dlpi_addr + h.p_vaddr;
            w->out->push_back({begin, begin + h.p_memsz});
          }
          return 0;
        },
        &walk);
    return out;
  }();
  return ranges;
}

bool is_below_the_program(const void* frame) {
  const auto address = reinterpret_cast<std::uintptr_t>(frame);
  for (const Range& r : ranges_below_the_program()) {
    if (address >= r.begin && address < r.end) return true;
  }
  return false;
}

// The first frame of this thread's stack outside the objects below the program.
const void* unwound_program_caller() {
  constexpr int kMaxFrames = 32;
  void* frames[kMaxFrames];
  const int count = backtrace(frames, kMaxFrames);
  for (int i = 1; i < count; ++i) {
    if (!is_below_the_program(frames[i])) return frames[i];
  }
  return nullptr;
}

}  // namespace

const void* program_call_site() {
  if (core::leak_policy() == core::LeakPolicy::kOff) return nullptr;
  return unwound_program_caller();
}

bool enqueues_work(std::string_view entry_point) {
  return entry_point.starts_with("zeCommandListAppend") ||
         entry_point == "zeCommandQueueExecuteCommandLists";
}

const void* enqueue_call_site() { return unwound_program_caller(); }

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
