// The Level Zero backend's streams and the slot bookkeeping they share with events
// (ze_streams.h: Note [Level Zero streams], Note [Event slots]).
#include <algorithm>
#include <string>

#include "backends/level_zero/ze_streams.h"
#include "backends/level_zero/ze_status.h"

namespace accel::detail::level_zero {

namespace {

// Events per pool: pools grow by this many when no slot is free or recyclable.
constexpr std::uint32_t kSlotsPerPool = 64;

bool slot_complete(const Slot& slot) noexcept {
  return slot.signaller != nullptr && slot.signaller->completed >= slot.seq;
}

bool waiters_complete(const Slot& slot) noexcept {
  return std::all_of(slot.waiters.begin(), slot.waiters.end(),
                     [](const auto& waiter) { return waiter.first->completed >= waiter.second; });
}

// Level Zero's three priorities (ze_command_queue_priority_t) for the SPI's numbers (ze_streams.h).
ze_command_queue_priority_t priority_of(int priority) noexcept {
  if (priority < 0) return ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_HIGH;
  if (priority > 0) return ZE_COMMAND_QUEUE_PRIORITY_PRIORITY_LOW;
  return ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
}

}  // namespace

struct QueueState::Pool {
  ze_event_pool_handle_t handle = nullptr;
  bool timing = false;
  std::vector<std::unique_ptr<Slot>> slots;
  std::vector<Slot*> free;
};

std::unique_ptr<QueueState> QueueState::create(LevelZeroBackend& backend) {
  return std::make_unique<QueueState>(backend);
}

QueueState::QueueState(LevelZeroBackend& owner)
    : backend(owner),
      // Sized for every possible index: create() runs inside initialize(), before
      // device_count() answers.
      default_streams(kMaxDeviceIndex + 1, nullptr),
      next_engine(kMaxDeviceIndex + 1, 0),
      engines(kMaxDeviceIndex + 1, 0) {}

// The driver objects are left alive, as the context is (ze_backend.h): the process
// may be exiting with the driver already torn down, or be a forked child where they are
// invalid. PyTorch never destroys its pool streams either.
QueueState::~QueueState() = default;

std::size_t QueueState::slots_in_use() noexcept {
  std::lock_guard lock(mutex);
  std::size_t in_use = 0;
  for (const auto& pool : pools) in_use += pool->slots.size() - pool->free.size();
  return in_use;
}

// ---- slots ---------------------------------------------------------------------------------

void QueueState::observe_complete(Slot* slot) {
  if (slot->signaller != nullptr) {
    slot->signaller->completed = std::max(slot->signaller->completed, slot->seq);
  }
}

// Polls what the host has not seen complete yet (retired slots and every stream's last
// command), then hands back to their pools the retired slots nothing can need any more,
// reset.
void QueueState::recycle_retired() {
  const ZeApi& api = backend.api();
  auto poll = [&](Slot* slot) {
    if (slot != nullptr && slot->signaller != nullptr && !slot_complete(*slot) &&
        api.zeEventQueryStatus(slot->event) == ZE_RESULT_SUCCESS) {
      observe_complete(slot);
    }
  };
  for (Slot* slot : retired) poll(slot);
  for (const auto& stream : streams) poll(stream->last);
  auto recyclable = [&](Slot* slot) {
    if (slot->pins != 0 || !slot_complete(*slot) || !waiters_complete(*slot)) return false;
    // A slot whose reset fails stays out of circulation rather than come back signalled.
    if (api.zeEventHostReset(slot->event) != ZE_RESULT_SUCCESS) return false;
    slot->retired = false;
    slot->signaller.reset();
    slot->seq = 0;
    slot->waiters.clear();
    slot->free_list->push_back(slot);
    return true;
  };
  retired.erase(std::remove_if(retired.begin(), retired.end(), recyclable), retired.end());
}

Result<Slot*> QueueState::acquire_slot(bool timing, std::string_view operation, int index) {
  auto take = [&]() -> Slot* {
    for (auto& pool : pools) {
      if (pool->timing == timing && !pool->free.empty()) {
        Slot* slot = pool->free.back();
        pool->free.pop_back();
        slot->owners = 1;
        return slot;
      }
    }
    return nullptr;
  };
  if (Slot* slot = take()) return slot;
  recycle_retired();
  if (Slot* slot = take()) return slot;

  // Host visible (the host queries and waits), kernel timestamps for timing events; every
  // device of the context may wait on it (cross-device stream_wait_event).
  const ZeApi& api = backend.api();
  const int devices = backend.device_count();
  std::vector<ze_device_handle_t> handles;
  for (int i = 0; i < devices; ++i) handles.push_back(backend.device(i).handle);
  ze_event_pool_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
  desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
  if (timing) desc.flags |= ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP;
  desc.count = kSlotsPerPool;
  auto pool = std::make_unique<Pool>();
  pool->timing = timing;
  ze_result_t rc = api.zeEventPoolCreate(backend.context(), &desc,
                                         static_cast<std::uint32_t>(handles.size()),
                                         handles.data(), &pool->handle);
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, std::string(operation) + ": zeEventPoolCreate", index);
  }
  for (std::uint32_t i = 0; i < kSlotsPerPool; ++i) {
    ze_event_desc_t event_desc{};
    event_desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
    event_desc.index = i;
    // Host scope, so the host sees the data written before a signal it observed.
    event_desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
    event_desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    auto slot = std::make_unique<Slot>();
    slot->timing = timing;
    rc = api.zeEventCreate(pool->handle, &event_desc, &slot->event);
    if (rc != ZE_RESULT_SUCCESS) {
      for (auto& made : pool->slots) (void)api.zeEventDestroy(made->event);
      (void)api.zeEventPoolDestroy(pool->handle);
      return ze_status(rc, std::string(operation) + ": zeEventCreate", index);
    }
    slot->free_list = &pool->free;
    pool->free.push_back(slot.get());
    pool->slots.push_back(std::move(slot));
  }
  pools.push_back(std::move(pool));
  Slot* slot = take();
  return slot;
}

void QueueState::release(Slot* slot) {
  if (slot == nullptr || --slot->owners > 0) return;
  if (slot->signaller == nullptr) {  // never appended: still in the reset state
    slot->waiters.clear();
    slot->free_list->push_back(slot);
    return;
  }
  slot->retired = true;
  retired.push_back(slot);
}

// ---- appends -------------------------------------------------------------------------------

// The command waits on the stream's previous command (and on `waits`), and signals
// `signal`, which becomes the stream's last; the stream owns one reference to it.
Status QueueState::append_locked(ZeStream& stream, std::string_view operation, Slot* signal,
                                 std::vector<Slot*> waits, const AppendCommand& command) {
  if (stream.last != nullptr) waits.insert(waits.begin(), stream.last);
  std::vector<ze_event_handle_t> events;
  events.reserve(waits.size());
  for (Slot* wait : waits) events.push_back(wait->event);
  const ze_result_t rc = command(stream.list, signal->event,
                                 static_cast<std::uint32_t>(events.size()),
                                 events.empty() ? nullptr : events.data());
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, operation, stream.device);
  }
  const std::uint64_t seq = ++stream.appended;
  signal->signaller = stream.progress;
  signal->seq = seq;
  for (Slot* wait : waits) wait->waiters.emplace_back(stream.progress, seq);
  ++signal->owners;
  Slot* previous = stream.last;
  stream.last = signal;
  release(previous);
  return Status();
}

Status QueueState::append(int index, StreamHandle handle, std::string_view operation,
                          const AppendCommand& command) noexcept {
  try {
    std::lock_guard lock(mutex);
    Result<ZeStream*> stream = stream_of(index, handle);
    if (!stream.ok()) return stream.status();
    Result<Slot*> signal = acquire_slot(false, operation, index);
    if (!signal.ok()) return signal.status();
    Status status = append_locked(**stream, operation, *signal, {}, command);
    release(*signal);  // the caller's reference: the stream holds its own now
    return status;
  } catch (...) {
    return host_out_of_memory();
  }
}

Result<ze_command_list_handle_t> QueueState::command_list(int index, StreamHandle handle) noexcept {
  try {
    std::lock_guard lock(mutex);
    Result<ZeStream*> stream = stream_of(index, handle);
    if (!stream.ok()) return stream.status();
    return (*stream)->list;
  } catch (...) {
    return host_out_of_memory();
  }
}

// ---- waits ---------------------------------------------------------------------------------

Result<bool> QueueState::wait_slot(std::unique_lock<std::mutex>& lock, Slot* slot, bool block,
                                   std::string_view operation, std::string_view entry,
                                   int index) {
  if (slot_complete(*slot)) return true;
  ++slot->pins;
  const ze_event_handle_t event = slot->event;
  const ZeApi& api = backend.api();
  lock.unlock();
  // Waiting on the last command's event waits for everything before it (Note [Level
  // Zero streams]). zeCommandListHostSynchronize (spec 1.6, absent from the 1.4 loader) is
  // not used even where it exists: this wait is equivalent under the chain and, unlike it,
  // does not touch the list, which another thread may be appending to meanwhile (one
  // thread per list at a time).
  const ze_result_t rc =
      block ? api.zeEventHostSynchronize(event, UINT64_MAX) : api.zeEventQueryStatus(event);
  lock.lock();
  --slot->pins;
  if (rc == ZE_RESULT_SUCCESS) {
    observe_complete(slot);
    return true;
  }
  if (rc == ZE_RESULT_NOT_READY && !block) return false;
  return ze_status(rc, std::string(operation) + ": " + std::string(entry), index);
}

// ---- streams -------------------------------------------------------------------------------

Result<ZeStream*> QueueState::stream_of(int index, StreamHandle handle) {
  if (handle) return reinterpret_cast<ZeStream*>(handle.value);
  ZeStream*& fallback = default_streams[static_cast<std::size_t>(index)];
  if (fallback == nullptr) {
    // The default stream: made at first use, at normal priority.
    ze_command_queue_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    desc.ordinal = backend.device(index).compute_ordinal;
    desc.index = 0;
    desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    auto stream = std::make_shared<ZeStream>();
    stream->device = index;
    const ze_result_t rc = backend.api().zeCommandListCreateImmediate(
        backend.context(), backend.device(index).handle, &desc, &stream->list);
    if (rc != ZE_RESULT_SUCCESS) {
      return ze_status(rc, "default stream: zeCommandListCreateImmediate", index);
    }
    streams.push_back(stream);
    fallback = stream.get();
  }
  return fallback;
}

// numQueues of the device's compute group, asked once.
Result<std::uint32_t> QueueState::engine_count(int index) {
  std::uint32_t& known = engines[static_cast<std::size_t>(index)];
  if (known != 0) return known;
  const ZeDevice& device = backend.device(index);
  std::uint32_t count = 0;
  const ZeApi& api = backend.api();
  ze_result_t rc = api.zeDeviceGetCommandQueueGroupProperties(device.handle, &count, nullptr);
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "create_stream: zeDeviceGetCommandQueueGroupProperties", index);
  }
  std::vector<ze_command_queue_group_properties_t> groups(count);
  for (auto& group : groups) group.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  rc = api.zeDeviceGetCommandQueueGroupProperties(device.handle, &count, groups.data());
  if (rc != ZE_RESULT_SUCCESS) {
    return ze_status(rc, "create_stream: zeDeviceGetCommandQueueGroupProperties", index);
  }
  known = device.compute_ordinal < count
              ? std::max<std::uint32_t>(groups[device.compute_ordinal].numQueues, 1)
              : 1;
  return known;
}

Result<StreamHandle> QueueState::create_stream(int index, int priority) noexcept {
  try {
    std::lock_guard lock(mutex);
    const ZeDevice& device = backend.device(index);
    // Round robin over the compute group's engines (index < numQueues).
    std::uint32_t& next = next_engine[static_cast<std::size_t>(index)];
    Result<std::uint32_t> count = engine_count(index);
    if (!count.ok()) return count.status();
    const std::uint32_t engines = *count;
    ze_command_queue_desc_t desc{};
    desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    desc.ordinal = device.compute_ordinal;
    desc.index = next % engines;
    // Spec 1.4: an index other than 0 needs EXPLICIT_ONLY (ze_command_queue_desc_t).
    desc.flags = desc.index != 0 ? ZE_COMMAND_QUEUE_FLAG_EXPLICIT_ONLY : 0;
    desc.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    desc.priority = priority_of(priority);
    auto stream = std::make_shared<ZeStream>();
    stream->device = index;
    const ze_result_t rc = backend.api().zeCommandListCreateImmediate(
        backend.context(), device.handle, &desc, &stream->list);
    if (rc != ZE_RESULT_SUCCESS) {
      return ze_status(rc, "create_stream: zeCommandListCreateImmediate", index);
    }
    ++next;
    streams.push_back(stream);
    return StreamHandle{reinterpret_cast<std::uintptr_t>(stream.get())};
  } catch (...) {
    return host_out_of_memory();
  }
}

// Waits for the stream's work first: zeCommandListDestroy needs the device done with it.
Status QueueState::destroy_stream(int index, StreamHandle handle) noexcept {
  if (!handle) {
    return Status(ErrorKind::kValue, "destroy_stream: the default stream (device " +
                                         std::to_string(index) + ") cannot be destroyed");
  }
  Status synced = synchronize_stream(index, handle);
  if (!synced.ok()) return synced;
  try {
    std::lock_guard lock(mutex);
    auto* stream = reinterpret_cast<ZeStream*>(handle.value);
    const ze_result_t rc = backend.api().zeCommandListDestroy(stream->list);
    if (rc != ZE_RESULT_SUCCESS) return ze_status(rc, "destroy_stream: zeCommandListDestroy", index);
    release(stream->last);
    stream->last = nullptr;
    streams.erase(std::remove_if(streams.begin(), streams.end(),
                                 [&](const auto& live) { return live.get() == stream; }),
                  streams.end());
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

// "all work queued so far completed" = the last command's event is signalled.
Result<bool> QueueState::query_stream(int index, StreamHandle handle) noexcept {
  try {
    std::unique_lock lock(mutex);
    Result<ZeStream*> stream = stream_of(index, handle);
    if (!stream.ok()) return stream.status();
    Slot* last = (*stream)->last;
    if (last == nullptr) return true;
    return wait_slot(lock, last, false, "query_stream", "zeEventQueryStatus", index);
  } catch (...) {
    return host_out_of_memory();
  }
}

Status QueueState::synchronize_stream(int index, StreamHandle handle) noexcept {
  try {
    std::unique_lock lock(mutex);
    Result<ZeStream*> stream = stream_of(index, handle);
    if (!stream.ok()) return stream.status();
    Slot* last = (*stream)->last;
    if (last == nullptr) return Status();
    ++last->owners;  // kept alive across the unlocked wait even if the stream moves on
    Result<bool> done =
        wait_slot(lock, last, true, "synchronize_stream", "zeEventHostSynchronize", index);
    release(last);
    return done.ok() ? Status() : done.status();
  } catch (...) {
    return host_out_of_memory();
  }
}

// Every stream this backend made on the device (the core's pool streams and the
// default stream), as PyTorch waits on its pooled queues only.
Status QueueState::synchronize_device(int index) noexcept {
  try {
    std::vector<StreamHandle> handles;
    {
      std::lock_guard lock(mutex);
      for (const auto& stream : streams) {
        if (stream->device == index) {
          handles.push_back(StreamHandle{reinterpret_cast<std::uintptr_t>(stream.get())});
        }
      }
    }
    for (StreamHandle handle : handles) {
      Status status = synchronize_stream(index, handle);
      if (!status.ok()) return status;
    }
    return Status();
  } catch (...) {
    return host_out_of_memory();
  }
}

// ---- the backend's methods -----------------------------------------------------------------

// PyTorch XPU's three levels: 1 low, 0 normal, -1 high.
Result<Backend::PriorityRange> LevelZeroBackend::stream_priority_range(int) noexcept {
  return PriorityRange{1, -1};
}

Result<StreamHandle> LevelZeroBackend::create_stream(int index, int priority) noexcept {
  return queues_->create_stream(index, priority);
}

Status LevelZeroBackend::destroy_stream(int index, StreamHandle stream) noexcept {
  return queues_->destroy_stream(index, stream);
}

// A created stream's handle is its ZeStream (create_stream); the driver's queue is its
// immediate command list. The default stream (a null handle) is the backend's own.
const void* LevelZeroBackend::driver_queue(int, StreamHandle stream) const noexcept {
  if (!stream) return nullptr;
  return reinterpret_cast<const ZeStream*>(stream.value)->list;
}

Result<bool> LevelZeroBackend::query_stream(int index, StreamHandle stream) noexcept {
  return queues_->query_stream(index, stream);
}

Status LevelZeroBackend::synchronize_stream(int index, StreamHandle stream) noexcept {
  return queues_->synchronize_stream(index, stream);
}

Status LevelZeroBackend::synchronize_device(int index) noexcept {
  return queues_->synchronize_device(index);
}

}  // namespace accel::detail::level_zero
