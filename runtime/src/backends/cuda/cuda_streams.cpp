// The CUDA backend's streams (cuda_streams.h).
#include "backends/cuda/cuda_streams.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUresult;
using cuda_abi::CUstream;

// A null handle is the default stream: CUDA's NULL stream, the legacy one for the
// entry points the backend resolves (cuGetProcAddress with CU_GET_PROC_ADDRESS_DEFAULT;
// CUDA Driver API reference).
CUstream as_stream(StreamHandle stream) noexcept {
  return reinterpret_cast<CUstream>(stream.value);
}

}  // namespace

Result<bool> DeviceCalls::query(int index, std::string_view operation, std::string_view entry_point,
                                const Call& call) noexcept {
  bool ready = true;
  auto wrapped = CallOf([&](const DriverApi& api) {
    const CUresult rc = call(api);
    if (rc != cuda_abi::CUDA_ERROR_NOT_READY) return rc;
    ready = false;
    return cuda_abi::CUDA_SUCCESS;
  });
  Status status = run(index, operation, entry_point, wrapped);
  if (!status.ok()) return status;
  return ready;
}

Result<Backend::PriorityRange> stream_priority_range(DeviceCalls& calls, int index) noexcept {
  Backend::PriorityRange range;
  Status status = calls.run(index, "stream_priority_range", "cuCtxGetStreamPriorityRange",
                            CallOf([&](const DriverApi& api) {
                              return api.cuCtxGetStreamPriorityRange(&range.least, &range.greatest);
                            }));
  if (!status.ok()) return status;
  return range;
}

// PyTorch's pool streams are non-blocking (c10/cuda/CUDAStream.cpp): they never wait for the
// legacy default stream implicitly.
Result<StreamHandle> create_stream(DeviceCalls& calls, int index, int priority) noexcept {
  CUstream stream = nullptr;
  Status status = calls.run(
      index, "create_stream", "cuStreamCreateWithPriority", CallOf([&](const DriverApi& api) {
        return api.cuStreamCreateWithPriority(&stream, cuda_abi::CU_STREAM_NON_BLOCKING, priority);
      }));
  if (!status.ok()) return status;
  return StreamHandle{reinterpret_cast<std::uintptr_t>(stream)};
}

Status destroy_stream(DeviceCalls& calls, int index, StreamHandle stream) noexcept {
  return calls.run(index, "destroy_stream", "cuStreamDestroy", CallOf([&](const DriverApi& api) {
                     return api.cuStreamDestroy(as_stream(stream));
                   }));
}

Result<bool> query_stream(DeviceCalls& calls, int index, StreamHandle stream) noexcept {
  return calls.query(index, "query_stream", "cuStreamQuery", CallOf([&](const DriverApi& api) {
                       return api.cuStreamQuery(as_stream(stream));
                     }));
}

Status synchronize_stream(DeviceCalls& calls, int index, StreamHandle stream) noexcept {
  return calls.run(
      index, "synchronize_stream", "cuStreamSynchronize",
      CallOf([&](const DriverApi& api) { return api.cuStreamSynchronize(as_stream(stream)); }));
}

}  // namespace accel::detail::cuda
