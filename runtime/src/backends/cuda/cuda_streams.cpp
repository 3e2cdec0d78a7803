// The CUDA backend's streams and device synchronisation (cuda_backend_impl.h): each call
// runs under the device's primary context (with_device_context). CUDA_ERROR_NOT_READY
// from a query is an answer (false), not an error.
#include "backends/cuda/cuda_backend_impl.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUstream;

// A null handle is the default stream: CUDA's NULL stream, the legacy one for the
// entry points the backend resolves (cuGetProcAddress with CU_GET_PROC_ADDRESS_DEFAULT;
// CUDA Driver API reference).
CUstream as_stream(StreamHandle stream) noexcept {
  return reinterpret_cast<CUstream>(stream.value);
}

}  // namespace

Result<Backend::PriorityRange> CudaBackend::stream_priority_range(int index) noexcept {
  Backend::PriorityRange range;
  Status status = with_device_context(
      index, "stream_priority_range", "cuCtxGetStreamPriorityRange", [&](const DriverApi& api) {
        return api.cuCtxGetStreamPriorityRange(&range.least, &range.greatest);
      });
  if (!status.ok()) return status;
  return range;
}

// PyTorch's pool streams are non-blocking (c10/cuda/CUDAStream.cpp): they never wait for the
// legacy default stream implicitly.
Result<StreamHandle> CudaBackend::create_stream(int index, int priority) noexcept {
  CUstream stream = nullptr;
  Status status = with_device_context(
      index, "create_stream", "cuStreamCreateWithPriority", [&](const DriverApi& api) {
        return api.cuStreamCreateWithPriority(&stream, cuda_abi::CU_STREAM_NON_BLOCKING, priority);
      });
  if (!status.ok()) return status;
  return StreamHandle{reinterpret_cast<std::uintptr_t>(stream)};
}

Status CudaBackend::destroy_stream(int index, StreamHandle stream) noexcept {
  return with_device_context(index, "destroy_stream", "cuStreamDestroy", [&](const DriverApi& api) {
    return api.cuStreamDestroy(as_stream(stream));
  });
}

Result<bool> CudaBackend::query_stream(int index, StreamHandle stream) noexcept {
  return query_with_device_context(
      index, "query_stream", "cuStreamQuery",
      [&](const DriverApi& api) { return api.cuStreamQuery(as_stream(stream)); });
}

Status CudaBackend::synchronize_stream(int index, StreamHandle stream) noexcept {
  return with_device_context(
      index, "synchronize_stream", "cuStreamSynchronize",
      [&](const DriverApi& api) { return api.cuStreamSynchronize(as_stream(stream)); });
}

Status CudaBackend::synchronize_device(int index) noexcept {
  return with_device_context(index, "synchronize_device", "cuCtxSynchronize",
                             [](const DriverApi& api) { return api.cuCtxSynchronize(); });
}

}  // namespace accel::detail::cuda
