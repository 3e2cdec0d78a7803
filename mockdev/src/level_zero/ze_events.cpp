// Event pools and events of the mock Level Zero driver (zeEventPoolCreate, zeEvent*):
// creation rules, the two-state machine, host waits in virtual time (Note [Level Zero
// virtual time]), kernel timestamps from the virtual clock and the Level Zero
// specification's reuse rules, whose violations are reported on stderr
// ("mockdev: level zero: E-6 ...") because the hardware's behaviour is undefined.
//
// An event is signalled by the host (zeEventHostSignal) or by the engine operation of the
// command that signals it, once that operation completes. Its timestamps are that
// operation's start and end in device ticks (kernelTimestampValidBits wide, from the
// machine's start tick so a wrap can be placed); a host-signalled event reports
// start = end = the host clock's ticks (its duration is undefined).

#include <string>

#include "core/engine.h"
#include "level_zero/ze_ipc.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

constexpr ze_event_pool_flags_t kPoolKnownFlags = 0xf;  // + KERNEL_MAPPED_TIMESTAMP 0x8 (1.6)

std::string event_name(const _ze_event_handle_t& event) {
  return "event " + std::to_string(event.index) + " of its pool";
}

ze_result_t zeEventPoolCreate(ze_context_handle_t hcontext, const ze_event_pool_desc_t* desc,
                              std::uint32_t device_count, ze_device_handle_t* devices,
                              ze_event_pool_handle_t* out) {
  return call("zeEventPoolCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((desc->flags & ~kPoolKnownFlags) != 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->count == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    if (device_count > 0 && devices == nullptr) return ZE_RESULT_ERROR_INVALID_SIZE;
    ZeDevice* first = nullptr;
    for (std::uint32_t i = 0; i < device_count; ++i) {
      ZeDevice* d = core_device(devices[i]);
      if (d == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
      if (first == nullptr) first = d;
    }
    if (first == nullptr) {  // null list: every device of the driver
      const ZeState& s = ze_state();
      if (!s.devices.empty()) first = s.devices.front();
    }
    if ((desc->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP) != 0 &&
        (desc->flags & ZE_EVENT_POOL_FLAG_IPC) != 0) {
      report("E-2: zeEventPoolCreate combines KERNEL_TIMESTAMP with IPC (accepted, as Intel's "
             "driver does)");
    }
    auto* pool = new _ze_event_pool_handle_t();
    pool->context = context;
    pool->flags = desc->flags;
    pool->slots.assign(desc->count, nullptr);
    pool->device = first;
    add_child(context, pool, HandleKind::kEventPool);
    *out = pool;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventPoolDestroy(ze_event_pool_handle_t handle) {
  return call("zeEventPoolDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_pool_handle_t* pool = find_handle(handle, HandleKind::kEventPool);
    if (pool == nullptr) {
      return destroy_orphan(handle, HandleKind::kEventPool) ? ZE_RESULT_SUCCESS
                                                            : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    remove_child(pool->context, pool);
    destroy_pool(pool);
    return ZE_RESULT_SUCCESS;
  });
}

// Index < count (Intel: INVALID_ARGUMENT), one live event per slot.
ze_result_t zeEventCreate(ze_event_pool_handle_t hpool, const ze_event_desc_t* desc,
                          ze_event_handle_t* out) {
  return call("zeEventCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_pool_handle_t* pool = find_handle(hpool, HandleKind::kEventPool);
    if (pool == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->signal > 0x7 || desc->wait > 0x7) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->index >= pool->slots.size()) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (pool->slots[desc->index] != nullptr) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    auto* event = new _ze_event_handle_t();
    event->pool = pool;
    event->index = desc->index;
    pool->slots[desc->index] = event;
    add_handle(event, HandleKind::kEvent);
    *out = event;
    return ZE_RESULT_SUCCESS;
  });
}

void destroy_event(_ze_event_handle_t* event) MOCKDEV_ZE_LOCKED {
  if (event->signal_op != 0) core::forget_end_time(event->signal_op);
  event->pool->slots[event->index] = nullptr;
  remove_handle(event);
}

ze_result_t zeEventDestroy(ze_event_handle_t handle) {
  return call("zeEventDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_handle_t* event = find_handle(handle, HandleKind::kEvent);
    if (event == nullptr) {
      return destroy_orphan(handle, HandleKind::kEvent) ? ZE_RESULT_SUCCESS
                                                        : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    destroy_event(event);
    return ZE_RESULT_SUCCESS;
  });
}

// Signalling a signalled event changes nothing. Commands waiting for it may start
// (Note [Level Zero streams]).
ze_result_t zeEventHostSignal(ze_event_handle_t handle) {
  return call("zeEventHostSignal", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_handle_t* event = find_handle(handle, HandleKind::kEvent);
    if (event == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (is_signalled(*event)) return ZE_RESULT_SUCCESS;
    if (event->signal_op != 0) {
      report("E-6: zeEventHostSignal on " + event_name(*event) +
             " while a command that signals it is still pending");
    }
    event->host_signalled = true;
    event->host_signal_ns = core::host_time_ns();
    flush_deferred();
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventHostReset(ze_event_handle_t handle) {
  return call("zeEventHostReset", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_handle_t* event = find_handle(handle, HandleKind::kEvent);
    if (event == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (event->signal_op != 0 && !core::is_complete(event->signal_op)) {
      report("E-6: zeEventHostReset on " + event_name(*event) +
             " while a command that signals it is still pending");
    }
    reset_event(*event);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventQueryStatus(ze_event_handle_t handle) {
  return call("zeEventQueryStatus", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_handle_t* event = find_handle(handle, HandleKind::kEvent);
    if (event == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (event->host_signalled) return ZE_RESULT_SUCCESS;
    if (event->signal_op == 0) return ZE_RESULT_NOT_READY;
    const core::OpId ops[] = {event->signal_op};
    return core::query(ops) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
  });
}

ze_result_t zeEventHostSynchronize(ze_event_handle_t handle, std::uint64_t timeout) {
  return call("zeEventHostSynchronize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_handle_t* event = find_handle(handle, HandleKind::kEvent);
    if (event == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (event->host_signalled) return ZE_RESULT_SUCCESS;
    const int card = event->pool->device != nullptr ? event->pool->device->card : 0;
    std::vector<core::OpId> ops;
    if (event->signal_op != 0) ops.push_back(event->signal_op);
    return timed_wait(ops, ops.empty(), timeout, card, "zeEventHostSynchronize",
                      event_name(*event));
  });
}

// Not signalled -> NOT_READY with the result untouched; global and context carry the
// same values (the mock has only global counters).
ze_result_t zeEventQueryKernelTimestamp(ze_event_handle_t handle,
                                        ze_kernel_timestamp_result_t* result) {
  return call("zeEventQueryKernelTimestamp", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_handle_t* event = find_handle(handle, HandleKind::kEvent);
    if (event == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (result == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (!is_signalled(*event)) return ZE_RESULT_NOT_READY;
    return kernel_timestamp(*event, result) ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_ARGUMENT;
  });
}

}  // namespace

bool kernel_timestamp(const _ze_event_handle_t& event, ze_kernel_timestamp_result_t* result) {
  if (!is_signalled(event)) return false;
  std::uint64_t start_ns = event.host_signal_ns;
  std::uint64_t end_ns = event.host_signal_ns;
  ZeDevice* device = event.pool->device;
  if (!event.host_signalled) {
    end_ns = core::end_time(event.signal_op);
    start_ns = end_ns - event.signal_duration_ns;
    device = event.signal_device;
  }
  if (device == nullptr) return false;
  const int bits = core::engine()
                       .machine.devices.at(static_cast<std::size_t>(device->card))
                       .level_zero.kernel_timestamp_valid_bits;
  result->global.kernelStart = device_ticks(device->card, start_ns, bits);
  result->global.kernelEnd = device_ticks(device->card, end_ns, bits);
  result->context = result->global;
  return true;
}

bool is_signalled(const _ze_event_handle_t& event) {
  return event.host_signalled || (event.signal_op != 0 && core::is_complete(event.signal_op));
}

bool is_reachable(const _ze_event_handle_t& event) {
  return event.host_signalled || event.signal_op != 0;
}

// A second in-flight signal, or a signal of a signalled event that was not reset.
// A device reset appended in between (still to run) makes the reuse legal.
void attach_signal(_ze_event_handle_t& event, core::OpId op, std::uint64_t duration_ns,
                   ZeDevice* device) {
  if (event.pending_resets > 0) {
    // reset before reuse, as the specification asks
  } else if (event.signal_op != 0 && !core::is_complete(event.signal_op)) {
    report("E-6: two in-flight commands signal " + event_name(event));
  } else if (is_signalled(event)) {
    report("E-6: a command signals " + event_name(event) +
           ", which is still signalled: reset it before reuse");
  }
  if (event.signal_op != 0) core::forget_end_time(event.signal_op);
  event.host_signalled = false;
  event.signal_op = op;
  event.signal_duration_ns = duration_ns;
  event.signal_device = device;
  core::keep_end_time(op);  // the timestamps outlive the engine's pruning
}

void reset_event(_ze_event_handle_t& event) {
  if (event.signal_op != 0) core::forget_end_time(event.signal_op);
  event.signal_op = 0;
  event.host_signalled = false;
  event.host_signal_ns = 0;
}

void destroy_pool(_ze_event_pool_handle_t* pool) {
  for (_ze_event_handle_t* event : pool->slots) {
    if (event != nullptr) destroy_event(event);
  }
  remove_handle(pool);
}

MOCKDEV_ZE_FILL_FUNCTION(fill_event_pool_table, ze_event_pool_dditable_t,
                         ACCEL_ZE_EVENT_POOL_ENTRY_POINTS)

MOCKDEV_ZE_FILL_FUNCTION(fill_event_table, ze_event_dditable_t, ACCEL_ZE_EVENT_ENTRY_POINTS)

}  // namespace mockdev::level_zero
