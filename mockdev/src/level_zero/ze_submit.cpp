// How appended commands become engine operations (Note [Level Zero streams] in
// ze_objects.h): dependencies from fences, wait events and IN_ORDER; the byte moves of
// copies, fills and global timestamps; the deferred queue of commands whose wait events
// nothing can signal yet.

#include <algorithm>
#include <cstring>
#include <string>

#include "core/engine.h"
#include "core/memory.h"
#include "level_zero/ze_kernels.h"
#include "level_zero/ze_objects.h"

namespace mockdev::level_zero {
namespace {

// A fill the engine's kFill cannot do (a pattern other than 1 or 4 bytes, or host memory).
struct FillJob {
  Endpoint dst;
  std::uint64_t bytes = 0;
  std::shared_ptr<std::vector<unsigned char>> pattern;
};

// Runs at completion with the engine lock held (ActionKind::kLockedCall), which the
// analysis cannot see through the function pointer. Freed device memory is left alone
// (Note [Freed memory] in core/timeline.h).
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_fill(std::uintptr_t job_address, std::uintptr_t, std::uintptr_t) {
  const auto& job = *reinterpret_cast<const FillJob*>(job_address);
  const std::vector<unsigned char>& pattern = *job.pattern;
  if (job.dst.device && !core::find_containing(job.dst.address, job.bytes, nullptr)) return;
  // One chunk of whole patterns, written repeatedly.
  std::vector<unsigned char> chunk;
  const std::uint64_t chunk_bytes = std::min<std::uint64_t>(job.bytes, 1 << 16);
  chunk.reserve(chunk_bytes);
  while (chunk.size() < chunk_bytes) chunk.push_back(pattern[chunk.size() % pattern.size()]);
  for (std::uint64_t done = 0; done < job.bytes;) {
    // Every chunk starts at a multiple of the pattern size (chunk_bytes is one, or the end).
    const std::uint64_t n = std::min<std::uint64_t>(chunk_bytes, job.bytes - done);
    if (job.dst.device) {
      core::write_bytes(job.dst.address + done, chunk.data(), n);
    } else {
      std::memcpy(reinterpret_cast<void*>(job.dst.address + done), chunk.data(), n);
    }
    done += n;
  }
}

void run_host_copy(std::uintptr_t dst, std::uintptr_t src, std::uintptr_t bytes) {
  std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
}

// A device reset (AppendEventReset) clears the signal it was ordered after; a signal
// attached after the reset was appended (its operation is newer) stays.
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_event_reset(std::uintptr_t event_address, std::uintptr_t signal_at_append,
                     std::uintptr_t) {
  auto& event = *reinterpret_cast<_ze_event_handle_t*>(event_address);
  --event.pending_resets;
  if (event.signal_op == signal_at_append) reset_event(event);
}

struct TimestampJob {
  Endpoint dst;
  int card = 0;           // whose clock
  core::OpId marker = 0;  // the ordering-only operation whose end is the timestamp
};

// The device's global ticks when the command ran, timestampValidBits wide.
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_timestamp(std::uintptr_t job_address, std::uintptr_t, std::uintptr_t) {
  const auto& job = *reinterpret_cast<const TimestampJob*>(job_address);
  const std::uint64_t end_ns = core::end_time(job.marker);
  core::forget_end_time(job.marker);
  const int bits = core::engine()
                       .machine.devices.at(static_cast<std::size_t>(job.card))
                       .level_zero.timestamp_valid_bits;
  const std::uint64_t value = device_ticks(job.card, end_ns, bits);
  if (job.dst.device) {
    if (!core::find_containing(job.dst.address, sizeof value, nullptr)) return;
    core::write_bytes(job.dst.address, &value, sizeof value);
  } else {
    std::memcpy(reinterpret_cast<void*>(job.dst.address), &value, sizeof value);
  }
}

// A region copy's box (RegionBox), moved row by row when the operation completes. A device side
// that is no longer inside live memory moves nothing (Note [Freed memory] in core/timeline.h).
struct RegionJob {
  Endpoint dst, src;
  std::shared_ptr<const RegionBox> box;
};

// The bytes from a side's first row to the end of its last row.
std::uint64_t box_extent(const RegionBox& box, std::uint64_t pitch, std::uint64_t slice_pitch) {
  if (box.bytes() == 0) return 0;
  return (box.depth - 1) * slice_pitch + (box.height - 1) * pitch + box.width;
}

MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_region_copy(std::uintptr_t job_address, std::uintptr_t, std::uintptr_t) {
  const auto& job = *reinterpret_cast<const RegionJob*>(job_address);
  const RegionBox& box = *job.box;
  if (job.dst.device &&
      !core::find_containing(job.dst.address, box_extent(box, box.dst_pitch, box.dst_slice_pitch),
                             nullptr)) {
    return;
  }
  if (job.src.device &&
      !core::find_containing(job.src.address, box_extent(box, box.src_pitch, box.src_slice_pitch),
                             nullptr)) {
    return;
  }
  for (std::uint64_t z = 0; z < box.depth; ++z) {
    for (std::uint64_t y = 0; y < box.height; ++y) {
      const std::uint64_t dst = job.dst.address + z * box.dst_slice_pitch + y * box.dst_pitch;
      const std::uint64_t src = job.src.address + z * box.src_slice_pitch + y * box.src_pitch;
      if (job.dst.device && job.src.device) {
        core::copy_bytes(dst, src, box.width);
      } else if (job.dst.device) {
        core::write_bytes(dst, reinterpret_cast<const void*>(src), box.width);
      } else if (job.src.device) {
        core::read_bytes(src, reinterpret_cast<void*>(dst), box.width);
      } else {
        std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), box.width);
      }
    }
  }
}

// Kernel timestamps of events, as zeEventQueryKernelTimestamp answers them when the command
// runs; an event not signalled then (or destroyed) leaves its destination as it was (the
// specification leaves the value undefined).
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_timestamp_query(std::uintptr_t job_address, std::uintptr_t, std::uintptr_t) {
  const auto& job = *reinterpret_cast<const TimestampQuery*>(job_address);
  for (std::size_t i = 0; i < job.events.size(); ++i) {
    ze_kernel_timestamp_result_t value{};
    if (!is_handle(job.events[i], HandleKind::kEvent) ||
        !kernel_timestamp(*job.events[i], &value)) {
      continue;
    }
    const Endpoint& dst = job.destinations[i];
    if (dst.device) {
      if (!core::find_containing(dst.address, sizeof value, nullptr)) continue;
      core::write_bytes(dst.address, &value, sizeof value);
    } else {
      std::memcpy(reinterpret_cast<void*>(dst.address), &value, sizeof value);
    }
  }
}

bool waits_reachable(const Command& command) MOCKDEV_ZE_LOCKED {
  return std::all_of(command.waits.begin(), command.waits.end(),
                     [](const _ze_event_handle_t* e) MOCKDEV_ZE_LOCKED { return is_reachable(*e); });
}

// Drops completed operations from a bookkeeping list once it grows.
void prune(std::vector<core::OpId>& ops) MOCKDEV_ZE_LOCKED {
  if (ops.size() < 64) return;
  std::erase_if(ops, [](core::OpId op) MOCKDEV_ZE_LOCKED { return core::is_complete(op); });
}

// How long moving `bytes` between the two endpoints takes (the machine's timing model).
std::uint64_t copy_duration_ns(const Endpoint& dst, const Endpoint& src,
                               std::uint64_t bytes) MOCKDEV_ZE_LOCKED {
  const StreamSettings::Timing& timing = core::engine().machine.streams.timing;
  if (src.device && dst.device) {
    return core::transfer_ns(bytes,
                             src.card == dst.card ? timing.dtod_gb_per_s : timing.peer_gb_per_s);
  }
  if (src.device) return core::transfer_ns(bytes, timing.dtoh_gb_per_s);
  return core::transfer_ns(bytes, timing.htod_gb_per_s);
}

// The ranges one side of a box touches: its rows, contiguous rows merged; a side of more than
// kMaxBoxRanges separate rows is declared as its whole extent [inferred: the race detector may
// then report a race in the gaps between rows].
constexpr std::size_t kMaxBoxRanges = 4096;
std::vector<core::AccessRange> box_ranges(const RegionBox& box, const Endpoint& side,
                                          std::uint64_t pitch, std::uint64_t slice_pitch) {
  std::vector<core::AccessRange> ranges;
  for (std::uint64_t z = 0; z < box.depth; ++z) {
    for (std::uint64_t y = 0; y < box.height; ++y) {
      const std::uint64_t begin = side.address + z * slice_pitch + y * pitch;
      if (!ranges.empty() && ranges.back().begin + ranges.back().bytes == begin) {
        ranges.back().bytes += box.width;
        continue;
      }
      if (ranges.size() == kMaxBoxRanges) {
        return {core::AccessRange{side.address, box_extent(box, pitch, slice_pitch), !side.device}};
      }
      ranges.push_back(core::AccessRange{begin, box.width, !side.device});
    }
  }
  return ranges;
}

// A region copy: one operation declaring the rows it reads and writes.
void describe_region_copy(const Command& c, core::OpDesc& desc) MOCKDEV_ZE_LOCKED {
  desc.kind = core::OpKind::kCopy;
  const RegionBox& box = *c.region;
  if (box.bytes() == 0) return;
  std::vector<core::AccessRange> reads = box_ranges(box, c.src, box.src_pitch, box.src_slice_pitch);
  std::vector<core::AccessRange> writes =
      box_ranges(box, c.dst, box.dst_pitch, box.dst_slice_pitch);
  desc.read = reads.front();
  desc.write = writes.front();
  desc.more_reads.assign(reads.begin() + 1, reads.end());
  desc.more_writes.assign(writes.begin() + 1, writes.end());
  desc.duration_ns = copy_duration_ns(c.dst, c.src, box.bytes());
  auto job = std::make_shared<RegionJob>(RegionJob{c.dst, c.src, c.region});
  desc.action.kind = core::ActionKind::kLockedCall;
  desc.action.call = run_region_copy;
  desc.action.args[0] = reinterpret_cast<std::uintptr_t>(job.get());
  desc.action.keep = std::move(job);
}

// The writes of a timestamp query (one result per event).
void describe_timestamp_query(const Command& c, core::OpDesc& desc) MOCKDEV_ZE_LOCKED {
  desc.kind = core::OpKind::kMemset;
  const TimestampQuery& q = *c.query;
  for (std::size_t i = 0; i < q.destinations.size(); ++i) {
    const core::AccessRange range{q.destinations[i].address, sizeof(ze_kernel_timestamp_result_t),
                                  !q.destinations[i].device};
    if (i == 0) {
      desc.write = range;
    } else {
      desc.more_writes.push_back(range);
    }
  }
  desc.action.kind = core::ActionKind::kLockedCall;
  desc.action.call = run_timestamp_query;
  desc.action.args[0] = reinterpret_cast<std::uintptr_t>(c.query.get());
  desc.action.keep = std::const_pointer_cast<TimestampQuery>(c.query);
}

// The copy's engine operation: host endpoints are read or written when it executes.
void describe_copy(const Command& c, core::OpDesc& desc) MOCKDEV_ZE_LOCKED {
  const StreamSettings::Timing& timing = core::engine().machine.streams.timing;
  desc.kind = core::OpKind::kCopy;
  if (c.bytes == 0) return;
  desc.read = core::AccessRange{c.src.address, c.bytes, !c.src.device};
  desc.write = core::AccessRange{c.dst.address, c.bytes, !c.dst.device};
  desc.action.dst = c.dst.address;
  desc.action.src = c.src.address;
  desc.action.bytes = c.bytes;
  if (c.src.device && c.dst.device) {
    desc.action.kind = core::ActionKind::kCopyDevice;
    desc.duration_ns = core::transfer_ns(
        c.bytes, c.src.card == c.dst.card ? timing.dtod_gb_per_s : timing.peer_gb_per_s);
  } else if (c.dst.device) {
    desc.action.kind = core::ActionKind::kHostToDevice;
    desc.duration_ns = core::transfer_ns(c.bytes, timing.htod_gb_per_s);
  } else if (c.src.device) {
    desc.action.kind = core::ActionKind::kDeviceToHost;
    desc.duration_ns = core::transfer_ns(c.bytes, timing.dtoh_gb_per_s);
  } else {
    desc.action.kind = core::ActionKind::kLockedCall;
    desc.action.call = run_host_copy;
    desc.action.args[0] = c.dst.address;
    desc.action.args[1] = c.src.address;
    desc.action.args[2] = c.bytes;
    desc.duration_ns = core::transfer_ns(c.bytes, timing.htod_gb_per_s);
  }
}

void describe_fill(const Command& c, core::OpDesc& desc) MOCKDEV_ZE_LOCKED {
  const StreamSettings::Timing& timing = core::engine().machine.streams.timing;
  desc.kind = core::OpKind::kMemset;
  if (c.bytes == 0) return;
  desc.write = core::AccessRange{c.dst.address, c.bytes, !c.dst.device};
  desc.duration_ns = core::transfer_ns(c.bytes, timing.memset_gb_per_s);
  const std::vector<unsigned char>& pattern = *c.pattern;
  if (c.dst.device && (pattern.size() == 1 || pattern.size() == 4)) {
    std::uint32_t value = 0;
    std::memcpy(&value, pattern.data(), pattern.size());
    desc.action.kind = core::ActionKind::kFill;
    desc.action.dst = c.dst.address;
    desc.action.bytes = c.bytes;
    desc.action.pattern = value;
    desc.action.pattern_size = static_cast<std::uint8_t>(pattern.size());
    return;
  }
  auto job = std::make_shared<FillJob>(FillJob{c.dst, c.bytes, c.pattern});
  desc.action.kind = core::ActionKind::kLockedCall;
  desc.action.call = run_fill;
  desc.action.args[0] = reinterpret_cast<std::uintptr_t>(job.get());
  desc.action.keep = std::move(job);
}

// Enqueues `c` now (its wait events are reachable).
core::OpId enqueue_command(Stream& s, const Command& c, ze_result_t* code) MOCKDEV_ZE_LOCKED {
  std::vector<core::OpId> deps{s.fence};
  if (s.in_order || s.synchronous) deps.push_back(s.last);
  for (const _ze_event_handle_t* e : c.waits) {
    if (!e->host_signalled && e->signal_op != 0) deps.push_back(e->signal_op);
  }
  core::OpDesc desc;
  desc.name = c.name;
  bool fence = false;
  switch (c.kind) {
    case CommandKind::kCopy:
      describe_copy(c, desc);
      break;
    case CommandKind::kFill:
      describe_fill(c, desc);
      break;
    case CommandKind::kBarrier:
      // zeCommandListAppendBarrier: without wait events, everything appended before; with them,
      // only those.
      desc.kind = core::OpKind::kBarrier;
      if (c.waits.empty()) {
        deps.insert(deps.end(), s.since_fence.begin(), s.since_fence.end());
        deps.push_back(s.last);
      }
      fence = true;
      break;
    case CommandKind::kWaitEvents:
      desc.kind = core::OpKind::kEventWait;
      fence = true;
      break;
    case CommandKind::kSignal:
      desc.kind = core::OpKind::kEventRecord;
      break;
    case CommandKind::kEventReset:
      desc.kind = core::OpKind::kBarrier;
      desc.action.kind = core::ActionKind::kLockedCall;
      desc.action.call = run_event_reset;
      desc.action.args[0] = reinterpret_cast<std::uintptr_t>(c.target);
      desc.action.args[1] = c.target->signal_op;
      ++c.target->pending_resets;
      break;
    case CommandKind::kRegionCopy:
      describe_region_copy(c, desc);
      break;
    case CommandKind::kHint:
      desc.kind = core::OpKind::kBarrier;  // ordering only: no pages move in the mock
      break;
    case CommandKind::kQueryTimestamps:
      describe_timestamp_query(c, desc);
      break;
    case CommandKind::kLaunch:
      describe_launch(c, desc);
      break;
    case CommandKind::kTimestamp: {
      // An ordering-only marker whose end time is the timestamp, then the write.
      core::OpDesc marker;
      marker.kind = core::OpKind::kBarrier;
      marker.name = c.name;
      const core::OpId m = core::enqueue(s.queue, std::move(marker), deps);
      core::keep_end_time(m);
      auto job = std::make_shared<TimestampJob>(TimestampJob{c.dst, s.card, m});
      desc.kind = core::OpKind::kMemset;
      desc.write = core::AccessRange{c.dst.address, 8, !c.dst.device};
      desc.action.kind = core::ActionKind::kLockedCall;
      desc.action.call = run_timestamp;
      desc.action.args[0] = reinterpret_cast<std::uintptr_t>(job.get());
      desc.action.keep = std::move(job);
      deps.assign(1, m);
      break;
    }
  }
  const std::uint64_t duration = desc.duration_ns;
  const core::OpId op = core::enqueue(s.queue, std::move(desc), deps);
  s.last = op;
  s.issued.push_back(op);
  prune(s.issued);
  if (fence) {
    s.fence = op;
    s.since_fence.clear();
  } else {
    s.since_fence.push_back(op);
    prune(s.since_fence);
  }
  if (c.signal != nullptr) attach_signal(*c.signal, op, duration, s.device);
  if (c.fence != nullptr && is_handle(c.fence, HandleKind::kFence) &&
      c.fence->awaited == c.fence_submission) {
    c.fence->op = op;  // Note [Level Zero fences]
  }
  if (s.synchronous) {  // every append completes before it returns
    const core::OpId ops[] = {op};
    if (core::wait_for(ops, c.name) == core::WaitResult::kDeadlock) {
      *code = ZE_RESULT_ERROR_DEVICE_LOST;
    }
  }
  return op;
}

}  // namespace

std::uint64_t device_ticks(int card, std::uint64_t ns, int valid_bits) {
  const LevelZeroDeviceSpec& spec =
      core::engine().machine.devices.at(static_cast<std::size_t>(card)).level_zero;
  const auto elapsed = static_cast<std::uint64_t>(static_cast<double>(ns) / spec.timer_resolution_ns);
  const std::uint64_t ticks = spec.timestamp_start_ticks + elapsed;
  if (valid_bits >= 64) return ticks;
  return ticks & ((std::uint64_t{1} << valid_bits) - 1);
}

core::OpId submit(Stream& stream, const Command& command, ze_result_t* code) {
  if (stream.deferred.empty() && waits_reachable(command)) {
    return enqueue_command(stream, command, code);
  }
  // It cannot start yet, and what follows it starts after it (Note [Level Zero streams]).
  stream.deferred.push_back(command);
  auto& stalled = objects().stalled;
  if (std::find(stalled.begin(), stalled.end(), &stream) == stalled.end()) {
    stalled.push_back(&stream);
  }
  if (stream.synchronous) {
    report(std::string("deadlock: ") + command.name +
           " on a synchronous list waits for an event that nothing will signal");
    *code = ZE_RESULT_ERROR_DEVICE_LOST;
  }
  return 0;
}

void flush_deferred() {
  bool progress = true;
  while (progress) {
    progress = false;
    const std::vector<Stream*> stalled = objects().stalled;  // enqueues may edit the list
    for (Stream* s : stalled) {
      while (!s->deferred.empty() && waits_reachable(s->deferred.front())) {
        const Command c = s->deferred.front();
        s->deferred.pop_front();
        ze_result_t ignored = ZE_RESULT_SUCCESS;
        enqueue_command(*s, c, &ignored);
        progress = true;
      }
      if (s->deferred.empty()) std::erase(objects().stalled, s);
    }
  }
}

void forget_stream(Stream& stream) {
  std::erase(objects().stalled, &stream);
}

namespace {

// The host clock moves by `timeout` (Note [Level Zero virtual time]): an ordering-only
// operation of that length on a queue of its own, waited for.
void host_sleep(int card, std::uint64_t timeout) MOCKDEV_ZE_LOCKED {
  static std::uint64_t queue = 0;
  static std::uint64_t queue_generation = ~std::uint64_t{0};
  if (queue_generation != core::engine().generation) {
    queue = core::create_queue(card, "level zero host wait timeouts");
    queue_generation = core::engine().generation;
  }
  const std::uint64_t latency = core::engine().machine.streams.timing.launch_latency_ns;
  constexpr std::uint64_t kLongest = std::uint64_t{1} << 62;  // no overflow of the clock
  core::OpDesc desc;
  desc.kind = core::OpKind::kBarrier;
  desc.name = "host wait timeout";
  desc.duration_ns = std::min(timeout > latency ? timeout - latency : 0, kLongest);
  const core::OpId op = core::enqueue(queue, std::move(desc), {});
  const core::OpId ops[] = {op};
  // Observers are told: the host clock moves only when the host learns of an operation.
  // The operation touches nothing, so the happens-before edge it adds orders nothing.
  core::wait_for(ops, "host wait timeout");
}

}  // namespace

ze_result_t timed_wait(const std::vector<core::OpId>& ops, bool blocked, std::uint64_t timeout,
                       int card, const char* caller, const std::string& what) {
  if (blocked) {
    if (timeout == 0) return ZE_RESULT_NOT_READY;
    if (timeout == UINT64_MAX) {
      report(std::string("deadlock: ") + caller + " waits forever for " + what +
             ", which nothing will signal");
      return ZE_RESULT_ERROR_DEVICE_LOST;
    }
    host_sleep(card, timeout);
    return ZE_RESULT_NOT_READY;
  }
  if (timeout == 0) return core::query(ops) ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
  const std::uint64_t now = core::host_time_ns();
  if (timeout != UINT64_MAX) {
    // Completion must fall within now + timeout (Note [Level Zero virtual time]). Work the schedule
    // has not run yet is forced first, without the host learning of it (so neither the clock nor
    // happens-before moves): its virtual end does not depend on when it runs.
    bool all_complete = true;
    for (core::OpId op : ops) all_complete = all_complete && core::is_complete(op);
    if (!all_complete && core::wait_for(ops, caller, false) == core::WaitResult::kDeadlock) {
      return ZE_RESULT_ERROR_DEVICE_LOST;
    }
    std::uint64_t end = 0;
    for (core::OpId op : ops) end = std::max(end, core::end_time(op));
    if (end > now && end - now > timeout) {
      const std::uint64_t host = core::host_time_ns();  // moved when work was forced
      if (host < now + timeout) host_sleep(card, now + timeout - host);
      return ZE_RESULT_NOT_READY;
    }
  }
  if (core::wait_for(ops, caller) == core::WaitResult::kDeadlock) {
    return ZE_RESULT_ERROR_DEVICE_LOST;
  }
  return ZE_RESULT_SUCCESS;
}

}  // namespace mockdev::level_zero
