#pragma once
// Streams and events of the Level Zero backend (ze_streams.cpp, ze_events.cpp).
//
// Note [Level Zero streams]
// A stream is one asynchronous immediate command list on the device's compute group (as
// PyTorch XPU's in-order queues), engine index chosen round robin over the group's
// numQueues. The 1.4 loader has no IN_ORDER flag and a plain immediate list only promises
// start order (Level Zero specification), so the backend enforces stream order itself:
// every command it appends waits on the signal event of the stream's previous command and
// signals a fresh one (the "chain").
// The default stream (null handle) is a per-device stream made at first use.
//
// Note [Event slots]
// Every driver event ("slot") comes from a HOST_VISIBLE pool, with KERNEL_TIMESTAMP for
// timing events, and is signalled by exactly one command per use. Recording a
// user event takes a fresh slot each time instead of resetting the old one (never
// reset while a signal may be pending; CUDA's semantics: a wait uses the latest record at
// the time of the wait). A slot goes back to its pool's free list, after a host reset,
// only when nothing can still need it: no stream's chain and no user event names
// it, its own command is known complete, and every command that waits on it is known
// complete. "Known complete" is what the host observed: a stream's commands are
// numbered, and since each waits on the one before, observing command n complete observes
// every earlier one. Observations come from queries and host waits, and from polling
// retired slots when a pool has no free slot.
//
// Locking: one mutex per QueueState guards every stream, slot and pool, and is held across
// the (non-blocking) append calls, which also keeps to one thread per list at a time (Level Zero's
// threading rule). Host
// waits run without it: the slot is pinned, so it cannot be recycled under the wait.
// Fork: the core calls nothing of this state in a forked child (spi/backend.h), and
// the driver's objects are invalid there anyway, so no fork hook is needed.
//
// Priorities: Level Zero has NORMAL, LOW and HIGH (ze_command_queue_priority_t).
// stream_priority_range answers {least 1 (low), greatest -1 (high)}, PyTorch XPU's three
// levels; -1 -> HIGH, 1 -> LOW, 0 -> NORMAL.

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "backends/level_zero/ze_backend_impl.h"
#include "spi/device_limits.h"

namespace accel::detail::level_zero {

struct QueueState;

// How far the host has seen a stream's commands complete (guarded by QueueState::mutex).
// Shared with the slots its commands wait on, so it outlives a destroyed stream.
struct StreamProgress {
  std::uint64_t completed = 0;  // commands 1..completed are known complete
};

// One driver event (Note [Event slots]). Guarded by QueueState::mutex.
struct Slot {
  ze_event_handle_t event = nullptr;
  bool timing = false;
  int owners = 0;  // the stream whose last command signals it + the user event recording it
  int pins = 0;    // host waits in progress
  bool retired = false;
  // The command that signals it: command `seq` of the stream `signaller` tracks.
  std::shared_ptr<StreamProgress> signaller;
  std::uint64_t seq = 0;
  // Commands that wait on it: (their stream, their number).
  std::vector<std::pair<std::shared_ptr<StreamProgress>, std::uint64_t>> waiters;
  std::vector<Slot*>* free_list = nullptr;  // its pool's
};

struct ZeStream {
  int device = 0;
  ze_command_list_handle_t list = nullptr;
  std::shared_ptr<StreamProgress> progress = std::make_shared<StreamProgress>();
  std::uint64_t appended = 0;  // commands appended so far (numbered from 1)
  Slot* last = nullptr;        // the last command's signal event; null before any
};

struct ZeEvent {
  int device = 0;
  bool timing = false;
  Slot* slot = nullptr;  // the latest record's; null before the first record
};

// One append: make the command wait on `waits` (count `wait_count`) and signal `signal`.
using AppendCommand = std::function<ze_result_t(ze_command_list_handle_t list,
                                                ze_event_handle_t signal,
                                                std::uint32_t wait_count,
                                                ze_event_handle_t* waits)>;

struct QueueState {
  // Made by initialize() once the devices and the context exist.
  static std::unique_ptr<QueueState> create(LevelZeroBackend& backend);
  explicit QueueState(LevelZeroBackend& backend);
  ~QueueState();
  QueueState(const QueueState&) = delete;
  QueueState& operator=(const QueueState&) = delete;

  // ---- streams (ze_streams.cpp) --------------------------------------------------------
  Result<StreamHandle> create_stream(int index, int priority) noexcept;
  Status destroy_stream(int index, StreamHandle stream) noexcept;
  Result<bool> query_stream(int index, StreamHandle stream) noexcept;
  Status synchronize_stream(int index, StreamHandle stream) noexcept;
  Status synchronize_device(int index) noexcept;

  // Appends `command` on `stream` (null: the device's default stream) in stream order
  // (Note [Level Zero streams]); `extra_waits` are waited on too. For the backend's own
  // records and waits, and for code that queues work (copies, fills) on a stream the
  // runtime handed out: a command appended on the list directly would not be ordered.
  Status append(int index, StreamHandle stream, std::string_view operation,
                const AppendCommand& command) noexcept;
  // The immediate list behind `stream` (creates the default stream on first use).
  Result<ze_command_list_handle_t> command_list(int index, StreamHandle stream) noexcept;

  // ---- events (ze_events.cpp) ----------------------------------------------------------
  Result<EventHandle> create_event(int index, EventOptions options) noexcept;
  Status destroy_event(int index, EventHandle event) noexcept;
  Status record_event(int index, EventHandle event, StreamHandle stream) noexcept;
  Status stream_wait_event(int stream_index, StreamHandle stream, EventHandle event) noexcept;
  Result<bool> query_event(int index, EventHandle event) noexcept;
  Status synchronize_event(int index, EventHandle event) noexcept;
  Result<float> event_elapsed_time(int index, EventHandle start, EventHandle end) noexcept;

  // Slots in use (not on a free list), for tests of the recycling rule.
  std::size_t slots_in_use() noexcept;

  // ---- internals shared by ze_streams.cpp and ze_events.cpp ----------------------------
  struct Pool;
  LevelZeroBackend& backend;
  std::mutex mutex;
  std::vector<std::unique_ptr<Pool>> pools;           // both kinds; grown on demand
  std::vector<Slot*> retired;                          // released slots not yet recyclable
  std::vector<std::shared_ptr<ZeStream>> streams;      // every live stream, all devices
  std::vector<ZeStream*> default_streams;              // per device; null until first use
  std::vector<std::uint32_t> next_engine;              // round robin per device
  std::vector<std::uint32_t> engines;                  // compute engines; 0 = not asked yet

  // Callers hold `mutex`.
  Result<std::uint32_t> engine_count(int index);
  Result<ZeStream*> stream_of(int index, StreamHandle stream);
  Result<Slot*> acquire_slot(bool timing, std::string_view operation, int index);
  void release(Slot* slot);        // drops one owner reference
  void observe_complete(Slot* slot);
  void recycle_retired();
  Status append_locked(ZeStream& stream, std::string_view operation, Slot* signal,
                       std::vector<Slot*> waits, const AppendCommand& command);
  // Host-waits on `slot` (UINT64_MAX) or polls it (timeout 0) without holding `lock`;
  // true when it is complete. The slot stays pinned during the call.
  Result<bool> wait_slot(std::unique_lock<std::mutex>& lock, Slot* slot, bool block,
                         std::string_view operation, std::string_view entry, int index);
};

}  // namespace accel::detail::level_zero
