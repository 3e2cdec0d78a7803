// WORK IN PROGRESS: filled in when the stream objects land (merge of the streams base).
#include "cuda/capture_streams.h"

namespace mockdev::cuda::capture {

CUresult resolve(CUstream, StreamRef*) { return CUDA_ERROR_NOT_SUPPORTED; }

}  // namespace mockdev::cuda::capture
