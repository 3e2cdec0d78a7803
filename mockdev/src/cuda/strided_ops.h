#pragma once
// Stream operations over strided byte ranges: the rows of a pitched 2D or 3D copy and of a
// 2D memset (driver_copy_2d.cpp, driver_memset_2d.cpp). One operation moves every row when
// it completes, and declares to the observers exactly the rows' bytes, never the pitch gaps
// between them, so the race detector sees a pitched copy as the real copy engine touches
// memory. Contiguous rows (pitch == width) are merged into one range.
//
// Thread safety: engine lock. The plan is immutable once submitted (a captured graph keeps
// it and replays it, core::OpAction::keep).

#include <cstdint>
#include <memory>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda {

// One side of a strided operation: the address of its first row, its pitch (the bytes from
// one row to the next) and slice pitch (from one 2D slice to the next), and whether it is
// host memory (a pinned host range is read or written when the operation completes).
struct StridedSide {
  bool host = false;
  bool pinned = false;  // host: inside a pinned range
  int device = -1;      // device side: physical device
  std::uint64_t first = 0;
  std::uint64_t pitch = 0;
  std::uint64_t slice = 0;
};

// A width x height x depth box of bytes (width in bytes).
struct StridedBox {
  std::uint64_t width = 0;
  std::uint64_t height = 1;
  std::uint64_t depth = 1;
};

// The bytes from a side's first row to the end of its last row: what must lie inside one
// live allocation (device) or be addressable (host). 0 for an empty box.
std::uint64_t strided_span(const StridedSide& side, const StridedBox& box);

// Enqueues the copy of `box` from `src` to `dst` on `stream` (named `name`) and applies the
// 1D copies' return rule (driver_copy.cpp): a synchronous copy from pinned host memory or
// into host memory returns once complete, an asynchronous copy into pageable host memory
// too; a pageable host source is staged at the call. Host to host is done at the call.
// The caller validated both sides and the stream's sticky error.
CUresult submit_strided_copy(CUstream_st* stream, const StridedSide& dst, const StridedSide& src,
                             const StridedBox& box, bool sync, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// Enqueues the fill of `box` at device side `dst` with the `pattern_size`-byte pattern
// (1, 2 or 4 bytes, little-endian) on `stream`; returns without waiting.
CUresult submit_strided_fill(CUstream_st* stream, const StridedSide& dst, const StridedBox& box,
                             std::uint32_t pattern, unsigned pattern_size, const char* name)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
