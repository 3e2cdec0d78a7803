// The Level Zero backend's events (ze_streams.h: Note [Event slots]). An EventHandle is a
// ZeEvent; each record gives it a fresh driver event signalled by a barrier.
#include <cstdint>
#include <string>

#include "backends/level_zero/ze_streams.h"
#include "backends/level_zero/ze_status.h"

namespace accel::detail::level_zero {

namespace {

ZeEvent* as_event(EventHandle event) noexcept { return reinterpret_cast<ZeEvent*>(event.value); }

// A barrier: waits for `waits` (the stream's previous command among them) and blocks
// everything appended after it (zeCommandListAppendBarrier), then signals `signal`.
ze_result_t append_barrier(const ZeApi& api, ze_command_list_handle_t list,
                           ze_event_handle_t signal, std::uint32_t wait_count,
                           ze_event_handle_t* waits) noexcept {
  return api.zeCommandListAppendBarrier(list, signal, wait_count, waits);
}

// Signed ticks from `start` to `end` of a counter with `bits` valid bits. The distance is
// taken modulo the counter's range (one wrap corrected) and read as negative when it is more
// than half of it: `end` came first. So elapsed_time(end, start) is -elapsed_time(start, end),
// as PyTorch's XPUEvent::elapsed_time (end minus start in signed nanoseconds) and CUDA's
// cuEventElapsedTime answer.
std::int64_t elapsed_ticks(std::uint64_t start, std::uint64_t end, std::uint32_t bits) noexcept {
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const std::uint64_t forward = (end - start) & mask;
  const std::uint64_t half = (mask >> 1) + 1;
  if (forward < half) return static_cast<std::int64_t>(forward);
  return -static_cast<std::int64_t>((start - end) & mask);
}

}  // namespace

Result<EventHandle> QueueState::create_event(int index, EventOptions options) noexcept {
  try {
    if (options.interprocess) {
      // Level Zero's IPC event pools cannot carry kernel timestamps and the backend
      // makes no IPC pools: refuse rather than hand out an event another process cannot open.
      return Status(ErrorKind::kUnsupported,
                    "create_event: the xpu backend does not support interprocess events "
                    "(device=" + std::to_string(index) + ")");
    }
    auto* event = new ZeEvent;
    event->device = index;
    event->timing = options.enable_timing;
    return EventHandle{reinterpret_cast<std::uintptr_t>(event)};
  } catch (...) {
    return host_out_of_memory();
  }
}

Status QueueState::destroy_event(int, EventHandle handle) noexcept {
  ZeEvent* event = as_event(handle);
  {
    std::lock_guard lock(mutex);
    release(event->slot);  // a pending signal keeps the slot retired until it completes
  }
  delete event;
  return Status();
}

// A barrier after the stream's work so far, signalling a fresh slot that becomes both the
// event's and the stream's last (never AppendSignalEvent, whose duration is undefined).
Status QueueState::record_event(int index, EventHandle handle, StreamHandle stream) noexcept {
  try {
    std::lock_guard lock(mutex);
    ZeEvent* event = as_event(handle);
    Result<ZeStream*> target = stream_of(index, stream);
    if (!target.ok()) return target.status();
    Result<Slot*> slot = acquire_slot(event->timing, "record_event", index);
    if (!slot.ok()) return slot.status();
    const ZeApi& api = backend.api();
    Status status = append_locked(
        **target, "record_event: zeCommandListAppendBarrier", *slot, {},
        [&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t count,
            ze_event_handle_t* waits) { return append_barrier(api, list, signal, count, waits); });
    if (!status.ok()) {
      release(*slot);
      return status;
    }
    release(event->slot);  // the previous record's, if any
    event->slot = *slot;   // keeps the reference acquire_slot gave
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

// A barrier on `stream` that waits on the event's latest record (and on the stream's
// previous command); never blocks the host. The event may belong to another device: its
// pool lists every device (ze_streams.cpp acquire_slot).
Status QueueState::stream_wait_event(int stream_index, StreamHandle stream,
                                     EventHandle handle) noexcept {
  try {
    std::lock_guard lock(mutex);
    ZeEvent* event = as_event(handle);
    if (event->slot == nullptr) return Status();  // never recorded: stands for no work
    Result<ZeStream*> target = stream_of(stream_index, stream);
    if (!target.ok()) return target.status();
    Result<Slot*> slot = acquire_slot(false, "stream_wait_event", stream_index);
    if (!slot.ok()) return slot.status();
    const ZeApi& api = backend.api();
    Status status = append_locked(
        **target, "stream_wait_event: zeCommandListAppendBarrier", *slot, {event->slot},
        [&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t count,
            ze_event_handle_t* waits) { return append_barrier(api, list, signal, count, waits); });
    release(*slot);  // the stream holds its own reference after a success
    return status;
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<bool> QueueState::query_event(int index, EventHandle handle) noexcept {
  try {
    std::unique_lock lock(mutex);
    Slot* slot = as_event(handle)->slot;
    if (slot == nullptr) return true;  // never recorded: no work (api/event.cpp)
    ++slot->owners;  // alive across the unlocked poll even if the event is re-recorded
    Result<bool> done = wait_slot(lock, slot, false, "query_event", "zeEventQueryStatus", index);
    release(slot);
    return done;
  } catch (...) {
    return host_out_of_memory();
  }
}

Status QueueState::synchronize_event(int index, EventHandle handle) noexcept {
  try {
    std::unique_lock lock(mutex);
    Slot* slot = as_event(handle)->slot;
    if (slot == nullptr) return Status();
    ++slot->owners;
    Result<bool> done =
        wait_slot(lock, slot, true, "synchronize_event", "zeEventHostSynchronize", index);
    release(slot);
    return done.ok() ? Status() : done.status();
  } catch (...) {
    return host_out_of_memory();
  }
}

// PyTorch XPU: end of the start event's command to end of the end event's command;
// The wrap masked with kernelTimestampValidBits, ticks -> milliseconds with timer_hz (from the
// _1_2 properties).
Result<float> QueueState::event_elapsed_time(int index, EventHandle start_handle,
                                             EventHandle end_handle) noexcept {
  try {
    std::lock_guard lock(mutex);
    ZeEvent* start = as_event(start_handle);
    ZeEvent* end = as_event(end_handle);
    if (!start->timing || !end->timing) {
      return Status(ErrorKind::kValue,
                    "Both events must be created with argument 'enable_timing=True'.");
    }
    if (start->slot == nullptr || end->slot == nullptr) {
      return Status(ErrorKind::kValue,
                    "Both events must be recorded before calculating elapsed time.");
    }
    if (start->device != end->device) {
      return Status(ErrorKind::kValue, "event_elapsed_time: the events belong to devices " +
                                           std::to_string(start->device) + " and " +
                                           std::to_string(end->device) +
                                           "; timestamps of two devices cannot be compared");
    }
    const ZeApi& api = backend.api();
    std::uint64_t ends[2] = {0, 0};
    Slot* slots[2] = {start->slot, end->slot};
    for (int i = 0; i < 2; ++i) {
      ze_kernel_timestamp_result_t result{};
      const ze_result_t rc = api.zeEventQueryKernelTimestamp(slots[i]->event, &result);
      if (rc == ZE_RESULT_NOT_READY) {  // not signalled yet
        return Status(ErrorKind::kRuntime,
                      "Both events must be completed before calculating elapsed time.");
      }
      if (rc != ZE_RESULT_SUCCESS) {
        return ze_status(rc, "event_elapsed_time: zeEventQueryKernelTimestamp", index);
      }
      observe_complete(slots[i]);
      ends[i] = result.global.kernelEnd;
    }
    const ZeDevice& device = backend.device(start->device);
    if (device.timer_hz == 0) {
      return Status(ErrorKind::kDriver, "event_elapsed_time: device " +
                                            std::to_string(start->device) +
                                            " reports a timer resolution of 0 ticks per second");
    }
    const std::int64_t ticks = elapsed_ticks(ends[0], ends[1], device.kernel_timestamp_bits);
    return static_cast<float>(static_cast<double>(ticks) * 1e3 /
                              static_cast<double>(device.timer_hz));
  } catch (...) {
    return host_out_of_memory();
  }
}

// ---- the backend's methods -----------------------------------------------------------------

Result<EventHandle> LevelZeroBackend::create_event(int index, EventOptions options) noexcept {
  return queues_->create_event(index, options);
}

Status LevelZeroBackend::destroy_event(int index, EventHandle event) noexcept {
  return queues_->destroy_event(index, event);
}

Status LevelZeroBackend::record_event(int index, EventHandle event, StreamHandle stream) noexcept {
  return queues_->record_event(index, event, stream);
}

Status LevelZeroBackend::stream_wait_event(int stream_index, StreamHandle stream,
                                           EventHandle event) noexcept {
  return queues_->stream_wait_event(stream_index, stream, event);
}

Result<bool> LevelZeroBackend::query_event(int index, EventHandle event) noexcept {
  return queues_->query_event(index, event);
}

Status LevelZeroBackend::synchronize_event(int index, EventHandle event) noexcept {
  return queues_->synchronize_event(index, event);
}

Result<float> LevelZeroBackend::event_elapsed_time(int index, EventHandle start,
                                                   EventHandle end) noexcept {
  return queues_->event_elapsed_time(index, start, end);
}

}  // namespace accel::detail::level_zero
