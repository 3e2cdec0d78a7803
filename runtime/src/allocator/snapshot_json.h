#pragma once
// The JSON writer behind accel::memory_snapshot_json (accel/memory.h): a MemorySnapshot in
// the shape of PyTorch's pickled snapshot, so tools that read a pickle->JSON dump of
// torch.cuda.memory._snapshot() read this too.
//
//   {"segments": [{"device", "address", "total_size", "allocated_size", "active_size",
//                  "requested_size", "stream", "segment_type", "segment_pool_id": [a, b],
//                  "is_expandable", "blocks": [{"address", "size", "requested_size", "state",
//                                               "frames": [{"filename", "line", "name"}]}]}],
//    "device_traces": [[{"action", "addr", "size", "stream", "time_us", "frames"}]]}
//
// Hand-written because the runtime library has no JSON dependency. Keys are written in the
// order above, on one line with no spaces, so equal snapshots give byte-equal text. Numbers
// are JSON integers (addresses included: 64-bit readers keep them exact). Strings: '"' and
// '\' escaped, control characters as \b \f \n \r \t or \u00XX, valid UTF-8 passed through
// unchanged, and each byte of an invalid UTF-8 sequence replaced by U+FFFD (\ufffd), so the
// output is always valid JSON whatever bytes a file name holds. Pure and thread-safe.

#include <string>
#include <string_view>

#include "accel/memory.h"

namespace accel::detail::alloc {

// Appends `text` as a JSON string literal (quotes included) to `out`.
void append_json_string(std::string& out, std::string_view text);

std::string snapshot_to_json(const MemorySnapshot& snapshot);

}  // namespace accel::detail::alloc
