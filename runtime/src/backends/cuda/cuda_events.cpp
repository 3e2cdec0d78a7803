// The CUDA backend's events (cuda_backend_impl.h).
#include "backends/cuda/cuda_backend_impl.h"

namespace accel::detail::cuda {

namespace {

using cuda_abi::CUevent;
using cuda_abi::CUstream;

CUstream as_stream(StreamHandle stream) noexcept {
  return reinterpret_cast<CUstream>(stream.value);
}
CUevent as_event(EventHandle event) noexcept { return reinterpret_cast<CUevent>(event.value); }

// PyTorch's flags (aten/src/ATen/cuda/CUDAEvent.h): timing disabled unless asked for.
unsigned event_flags(const EventOptions& options) noexcept {
  unsigned flags = options.enable_timing ? 0u : cuda_abi::CU_EVENT_DISABLE_TIMING;
  if (options.blocking) flags |= cuda_abi::CU_EVENT_BLOCKING_SYNC;
  if (options.interprocess) flags |= cuda_abi::CU_EVENT_INTERPROCESS;
  return flags;
}

}  // namespace

Result<EventHandle> CudaBackend::create_event(int index, EventOptions options) noexcept {
  CUevent event = nullptr;
  Status status = with_device_context(
      index, "create_event", "cuEventCreate",
      [&](const DriverApi& api) { return api.cuEventCreate(&event, event_flags(options)); });
  if (!status.ok()) return status;
  return EventHandle{reinterpret_cast<std::uintptr_t>(event)};
}

Status CudaBackend::destroy_event(int index, EventHandle event) noexcept {
  return with_device_context(index, "destroy_event", "cuEventDestroy", [&](const DriverApi& api) {
    return api.cuEventDestroy(as_event(event));
  });
}

Status CudaBackend::record_event(int index, EventHandle event, StreamHandle stream) noexcept {
  return with_device_context(index, "record_event", "cuEventRecord", [&](const DriverApi& api) {
    return api.cuEventRecord(as_event(event), as_stream(stream));
  });
}

// Under the stream's device, as PyTorch's CUDAEvent::block.
Status CudaBackend::stream_wait_event(int stream_index, StreamHandle stream,
                                      EventHandle event) noexcept {
  return with_device_context(stream_index, "stream_wait_event", "cuStreamWaitEvent",
                             [&](const DriverApi& api) {
                               return api.cuStreamWaitEvent(as_stream(stream), as_event(event),
                                                            cuda_abi::CU_EVENT_WAIT_DEFAULT);
                             });
}

Result<bool> CudaBackend::query_event(int index, EventHandle event) noexcept {
  return query_with_device_context(index, "query_event", "cuEventQuery", [&](const DriverApi& api) {
    return api.cuEventQuery(as_event(event));
  });
}

Status CudaBackend::synchronize_event(int index, EventHandle event) noexcept {
  return with_device_context(
      index, "synchronize_event", "cuEventSynchronize",
      [&](const DriverApi& api) { return api.cuEventSynchronize(as_event(event)); });
}

Result<float> CudaBackend::event_elapsed_time(int index, EventHandle start,
                                              EventHandle end) noexcept {
  float milliseconds = 0.0f;
  Status status = with_device_context(
      index, "event_elapsed_time", "cuEventElapsedTime", [&](const DriverApi& api) {
        return api.cuEventElapsedTime(&milliseconds, as_event(start), as_event(end));
      });
  if (!status.ok()) return status;
  return milliseconds;
}

}  // namespace accel::detail::cuda
