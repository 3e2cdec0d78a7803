// The stream simulation's control API (mockdev/streams.h), but for cuda_stream_queue, which
// is the CUDA adapter's (cuda/cuda_control.cpp).

#include "core/engine.h"
#include "core/host_accesses.h"
#include "core/memory.h"
#include "core/pinned_host.h"
#include "core/timeline.h"
#include "mockdev/streams.h"

namespace mockdev::streams {

using core::EngineLock;

StreamSettings settings() {
  EngineLock lock;
  return core::engine().machine.streams;
}

std::uint64_t host_time_ns() {
  EngineLock lock;
  return core::host_time_ns();
}

Stats stats() {
  EngineLock lock;
  const core::TimelineStats s = core::timeline_stats();
  return Stats{s.enqueued, s.completed, s.pending, s.host_waits, s.queues};
}

std::vector<std::uint64_t> pending_operations(std::uint64_t queue) {
  EngineLock lock;
  return core::pending_ops(queue);
}

std::uint64_t pinned_bytes() {
  EngineLock lock;
  return core::pinned_bytes();
}

std::uint64_t backed_bytes() {
  EngineLock lock;
  return core::backed_bytes();
}

void declare_host_function_accesses(const void* user_data, const std::vector<Range>& reads,
                                    const std::vector<Range>& writes) {
  std::vector<core::AccessRange> r;
  std::vector<core::AccessRange> w;
  for (const Range& x : reads) r.push_back(core::AccessRange{x.begin, x.bytes, x.host});
  for (const Range& x : writes) w.push_back(core::AccessRange{x.begin, x.bytes, x.host});
  EngineLock lock;
  core::declare_accesses(user_data, std::move(r), std::move(w));
}

}  // namespace mockdev::streams
