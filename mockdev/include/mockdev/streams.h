#pragma once
// The control API of the stream simulation, for tests: which schedule is in force, the
// virtual clock, what is queued, pinned host memory, and the declared accesses of host
// functions (so the race detector sees what a host callback touches). Over the engine that
// the simulated driver uses in this process (the facade and the test share libmockdev.so).
// Thread-safe: each call takes the engine lock. Never call these from inside a host
// function while expecting driver progress: they only read state.

#include <cstdint>
#include <optional>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::streams {

// The settings in force (the machine file's `streams:`, with MOCKDEV_SCHEDULE and
// MOCKDEV_SEED applied when the machine came from the environment).
StreamSettings settings();

// The host's virtual clock in nanoseconds (core Note [Virtual time]).
std::uint64_t host_time_ns();

struct Stats {
  std::uint64_t enqueued = 0;  // operations since the machine was installed
  std::uint64_t completed = 0;
  std::uint64_t pending = 0;     // neither complete nor cancelled
  std::uint64_t host_waits = 0;  // host waits told to the observers
  std::uint64_t queues = 0;      // queues (streams) created
};
Stats stats();

// The queue of a CUDA stream handle (a created stream; 0 or CU_STREAM_LEGACY: the legacy
// stream of the calling thread's current context, if it exists yet); nullopt when the
// handle names no live stream.
std::optional<std::uint64_t> cuda_stream_queue(const void* stream);
// Ids of the incomplete operations of `queue`, in order.
std::vector<std::uint64_t> pending_operations(std::uint64_t queue);

// Bytes of pinned host memory now (allocated and registered), and of device backing store
// (64 KiB pages created by writes).
std::uint64_t pinned_bytes();
std::uint64_t backed_bytes();

// A byte range a host function reads or writes (`host`: a host range, else device memory).
struct Range {
  std::uint64_t begin = 0;
  std::uint64_t bytes = 0;
  bool host = false;
};
// Host functions launched with this `user_data` (cuLaunchHostFunc, cuStreamAddCallback)
// from now on declare these accesses; empty lists remove the declaration.
void declare_host_function_accesses(const void* user_data, const std::vector<Range>& reads,
                                    const std::vector<Range>& writes);

}  // namespace mockdev::streams
