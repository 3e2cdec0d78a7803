// Command lists and command queues of the mock Level Zero driver (zeCommandListCreate*,
// zeCommandQueueCreate, the appends): creation and validation, the appends the runtime and the
// clients use, and regular lists executed on command queues. Submission is ze_submit.cpp's (Note
// [Level Zero streams] in ze_objects.h).
//
// Queue groups: ordinal 0 = COMPUTE | COPY with `compute_queues` engines and any
// fill pattern size; ordinal 1 = COPY with `copy_queues` engines and patterns up to
// `copy_fill_pattern_limit` bytes. Each immediate list and each command queue is its own
// engine queue [inferred: lists sharing an (ordinal, index) are not serialised with each
// other].

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "core/engine.h"
#include "level_zero/ze_kernels.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

// ZE_COMMAND_QUEUE_FLAG_IN_ORDER (0x2) and ZE_COMMAND_LIST_FLAG_IN_ORDER (0x8) arrived with
// 1.7; the 1.4 headers lack them, but a newer runtime sets them, so they are
// accepted here as a newer driver would.
constexpr ze_command_queue_flags_t kQueueInOrder = 0x2;
constexpr ze_command_queue_flags_t kQueueKnownFlags = 0x7;  // + COPY_OFFLOAD_HINT 0x4
constexpr ze_command_list_flags_t kListInOrder = 0x8;
constexpr ze_command_list_flags_t kListKnownFlags = 0xf;

struct Group {
  std::uint32_t queues = 0;
  std::uint64_t pattern_limit = 0;
};

// The queue group `ordinal` of the device, or false when there is none.
bool group_of(const ZeDevice& device, std::uint32_t ordinal, Group* out) MOCKDEV_ZE_LOCKED {
  const LevelZeroDeviceSpec& spec =
      core::engine().machine.devices.at(static_cast<std::size_t>(device.card)).level_zero;
  if (ordinal == 0) {
    *out = Group{static_cast<std::uint32_t>(spec.compute_queues), UINT64_MAX};
    return true;
  }
  if (ordinal == 1) {
    *out = Group{static_cast<std::uint32_t>(spec.copy_queues), spec.copy_fill_pattern_limit};
    return true;
  }
  return false;
}

std::string device_label(const ZeDevice& device) {
  std::string label = "ze dev" + std::to_string(device.card);
  if (device.tile >= 0) label += "." + std::to_string(device.tile);
  return label;
}

// ze_command_queue_desc_t checks shared by immediate lists and command queues.
ze_result_t check_queue_desc(const ZeDevice& device, const ze_command_queue_desc_t& desc,
                             Group* group) MOCKDEV_ZE_LOCKED {
  if ((desc.flags & ~kQueueKnownFlags) != 0 || desc.mode > ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS ||
      desc.priority > ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH) {
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  }
  if (!group_of(device, desc.ordinal, group)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  if (desc.index >= group->queues) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  return ZE_RESULT_SUCCESS;
}

// `handle`: the program's handle of the list or queue, naming it in race reports and the
// trace ("ze_command_list_handle_t 0x...").
void init_stream(Stream& s, ZeDevice* device, const ze_command_queue_desc_t& desc,
                 const std::string& what, const char* handle_type,
                 const void* handle) MOCKDEV_ZE_LOCKED {
  s.device = device;
  s.card = device->card;
  s.in_order = (desc.flags & kQueueInOrder) != 0;
  s.synchronous = desc.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;  // DEFAULT is async
  char handle_text[96];
  std::snprintf(handle_text, sizeof handle_text, "%s %p", handle_type, handle);
  s.queue = core::create_queue(device->card,
                               device_label(*device) + "/" + what + " (ordinal " +
                                   std::to_string(desc.ordinal) + ", index " +
                                   std::to_string(desc.index) + ")",
                               handle_text);
}

ze_result_t zeCommandListCreateImmediate(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                         const ze_command_queue_desc_t* desc,
                                         ze_command_list_handle_t* out) {
  return call("zeCommandListCreateImmediate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
    ZeDevice* device = core_device(hdevice);
    if (context == nullptr || device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    Group group;
    if (ze_result_t r = check_queue_desc(*device, *desc, &group); r != ZE_RESULT_SUCCESS) return r;
    auto* list = new _ze_command_list_handle_t();
    list->context = context;
    list->immediate = true;
    list->ordinal = desc->ordinal;
    list->fill_pattern_limit = group.pattern_limit;
    init_stream(list->stream, device, *desc, "immediate list", "ze_command_list_handle_t", list);
    add_child(context, list, HandleKind::kCommandList);
    *out = list;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListCreate(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                const ze_command_list_desc_t* desc, ze_command_list_handle_t* out) {
  return call("zeCommandListCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
    ZeDevice* device = core_device(hdevice);
    if (context == nullptr || device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((desc->flags & ~kListKnownFlags) != 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    Group group;
    if (!group_of(*device, desc->commandQueueGroupOrdinal, &group)) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    auto* list = new _ze_command_list_handle_t();
    list->context = context;
    list->ordinal = desc->commandQueueGroupOrdinal;
    list->fill_pattern_limit = group.pattern_limit;
    list->in_order = (desc->flags & kListInOrder) != 0;
    list->stream.device = device;
    list->stream.card = device->card;
    add_child(context, list, HandleKind::kCommandList);
    *out = list;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListDestroy(ze_command_list_handle_t handle) {
  return call("zeCommandListDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_list_handle_t* list = find_handle(handle, HandleKind::kCommandList);
    if (list == nullptr) {
      return destroy_orphan(handle, HandleKind::kCommandList) ? ZE_RESULT_SUCCESS
                                                              : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    remove_child(list->context, list);
    destroy_list(list);
    return ZE_RESULT_SUCCESS;
  });
}

// Close and reset are honoured on immediate lists too, where they change nothing.
ze_result_t zeCommandListClose(ze_command_list_handle_t handle) {
  return call("zeCommandListClose", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_list_handle_t* list = find_handle(handle, HandleKind::kCommandList);
    if (list == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!list->immediate) list->closed = true;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandListReset(ze_command_list_handle_t handle) {
  return call("zeCommandListReset", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_list_handle_t* list = find_handle(handle, HandleKind::kCommandList);
    if (list == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    list->recorded.clear();
    list->closed = false;
    return ZE_RESULT_SUCCESS;
  });
}

// The checks every append shares, then the command is submitted (immediate) or
// recorded (regular). `build` fills the command-specific part or returns an error.
template <typename Build>
ze_result_t append(EntryPoint name, ze_command_list_handle_t handle, ze_event_handle_t signal,
                   std::uint32_t wait_count, ze_event_handle_t* waits, Build&& build) {
  return call(name, CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_list_handle_t* list = find_handle(handle, HandleKind::kCommandList);
    if (list == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (wait_count > 0 && waits == nullptr) return ZE_RESULT_ERROR_INVALID_SIZE;
    Command command;
    command.name = name.c_str();
    for (std::uint32_t i = 0; i < wait_count; ++i) {
      _ze_event_handle_t* e = find_handle(waits[i], HandleKind::kEvent);
      if (e == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
      if (e->pool->context != list->context) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
      command.waits.push_back(e);
    }
    if (signal != nullptr) {
      _ze_event_handle_t* e = find_handle(signal, HandleKind::kEvent);
      if (e == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
      if (e->pool->context != list->context) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
      command.signal = e;
    }
    if (ze_result_t r = build(*list, command); r != ZE_RESULT_SUCCESS) return r;
    if (!list->immediate) {
      if (list->closed) return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // append after close
      list->recorded.push_back(std::move(command));
      return ZE_RESULT_SUCCESS;
    }
    ze_result_t code = ZE_RESULT_SUCCESS;
    submit(list->stream, command, &code);
    if (command.signal != nullptr || command.kind == CommandKind::kEventReset) flush_deferred();
    return code;
  });
}

ze_result_t zeCommandListAppendMemoryCopy(ze_command_list_handle_t handle, void* dst,
                                          const void* src, std::size_t size,
                                          ze_event_handle_t signal, std::uint32_t wait_count,
                                          ze_event_handle_t* waits) {
  return append("zeCommandListAppendMemoryCopy", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  if (dst == nullptr || src == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  c.kind = CommandKind::kCopy;
                  c.bytes = size;
                  if (!resolve_endpoint(*list.context, dst, size, &c.dst) ||
                      !resolve_endpoint(*list.context, src, size, &c.src)) {
                    return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // not memory of this context
                  }
                  return ZE_RESULT_SUCCESS;
                });
}

// The pattern size is a power of two no larger than the group's limit.
ze_result_t zeCommandListAppendMemoryFill(ze_command_list_handle_t handle, void* ptr,
                                          const void* pattern, std::size_t pattern_size,
                                          std::size_t size, ze_event_handle_t signal,
                                          std::uint32_t wait_count, ze_event_handle_t* waits) {
  return append("zeCommandListAppendMemoryFill", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  if (ptr == nullptr || pattern == nullptr) {
                    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  }
                  if (pattern_size == 0 || (pattern_size & (pattern_size - 1)) != 0 ||
                      pattern_size > list.fill_pattern_limit) {
                    return ZE_RESULT_ERROR_INVALID_SIZE;
                  }
                  c.kind = CommandKind::kFill;
                  c.bytes = size;
                  const auto* bytes = static_cast<const unsigned char*>(pattern);
                  c.pattern = std::make_shared<std::vector<unsigned char>>(bytes, bytes + pattern_size);
                  if (!resolve_endpoint(*list.context, ptr, size, &c.dst)) {
                    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                  }
                  return ZE_RESULT_SUCCESS;
                });
}

ze_result_t zeCommandListAppendBarrier(ze_command_list_handle_t handle, ze_event_handle_t signal,
                                       std::uint32_t wait_count, ze_event_handle_t* waits) {
  return append("zeCommandListAppendBarrier", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t&, Command& c) {
                  c.kind = CommandKind::kBarrier;
                  return ZE_RESULT_SUCCESS;
                });
}

ze_result_t zeCommandListAppendSignalEvent(ze_command_list_handle_t handle,
                                           ze_event_handle_t event) {
  return append("zeCommandListAppendSignalEvent", handle, event, 0, nullptr,
                [&](_ze_command_list_handle_t&, Command& c) {
                  if (c.signal == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                  c.kind = CommandKind::kSignal;
                  return ZE_RESULT_SUCCESS;
                });
}

// A null array is INVALID_NULL_POINTER here (not INVALID_SIZE as for the wait lists
// of other appends).
ze_result_t zeCommandListAppendWaitOnEvents(ze_command_list_handle_t handle, std::uint32_t count,
                                            ze_event_handle_t* events) {
  if (events == nullptr && count > 0) {
    return call("zeCommandListAppendWaitOnEvents", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
      return find_handle(handle, HandleKind::kCommandList) == nullptr
                 ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE
                 : ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    });
  }
  return append("zeCommandListAppendWaitOnEvents", handle, nullptr, count, events,
                [&](_ze_command_list_handle_t&, Command& c) {
                  c.kind = CommandKind::kWaitEvents;
                  return ZE_RESULT_SUCCESS;
                });
}

ze_result_t zeCommandListAppendEventReset(ze_command_list_handle_t handle,
                                          ze_event_handle_t event) {
  return append("zeCommandListAppendEventReset", handle, nullptr, 0, nullptr,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  _ze_event_handle_t* e = find_handle(event, HandleKind::kEvent);
                  if (e == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                  if (e->pool->context != list.context) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                  c.kind = CommandKind::kEventReset;
                  c.target = e;
                  return ZE_RESULT_SUCCESS;
                });
}

// 8 bytes of device-accessible memory, 8-byte aligned.
ze_result_t zeCommandListAppendWriteGlobalTimestamp(ze_command_list_handle_t handle,
                                                    std::uint64_t* dst, ze_event_handle_t signal,
                                                    std::uint32_t wait_count,
                                                    ze_event_handle_t* waits) {
  return append("zeCommandListAppendWriteGlobalTimestamp", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  if (dst == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  if (reinterpret_cast<std::uintptr_t>(dst) % 8 != 0) {
                    return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
                  }
                  c.kind = CommandKind::kTimestamp;
                  c.bytes = 8;
                  if (!resolve_endpoint(*list.context, dst, 8, &c.dst)) {
                    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                  }
                  return ZE_RESULT_SUCCESS;
                });
}

// A memory ranges barrier orders like a barrier: without wait events everything appended
// before it completes first, and everything after waits for it (the ranges only narrow which
// writes become visible, which the mock does not model).
ze_result_t zeCommandListAppendMemoryRangesBarrier(ze_command_list_handle_t handle,
                                                   std::uint32_t range_count,
                                                   const std::size_t* range_sizes,
                                                   const void** ranges, ze_event_handle_t signal,
                                                   std::uint32_t wait_count,
                                                   ze_event_handle_t* waits) {
  return append("zeCommandListAppendMemoryRangesBarrier", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t&, Command& c) {
                  (void)range_count;
                  if (range_sizes == nullptr || ranges == nullptr) {
                    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  }
                  c.kind = CommandKind::kBarrier;
                  return ZE_RESULT_SUCCESS;
                });
}

// One side of a region copy: the offset of its first row from `base`, or false when rows or
// slices of the box would overlap one another [inferred: the specification gives no code;
// INVALID_ARGUMENT, as for memory outside the context].
bool first_row(const ze_copy_region_t& r, const RegionBox& box, std::uint64_t pitch,
               std::uint64_t slice_pitch, std::uint64_t* offset) {
  if (box.height > 1 && std::uint64_t{r.originX} + box.width > pitch) return false;
  if (box.depth > 1 && box.height > 0 &&
      (std::uint64_t{r.originY} + box.height - 1) * pitch + r.originX + box.width > slice_pitch) {
    return false;
  }
  const std::uint64_t z = r.depth == 0 ? 0 : r.originZ;  // a 2D copy ignores the slices
  *offset = z * slice_pitch + std::uint64_t{r.originY} * pitch + r.originX;
  return true;
}

// Whether any row of the destination shares a byte with any row of the source. Rows of each
// side are disjoint and ascending (first_row), so one merge walk decides.
bool rows_overlap(const RegionBox& box, std::uint64_t dst, std::uint64_t src) {
  const std::uint64_t dst_end =
      dst + (box.depth - 1) * box.dst_slice_pitch + (box.height - 1) * box.dst_pitch + box.width;
  const std::uint64_t src_end =
      src + (box.depth - 1) * box.src_slice_pitch + (box.height - 1) * box.src_pitch + box.width;
  if (dst_end <= src || src_end <= dst) return false;
  std::uint64_t di = 0, si = 0;
  const std::uint64_t rows = box.height * box.depth;
  auto row = [&](std::uint64_t base, std::uint64_t i, std::uint64_t pitch, std::uint64_t slice) {
    return base + (i / box.height) * slice + (i % box.height) * pitch;
  };
  while (di < rows && si < rows) {
    const std::uint64_t d = row(dst, di, box.dst_pitch, box.dst_slice_pitch);
    const std::uint64_t r = row(src, si, box.src_pitch, box.src_slice_pitch);
    if (d < r + box.width && r < d + box.width) return true;
    if (d < r) {
      ++di;
    } else {
      ++si;
    }
  }
  return false;
}

// Regions of equal width, height and depth (depth 0: a 2D copy); each side's rows lie in
// memory of the list's context (or plain host memory); the two boxes may not share a byte
// (OVERLAPPING_REGIONS).
ze_result_t zeCommandListAppendMemoryCopyRegion(
    ze_command_list_handle_t handle, void* dst, const ze_copy_region_t* dst_region,
    std::uint32_t dst_pitch, std::uint32_t dst_slice_pitch, const void* src,
    const ze_copy_region_t* src_region, std::uint32_t src_pitch, std::uint32_t src_slice_pitch,
    ze_event_handle_t signal, std::uint32_t wait_count, ze_event_handle_t* waits) {
  return append(
      "zeCommandListAppendMemoryCopyRegion", handle, signal, wait_count, waits,
      [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
        if (dst == nullptr || src == nullptr || dst_region == nullptr || src_region == nullptr) {
          return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
        }
        if (dst_region->width != src_region->width || dst_region->height != src_region->height ||
            dst_region->depth != src_region->depth) {
          return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // [inferred] "must be same"
        }
        auto box = std::make_shared<RegionBox>();
        box->width = src_region->width;
        box->height = src_region->height;
        box->depth = src_region->depth == 0 ? 1 : src_region->depth;
        const bool three_d = src_region->depth != 0;
        box->dst_pitch = dst_pitch;
        box->src_pitch = src_pitch;
        box->dst_slice_pitch = three_d ? dst_slice_pitch : 0;
        box->src_slice_pitch = three_d ? src_slice_pitch : 0;
        std::uint64_t dst_first = 0, src_first = 0;
        if (!first_row(*dst_region, *box, box->dst_pitch, box->dst_slice_pitch, &dst_first) ||
            !first_row(*src_region, *box, box->src_pitch, box->src_slice_pitch, &src_first)) {
          return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        }
        const std::uint64_t dst_address = reinterpret_cast<std::uintptr_t>(dst) + dst_first;
        const std::uint64_t src_address = reinterpret_cast<std::uintptr_t>(src) + src_first;
        std::uint64_t dst_extent = 0, src_extent = 0;
        if (box->bytes() != 0) {
          dst_extent = (box->depth - 1) * box->dst_slice_pitch +
                       (box->height - 1) * box->dst_pitch + box->width;
          src_extent = (box->depth - 1) * box->src_slice_pitch +
                       (box->height - 1) * box->src_pitch + box->width;
          if (rows_overlap(*box, dst_address, src_address)) {
            return ZE_RESULT_ERROR_OVERLAPPING_REGIONS;
          }
        }
        if (!resolve_endpoint(*list.context, reinterpret_cast<const void*>(dst_address), dst_extent,
                              &c.dst) ||
            !resolve_endpoint(*list.context, reinterpret_cast<const void*>(src_address), src_extent,
                              &c.src)) {
          return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // not memory of this context
        }
        c.kind = CommandKind::kRegionCopy;
        c.bytes = box->bytes();
        c.region = std::move(box);
        return ZE_RESULT_SUCCESS;
      });
}

// The source is memory of `hcontext_src` (or plain host memory), the destination memory of
// the list's context; otherwise as zeCommandListAppendMemoryCopy.
ze_result_t zeCommandListAppendMemoryCopyFromContext(ze_command_list_handle_t handle, void* dst,
                                                     ze_context_handle_t hcontext_src,
                                                     const void* src, std::size_t size,
                                                     ze_event_handle_t signal,
                                                     std::uint32_t wait_count,
                                                     ze_event_handle_t* waits) {
  return append("zeCommandListAppendMemoryCopyFromContext", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  _ze_context_handle_t* source = find_handle(hcontext_src, HandleKind::kContext);
                  if (source == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                  if (dst == nullptr || src == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  c.kind = CommandKind::kCopy;
                  c.bytes = size;
                  if (!resolve_endpoint(*list.context, dst, size, &c.dst) ||
                      !resolve_endpoint(*source, src, size, &c.src)) {
                    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                  }
                  return ZE_RESULT_SUCCESS;
                });
}

// Prefetch and advice are hints: any allocation of the list's context takes them (an ordering-only
// operation; the mock moves no pages). A pointer in no allocation, plain host memory included,
// is INVALID_ARGUMENT: the devices report no shared-system allocations
// (sharedSystemAllocCapabilities 0), and that is Intel's answer without them.
bool in_allocation(const _ze_command_list_handle_t& list, const void* ptr) MOCKDEV_ZE_LOCKED {
  return containing_allocation(*list.context, reinterpret_cast<std::uintptr_t>(ptr), 1, nullptr) !=
         nullptr;
}

ze_result_t zeCommandListAppendMemoryPrefetch(ze_command_list_handle_t handle, const void* ptr,
                                              std::size_t size) {
  return append("zeCommandListAppendMemoryPrefetch", handle, nullptr, 0, nullptr,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  (void)size;
                  if (ptr == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  if (!in_allocation(list, ptr)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                  c.kind = CommandKind::kHint;
                  return ZE_RESULT_SUCCESS;
                });
}

ze_result_t zeCommandListAppendMemAdvise(ze_command_list_handle_t handle,
                                         ze_device_handle_t hdevice, const void* ptr,
                                         std::size_t size, ze_memory_advice_t advice) {
  return append("zeCommandListAppendMemAdvise", handle, nullptr, 0, nullptr,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  (void)size;
                  if (core_device(hdevice) == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                  if (ptr == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  if (advice > ZE_MEMORY_ADVICE_BIAS_UNCACHED) {
                    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
                  }
                  if (!in_allocation(list, ptr)) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                  c.kind = CommandKind::kHint;
                  return ZE_RESULT_SUCCESS;
                });
}

// One ze_kernel_timestamp_result_t per event, at dst + offsets[i] or packed in event order; the
// events must be of the list's context. Written when the command runs: an event not signalled
// by then leaves its result as it was (the specification: undefined).
ze_result_t zeCommandListAppendQueryKernelTimestamps(ze_command_list_handle_t handle,
                                                     std::uint32_t count, ze_event_handle_t* events,
                                                     void* dst, const std::size_t* offsets,
                                                     ze_event_handle_t signal,
                                                     std::uint32_t wait_count,
                                                     ze_event_handle_t* waits) {
  return append("zeCommandListAppendQueryKernelTimestamps", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  if (events == nullptr || dst == nullptr)
                    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  auto query = std::make_shared<TimestampQuery>();
                  constexpr std::uint64_t kResult = sizeof(ze_kernel_timestamp_result_t);
                  for (std::uint32_t i = 0; i < count; ++i) {
                    _ze_event_handle_t* e = find_handle(events[i], HandleKind::kEvent);
                    if (e == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                    if (e->pool->context != list.context) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                    const std::uint64_t offset = offsets != nullptr ? offsets[i] : i * kResult;
                    Endpoint where;
                    const auto address = reinterpret_cast<std::uintptr_t>(dst) + offset;
                    if (!resolve_endpoint(*list.context, reinterpret_cast<const void*>(address),
                                          kResult, &where)) {
                      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
                    }
                    query->events.push_back(e);
                    query->destinations.push_back(where);
                  }
                  c.kind = count == 0 ? CommandKind::kHint : CommandKind::kQueryTimestamps;
                  c.query = std::move(query);
                  return ZE_RESULT_SUCCESS;
                });
}

// Launches (Note [Level Zero launches] in ze_kernels.h; checks in ze_launch.cpp).
ze_result_t zeCommandListAppendLaunchKernel(ze_command_list_handle_t handle,
                                            ze_kernel_handle_t hkernel,
                                            const ze_group_count_t* counts,
                                            ze_event_handle_t signal, std::uint32_t wait_count,
                                            ze_event_handle_t* waits) {
  return append("zeCommandListAppendLaunchKernel", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  _ze_kernel_handle_t* kernel = find_handle(hkernel, HandleKind::kKernel);
                  if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                  if (counts == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  return build_launch(list, {kernel}, counts, c);
                });
}

// The group counts (and the kernel count) are read from memory of the list's context when the
// command runs: they must lie in it (INVALID_ARGUMENT otherwise, as for a copy).
ze_result_t indirect_buffers(_ze_command_list_handle_t& list, Command& c, const void* counts,
                             std::size_t kernels, const std::uint32_t* count) MOCKDEV_ZE_LOCKED {
  auto job = std::const_pointer_cast<LaunchJob>(c.launch);
  job->indirect = true;
  if (!resolve_endpoint(*list.context, counts, kernels * sizeof(ze_group_count_t), &job->counts)) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  if (count != nullptr) {
    job->multiple = true;
    if (!resolve_endpoint(*list.context, count, sizeof *count, &job->count)) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeCommandListAppendLaunchKernelIndirect(
    ze_command_list_handle_t handle, ze_kernel_handle_t hkernel, const ze_group_count_t* counts,
    ze_event_handle_t signal, std::uint32_t wait_count, ze_event_handle_t* waits) {
  return append("zeCommandListAppendLaunchKernelIndirect", handle, signal, wait_count, waits,
                [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  _ze_kernel_handle_t* kernel = find_handle(hkernel, HandleKind::kKernel);
                  if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                  if (counts == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  if (ze_result_t r = build_launch(list, {kernel}, nullptr, c);
                      r != ZE_RESULT_SUCCESS) {
                    return r;
                  }
                  return indirect_buffers(list, c, counts, 1, nullptr);
                });
}

// Up to `kernel_count` kernels; how many run is the uint32_t at `count` when the command runs,
// each with its ze_group_count_t of the array at `counts`. One operation runs them in order.
ze_result_t zeCommandListAppendLaunchMultipleKernelsIndirect(
    ze_command_list_handle_t handle, std::uint32_t kernel_count, ze_kernel_handle_t* hkernels,
    const std::uint32_t* count, const ze_group_count_t* counts, ze_event_handle_t signal,
    std::uint32_t wait_count, ze_event_handle_t* waits) {
  return append("zeCommandListAppendLaunchMultipleKernelsIndirect", handle, signal, wait_count,
                waits, [&](_ze_command_list_handle_t& list, Command& c) MOCKDEV_ZE_LOCKED {
                  if (hkernels == nullptr || count == nullptr || counts == nullptr) {
                    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
                  }
                  std::vector<_ze_kernel_handle_t*> kernels;
                  for (std::uint32_t i = 0; i < kernel_count; ++i) {
                    _ze_kernel_handle_t* kernel = find_handle(hkernels[i], HandleKind::kKernel);
                    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
                    kernels.push_back(kernel);
                  }
                  if (ze_result_t r = build_launch(list, kernels, nullptr, c);
                      r != ZE_RESULT_SUCCESS) {
                    return r;
                  }
                  return indirect_buffers(list, c, counts, kernel_count, count);
                });
}

// Spec 1.6 (the CommandList table asked for at >= 1.6): waits on the host for everything
// appended to an immediate list, with the timeout rules of zeCommandQueueSynchronize (virtual
// time, Note [Level Zero virtual time]). A regular list has nothing submitted of its own (its
// work runs on the queues that execute it): ZE_RESULT_ERROR_INVALID_ARGUMENT [inferred: the
// specification says the call is for immediate lists only and lists no code for others].
ze_result_t zeCommandListHostSynchronize(ze_command_list_handle_t handle, std::uint64_t timeout) {
  return call("zeCommandListHostSynchronize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_list_handle_t* list = find_handle(handle, HandleKind::kCommandList);
    if (list == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!list->immediate) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    const Stream& s = list->stream;
    return timed_wait(s.issued, !s.deferred.empty(), timeout, s.card,
                      "zeCommandListHostSynchronize",
                      "an immediate command list with a deferred command");
  });
}

ze_result_t zeCommandQueueCreate(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                 const ze_command_queue_desc_t* desc,
                                 ze_command_queue_handle_t* out) {
  return call("zeCommandQueueCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
    ZeDevice* device = core_device(hdevice);
    if (context == nullptr || device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    Group group;
    if (ze_result_t r = check_queue_desc(*device, *desc, &group); r != ZE_RESULT_SUCCESS) return r;
    auto* queue = new _ze_command_queue_handle_t();
    queue->context = context;
    queue->ordinal = desc->ordinal;
    init_stream(queue->stream, device, *desc, "command queue", "ze_command_queue_handle_t", queue);
    add_child(context, queue, HandleKind::kCommandQueue);
    *out = queue;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandQueueDestroy(ze_command_queue_handle_t handle) {
  return call("zeCommandQueueDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_queue_handle_t* queue = find_handle(handle, HandleKind::kCommandQueue);
    if (queue == nullptr) {
      return destroy_orphan(handle, HandleKind::kCommandQueue)
                 ? ZE_RESULT_SUCCESS
                 : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    remove_child(queue->context, queue);
    destroy_queue(queue);
    return ZE_RESULT_SUCCESS;
  });
}

// Lists run in the order given, each after the previous one completed (a barrier
// between them), every command of a list as its flags order it. A fence is signalled when
// the last barrier completes (Note [Level Zero fences]); it must be one made on this queue
// [inferred: INVALID_ARGUMENT otherwise; the specification only says it must be].
ze_result_t zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t handle, std::uint32_t count,
                                              ze_command_list_handle_t* lists,
                                              ze_fence_handle_t hfence) {
  return call("zeCommandQueueExecuteCommandLists", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_queue_handle_t* queue = find_handle(handle, HandleKind::kCommandQueue);
    if (queue == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (lists == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (count == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    _ze_fence_handle_t* fence = nullptr;
    if (hfence != nullptr) {
      fence = find_handle(hfence, HandleKind::kFence);
      if (fence == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
      if (fence->queue != queue) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    std::vector<_ze_command_list_handle_t*> checked;
    for (std::uint32_t i = 0; i < count; ++i) {
      _ze_command_list_handle_t* list = find_handle(lists[i], HandleKind::kCommandList);
      if (list == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
      if (list->immediate || !list->closed || list->context != queue->context) {
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
      }
      if (list->ordinal != queue->ordinal) return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
      checked.push_back(list);
    }
    Stream& s = queue->stream;
    const bool queue_in_order = s.in_order;
    ze_result_t code = ZE_RESULT_SUCCESS;
    if (fence != nullptr) {
      fence->signalled = false;
      fence->awaited = ++fence->executions;
      fence->op = 0;
    }
    for (_ze_command_list_handle_t* list : checked) {
      s.in_order = queue_in_order || list->in_order;
      for (const Command& c : list->recorded) submit(s, c, &code);
      Command end;
      end.kind = CommandKind::kBarrier;
      end.name = "end of command list";
      if (fence != nullptr && list == checked.back()) {
        end.fence = fence;
        end.fence_submission = fence->awaited;
      }
      submit(s, end, &code);
    }
    s.in_order = queue_in_order;
    flush_deferred();
    return code;
  });
}

// The timeout semantics of host waits (Note [Level Zero virtual time]).
ze_result_t zeCommandQueueSynchronize(ze_command_queue_handle_t handle, std::uint64_t timeout) {
  return call("zeCommandQueueSynchronize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_queue_handle_t* queue = find_handle(handle, HandleKind::kCommandQueue);
    if (queue == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    const Stream& s = queue->stream;
    return timed_wait(s.issued, !s.deferred.empty(), timeout, s.card,
                      "zeCommandQueueSynchronize", "a command queue with a deferred command");
  });
}

}  // namespace

void destroy_list(_ze_command_list_handle_t* list) {
  if (list->immediate) core::destroy_queue(list->stream.queue);
  forget_stream(list->stream);
  list->stream.deferred.clear();
  list->recorded.clear();
  remove_handle(list);
}

void destroy_queue(_ze_command_queue_handle_t* queue) {
  for (_ze_fence_handle_t* fence : queue->fences) destroy_fence(fence);
  queue->fences.clear();
  core::destroy_queue(queue->stream.queue);
  forget_stream(queue->stream);
  queue->stream.deferred.clear();
  remove_handle(queue);
}

std::optional<std::uint64_t> queue_of_handle(const void* handle) {
  if (is_handle(handle, HandleKind::kCommandList)) {
    const auto* list = static_cast<const _ze_command_list_handle_t*>(handle);
    if (!list->immediate) return std::nullopt;  // a regular list runs on its queue's
    return list->stream.queue;
  }
  if (is_handle(handle, HandleKind::kCommandQueue)) {
    return static_cast<const _ze_command_queue_handle_t*>(handle)->stream.queue;
  }
  return std::nullopt;
}

MOCKDEV_ZE_FILL_FUNCTION(fill_command_list_table, ze_command_list_dditable_t,
                         ACCEL_ZE_COMMAND_LIST_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_command_queue_table, ze_command_queue_dditable_t,
                         ACCEL_ZE_COMMAND_QUEUE_ENTRY_POINTS)

}  // namespace mockdev::level_zero
