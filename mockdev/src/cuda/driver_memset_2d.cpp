// The 16-bit and 2D memsets of the simulated driver (declared in driver_api.h), sync and
// async, one strided operation each (strided_ops.h) that writes only the rows' bytes, never
// the pitch gaps. Like the 1D forms (driver_memset.cpp), the synchronous ones run on the
// legacy stream and return without waiting. Arguments, in the order checked:
//   documented: for 16- and 32-bit values, the destination and (with more than one row)
//     the pitch must be aligned to the value's size: INVALID_VALUE;
//   [inferred] with more than one row, a row wider than the pitch: INVALID_VALUE (the
//     pitch is unused for one row);
//   the stream; [inferred] an empty range (no value or no row) then succeeds and writes
//   nothing, unchecked; a range not inside one live allocation: INVALID_VALUE; the sticky
//   error of the stream's device; then the fill.

#include <optional>

#include "core/memory.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/strided_ops.h"

namespace mockdev::cuda::impl {
namespace {

CUresult memset_2d(CUstream handle, bool sync, CUdeviceptr dst, std::size_t pitch,
                   std::uint32_t value, unsigned size, std::size_t width, std::size_t height,
                   const char* name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const std::uint64_t row = static_cast<std::uint64_t>(width) * size;
  if (row / size != width) return CUDA_ERROR_INVALID_VALUE;
  const bool rows = height > 1;
  if (dst % size != 0 || (rows && pitch % size != 0)) return CUDA_ERROR_INVALID_VALUE;
  if (rows && row > pitch) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(handle);
  if (r.stream == nullptr) return r.error;
  if (width == 0 || height == 0) return CUDA_SUCCESS;
  StridedSide side;
  side.first = dst;
  side.pitch = rows ? pitch : row;
  const StridedBox box{row, height, 1};
  const std::uint64_t span = strided_span(side, box);
  if (side.first + span < side.first) return CUDA_ERROR_INVALID_VALUE;
  std::optional<core::Allocation> target = core::find_containing(dst, span, nullptr);
  if (!target || target->owner != Api::kCuda) return CUDA_ERROR_INVALID_VALUE;
  side.device = target->device;
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  const std::uint64_t queue = r.stream->queue;
  const CUresult rc = submit_strided_fill(r.stream, side, box, value, size, name);
  if (rc != CUDA_SUCCESS || !sync || !host_memory_target(dst)) return rc;
  // A synchronous memset of host memory is fully synchronous (host_memory_target).
  const core::OpId ops[] = {core::queue_tail(queue)};
  return host_wait(ops, name);
}

}  // namespace

CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, std::size_t count) {
  return memset_2d(nullptr, true, dst, 0, value, 2, count, 1, "cuMemsetD16_v2");
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, std::size_t count,
                          CUstream stream) {
  return memset_2d(stream, false, dst, 0, value, 2, count, 1, "cuMemsetD16Async");
}

CUresult cuMemsetD2D8_v2(CUdeviceptr dst, std::size_t pitch, unsigned char value,
                         std::size_t width, std::size_t height) {
  return memset_2d(nullptr, true, dst, pitch, value, 1, width, height, "cuMemsetD2D8_v2");
}

CUresult cuMemsetD2D16_v2(CUdeviceptr dst, std::size_t pitch, unsigned short value,
                          std::size_t width, std::size_t height) {
  return memset_2d(nullptr, true, dst, pitch, value, 2, width, height, "cuMemsetD2D16_v2");
}

CUresult cuMemsetD2D32_v2(CUdeviceptr dst, std::size_t pitch, unsigned int value,
                          std::size_t width, std::size_t height) {
  return memset_2d(nullptr, true, dst, pitch, value, 4, width, height, "cuMemsetD2D32_v2");
}

CUresult cuMemsetD2D8Async(CUdeviceptr dst, std::size_t pitch, unsigned char value,
                           std::size_t width, std::size_t height, CUstream stream) {
  return memset_2d(stream, false, dst, pitch, value, 1, width, height, "cuMemsetD2D8Async");
}

CUresult cuMemsetD2D16Async(CUdeviceptr dst, std::size_t pitch, unsigned short value,
                            std::size_t width, std::size_t height, CUstream stream) {
  return memset_2d(stream, false, dst, pitch, value, 2, width, height, "cuMemsetD2D16Async");
}

CUresult cuMemsetD2D32Async(CUdeviceptr dst, std::size_t pitch, unsigned int value,
                            std::size_t width, std::size_t height, CUstream stream) {
  return memset_2d(stream, false, dst, pitch, value, 4, width, height, "cuMemsetD2D32Async");
}

}  // namespace mockdev::cuda::impl
