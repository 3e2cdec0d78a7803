// The CUDA backend's events (cuda_streams.h).
#include "backends/cuda/cuda_streams.h"

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

Result<EventHandle> create_event(DeviceCalls& calls, int index, EventOptions options) noexcept {
  CUevent event = nullptr;
  Status status =
      calls.run(index, "create_event", "cuEventCreate", CallOf([&](const DriverApi& api) {
                  return api.cuEventCreate(&event, event_flags(options));
                }));
  if (!status.ok()) return status;
  return EventHandle{reinterpret_cast<std::uintptr_t>(event)};
}

Status destroy_event(DeviceCalls& calls, int index, EventHandle event) noexcept {
  return calls.run(index, "destroy_event", "cuEventDestroy", CallOf([&](const DriverApi& api) {
                     return api.cuEventDestroy(as_event(event));
                   }));
}

Status record_event(DeviceCalls& calls, int index, EventHandle event,
                    StreamHandle stream) noexcept {
  return calls.run(index, "record_event", "cuEventRecord", CallOf([&](const DriverApi& api) {
                     return api.cuEventRecord(as_event(event), as_stream(stream));
                   }));
}

// Under the stream's device, as PyTorch's CUDAEvent::block.
Status stream_wait_event(DeviceCalls& calls, int stream_index, StreamHandle stream,
                         EventHandle event) noexcept {
  return calls.run(stream_index, "stream_wait_event", "cuStreamWaitEvent",
                   CallOf([&](const DriverApi& api) {
                     return api.cuStreamWaitEvent(as_stream(stream), as_event(event),
                                                  cuda_abi::CU_EVENT_WAIT_DEFAULT);
                   }));
}

Result<bool> query_event(DeviceCalls& calls, int index, EventHandle event) noexcept {
  return calls.query(index, "query_event", "cuEventQuery", CallOf([&](const DriverApi& api) {
                       return api.cuEventQuery(as_event(event));
                     }));
}

Status synchronize_event(DeviceCalls& calls, int index, EventHandle event) noexcept {
  return calls.run(
      index, "synchronize_event", "cuEventSynchronize",
      CallOf([&](const DriverApi& api) { return api.cuEventSynchronize(as_event(event)); }));
}

Result<float> event_elapsed_time(DeviceCalls& calls, int index, EventHandle start,
                                 EventHandle end) noexcept {
  float milliseconds = 0.0f;
  Status status = calls.run(
      index, "event_elapsed_time", "cuEventElapsedTime", CallOf([&](const DriverApi& api) {
        return api.cuEventElapsedTime(&milliseconds, as_event(start), as_event(end));
      }));
  if (!status.ok()) return status;
  return milliseconds;
}

}  // namespace accel::detail::cuda
