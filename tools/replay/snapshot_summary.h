#pragma once
// `accel memory-summary SNAPSHOT`: PyTorch's memory_summary() table for a dumped memory
// snapshot (docs/REPLAY.md, "A snapshot's memory summary"), the same table
// accel::memory_summary() prints for the live allocator (accel::format_memory_summary).
//
// Note [What a snapshot says of the statistics]
// A snapshot is the allocator's state at one moment plus a window of its history, so:
//   * Cur Usage is exact for every row: rebuilt from the device's segments and blocks by the
//     allocator's own rules (invariant 14, stats_invariants.h current_from_segments).
//   * Peak Usage, Tot Alloc and Tot Freed come from device_traces[device], the window: walking
//     it forward gives each statistic's change after every entry, so the state before the
//     window is the current one less the window's net change, and the peak is that start
//     plus the largest running change (never below Cur Usage). Tot Alloc / Tot Freed sum the
//     window's increases / decreases. An entry changes: alloc -- allocations and allocated,
//     active bytes and counts; free_requested -- allocations and allocated bytes (the block
//     stays active until its free completes); free_completed -- active; "free" (the name
//     before the split) -- both; segment_alloc / segment_free -- segments and reserved bytes;
//     segment_map / segment_unmap -- reserved bytes (expandable segments map pages, not
//     segments); oom -- CUDA OOMs. The pool of an entry is read from its size, by PyTorch's
//     policy: a block of at most 1 MiB is in the small pool, a segment of exactly 2 MiB is a
//     small-pool segment, mapped pages are large-pool.
//   * What no trace entry says -- requested memory, non-releasable memory and allocs, the
//     oversize rows, cudaMalloc retries -- is shown as Cur Usage for the peak and 0 for the
//     totals, and the lines under the table say so.
// If the window holds the whole history (recording started before the first allocation and
// no entry was dropped), the peaks and totals are those of memory_stats(); otherwise they
// are those of the window, which the lines under the table also say.
//
// Reading: the streaming JSON reader (json_reader.h) through the bounded trace source, so a
// multi-gigabyte snapshot is read once in linear time; each segment and each entry of the
// device's trace is built as a small JSON value, checked, and dropped. Errors: TraceError
// "<file>:<line>: <path>: <what is wrong>".

#include <cstdint>
#include <string>

#include "accel/memory.h"
#include "trace_source.h"

namespace accel::replay {

struct SnapshotSummary {
  MemoryStats stats;          // the 122 keys of memory_stats(), as the note above fills them
  std::uint64_t segments = 0;  // the device's segments in the snapshot
  std::uint64_t entries = 0;   // entries in device_traces[device] (0 when absent)
  bool has_traces = false;     // the snapshot has device_traces[device]
};

SnapshotSummary summarize_snapshot(TraceSource& source, int device);
SnapshotSummary summarize_snapshot_file(const std::string& path, int device);

// The table and the lines that say what its columns cover.
std::string render_snapshot_summary(const SnapshotSummary& summary, const std::string& file,
                                    int device, bool abbreviated);

}  // namespace accel::replay
