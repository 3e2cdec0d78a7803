#pragma once
// The JSON writer behind accel::memory_snapshot_json (accel/memory.h): a MemorySnapshot in
// the shape of PyTorch's pickled snapshot (torch/csrc/cuda/memory_snapshot.cpp), key for
// key, so tools that read a pickle->JSON dump of torch.cuda.memory._snapshot() -- PyTorch's
// own torch/cuda/_memory_viz.py, accel replay -- read this too.
//
//   {"segments": [{"device", "address", "total_size", "allocated_size", "active_size",
//                  "requested_size", "stream", "segment_type", "segment_pool_id": [a, b],
//                  "is_expandable", "frames": [],
//                  "blocks": [{"address", "size", "requested_size", "state",
//                              "frames": [{"filename", "line", "name"}]}]}],
//    "device_traces": [[{"action", "addr", "size", "stream", "compile_context",
//                        "user_metadata", "time_us", "frames"}]],
//    "external_annotations": []}
//
// Note [Snapshot trace entries]
// Every action (alloc, free_requested, free_completed, segment_alloc, segment_free,
// segment_map, segment_unmap, snapshot, oom) has the same keys, as in PyTorch's writer, with
// two exceptions that are PyTorch's too: an "oom" entry names its number "device_free" (the
// free device memory the driver reported) instead of "addr", which is where _memory_viz.py
// reads it; and "frames" is written only for an entry that recorded its call site (PyTorch:
// only with a context), never as an empty list. "compile_context" is "N/A" (PyTorch's value
// outside a torch.compile region) and "user_metadata" "" (no annotations): the runtime has
// neither. A segment's "frames" is [] (its allocation context is not recorded), as PyTorch
// writes without context. Not written: "allocator_settings" (a MemorySnapshot does not carry
// the settings). Types: integers for every number (64-bit readers keep addresses exact;
// PyTorch writes them as signed 64-bit, the same digits below 2^63), strings, booleans.
//
// Hand-written because the runtime library has no JSON dependency. Keys are written in the
// order above, on one line with no spaces, so equal snapshots give byte-equal text. Strings:
// '"' and '\' escaped, control characters as \b \f \n \r \t or \u00XX, valid UTF-8 passed
// through unchanged, and each byte of an invalid UTF-8 sequence replaced by U+FFFD
// (\ufffd), so the output is always valid JSON whatever bytes a file name holds. Pure and
// thread-safe.

#include <string>
#include <string_view>

#include "accel/memory.h"

namespace accel::detail::alloc {

// Appends `text` as a JSON string literal (quotes included) to `out`.
void append_json_string(std::string& out, std::string_view text);

std::string snapshot_to_json(const MemorySnapshot& snapshot);

}  // namespace accel::detail::alloc
