#pragma once
// The engine's side of the runtime's tool interface (accel_abi/tool_interface.h): what the
// runtime tells a tool, turned into observer calls (core/op_observer.h). The exported C
// functions that the runtime calls are control/runtime_tool.cpp; they take the engine lock
// and call these. Everything here requires the engine lock.
//
// Note [Runtime names]
// The simulated hardware sees the driver, not the runtime above it: a race report could name
// a stream only as the driver handle and the simulation's label, and the caching allocator's
// bytes showed only as the driver's memory in use. The runtime's tool interface (Note [The
// tool interface] in accel_abi/tool_interface.h) closes the gap without the runtime knowing
// its simulator: with ACCEL_TOOL_LIBRARY naming libmockdev.so, the runtime calls
//   accel_tool_name_queue(device, native_queue, name): the queue whose handle the program
//       holds (each vendor row's queue_of_handle hook maps it to an engine queue; a handle no
//       initialised API handed out, such as another driver's, is ignored) is named; the race
//       detector reports it as `CUstream 0x5a1 = "cuda:0 stream id=3 (priority 0)" (queue
//       "dev0/stream 1 (non-blocking)")` and the trace names its track
//       "cuda:0 stream id=3 (priority 0) = CUstream 0x5a1: dev0/stream 1 (non-blocking)";
//   accel_tool_memory(device, allocated, reserved): the trace's "accel runtime: caching
//       allocator" process gets a counter per runtime device ("cuda:0") holding both, on the
//       host's virtual clock.
// Names and counters belong to the installed machine's observers: a machine installed later
// (control::reset) starts with none, as its queues are new. Before the engine started there
// is no queue to name and nothing to trace, so the calls do nothing then (they never load a
// machine).

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/engine_lock.h"

namespace mockdev::core {

// The engine queue of `native_queue` under the first initialised API whose row maps it;
// nullopt when none does (or it is null).
std::optional<std::uint64_t> queue_of_native_handle(const void* native_queue)
    MOCKDEV_REQUIRES(g_engine_mutex);
// Tells the observers that the runtime named `queue` `name` (a queue id never created is
// ignored).
void name_queue(std::uint64_t queue, std::string_view name) MOCKDEV_REQUIRES(g_engine_mutex);
// Tells the observers the runtime allocator's bytes on runtime device `device` ("cuda:0"),
// at the host's virtual clock.
void note_runtime_memory(std::string_view device, std::int64_t allocated_bytes,
                         std::int64_t reserved_bytes) MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
