#include "cuda/capture_streams.h"

namespace mockdev::cuda::capture {

StreamRef ref_of(const CUstream_st* stream) {
  const bool legacy = stream->kind == CUstream_st::Kind::kLegacy;
  // Created blocking streams and the per-thread default streams synchronise with the
  // legacy stream (Note [Legacy stream] in stream_objects.h); non-blocking streams do not.
  return StreamRef{stream, stream->ctx->physical_device, stream->ctx, legacy,
                   !legacy && (stream->flags & CU_STREAM_NON_BLOCKING) == 0};
}

CUresult resolve(CUstream stream, StreamRef* out) {
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  *out = ref_of(r.stream);
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda::capture
