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

#include <string>

#include "core/engine.h"
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

void init_stream(Stream& s, ZeDevice* device, const ze_command_queue_desc_t& desc,
                 const std::string& what) MOCKDEV_ZE_LOCKED {
  s.device = device;
  s.card = device->card;
  s.in_order = (desc.flags & kQueueInOrder) != 0;
  s.synchronous = desc.mode == ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;  // DEFAULT is async
  s.queue = core::create_queue(device->card, device_label(*device) + "/" + what + " (ordinal " +
                                                 std::to_string(desc.ordinal) + ", index " +
                                                 std::to_string(desc.index) + ")");
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
    init_stream(list->stream, device, *desc, "immediate list");
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
    if (list == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
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
    init_stream(queue->stream, device, *desc, "command queue");
    add_child(context, queue, HandleKind::kCommandQueue);
    *out = queue;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeCommandQueueDestroy(ze_command_queue_handle_t handle) {
  return call("zeCommandQueueDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_queue_handle_t* queue = find_handle(handle, HandleKind::kCommandQueue);
    if (queue == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    remove_child(queue->context, queue);
    destroy_queue(queue);
    return ZE_RESULT_SUCCESS;
  });
}

// Lists run in the order given, each after the previous one completed (a barrier
// between them), every command of a list as its flags order it. Fences are not modelled.
ze_result_t zeCommandQueueExecuteCommandLists(ze_command_queue_handle_t handle, std::uint32_t count,
                                              ze_command_list_handle_t* lists,
                                              ze_fence_handle_t fence) {
  return call("zeCommandQueueExecuteCommandLists", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_command_queue_handle_t* queue = find_handle(handle, HandleKind::kCommandQueue);
    if (queue == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (lists == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (count == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    if (fence != nullptr) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
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
    for (_ze_command_list_handle_t* list : checked) {
      s.in_order = queue_in_order || list->in_order;
      for (const Command& c : list->recorded) submit(s, c, &code);
      Command end;
      end.kind = CommandKind::kBarrier;
      end.name = "end of command list";
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
  core::destroy_queue(queue->stream.queue);
  forget_stream(queue->stream);
  queue->stream.deferred.clear();
  remove_handle(queue);
}

MOCKDEV_ZE_FILL_FUNCTION(fill_command_list_table, ze_command_list_dditable_t,
                         ACCEL_ZE_COMMAND_LIST_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_command_queue_table, ze_command_queue_dditable_t,
                         ACCEL_ZE_COMMAND_QUEUE_ENTRY_POINTS)

}  // namespace mockdev::level_zero
