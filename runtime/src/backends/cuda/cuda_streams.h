#pragma once
// The CUDA backend's streams, events and graphs (cuda_streams.cpp, cuda_events.cpp,
// cuda_graphs.cpp): each SPI method of those groups as a function over DeviceCalls, the
// part of the backend they need. CudaBackend (cuda_backend.cpp) implements DeviceCalls and
// forwards its overrides here, so these files add capabilities without growing it.
//
// Every call runs with the device's primary context current and restores the thread's
// previous context (as PyTorch runs stream and event calls under a device guard); a driver
// failure becomes a Status naming the operation, the entry point, the device and the
// driver's code name (cuda_status.h). CUDA_ERROR_NOT_READY from a query is an answer
// (false), not an error.

#include <cstdint>
#include <string_view>

#include "backends/cuda/driver_library.h"
#include "spi/backend.h"

namespace accel::detail::cuda {

class DeviceCalls {
 public:
  // One driver call, made with device `index`'s primary context current.
  class Call {
   public:
    virtual cuda_abi::CUresult operator()(const DriverApi& api) const noexcept = 0;

   protected:
    ~Call() = default;
  };

  // Runs `call` on `index`; its failure is "<operation>: <entry_point>: CUDA error: ...".
  virtual Status run(int index, std::string_view operation, std::string_view entry_point,
                     const Call& call) noexcept = 0;
  // run() that answers true for CUDA_SUCCESS and false for CUDA_ERROR_NOT_READY.
  Result<bool> query(int index, std::string_view operation, std::string_view entry_point,
                     const Call& call) noexcept;

 protected:
  ~DeviceCalls() = default;
};

// A Call from a lambda, without allocating.
template <class F>
class CallOf final : public DeviceCalls::Call {
 public:
  explicit CallOf(F f) : f_(std::move(f)) {}
  cuda_abi::CUresult operator()(const DriverApi& api) const noexcept override { return f_(api); }

 private:
  F f_;
};

// cuda_streams.cpp
Result<Backend::PriorityRange> stream_priority_range(DeviceCalls& calls, int index) noexcept;
Result<StreamHandle> create_stream(DeviceCalls& calls, int index, int priority) noexcept;
Status destroy_stream(DeviceCalls& calls, int index, StreamHandle stream) noexcept;
Result<bool> query_stream(DeviceCalls& calls, int index, StreamHandle stream) noexcept;
Status synchronize_stream(DeviceCalls& calls, int index, StreamHandle stream) noexcept;

// cuda_events.cpp
Result<EventHandle> create_event(DeviceCalls& calls, int index, EventOptions options) noexcept;
Status destroy_event(DeviceCalls& calls, int index, EventHandle event) noexcept;
Status record_event(DeviceCalls& calls, int index, EventHandle event, StreamHandle stream) noexcept;
Status stream_wait_event(DeviceCalls& calls, int stream_index, StreamHandle stream,
                         EventHandle event) noexcept;
Result<bool> query_event(DeviceCalls& calls, int index, EventHandle event) noexcept;
Status synchronize_event(DeviceCalls& calls, int index, EventHandle event) noexcept;
Result<float> event_elapsed_time(DeviceCalls& calls, int index, EventHandle start,
                                 EventHandle end) noexcept;

// cuda_graphs.cpp
Status begin_capture(DeviceCalls& calls, int index, StreamHandle stream,
                     CaptureErrorMode mode) noexcept;
Result<CapturedGraphHandle> end_capture(DeviceCalls& calls, int index,
                                        StreamHandle stream) noexcept;
Result<GraphHandle> instantiate_graph(DeviceCalls& calls, int index,
                                      CapturedGraphHandle graph) noexcept;
Status launch_graph(DeviceCalls& calls, int index, GraphHandle graph, StreamHandle stream) noexcept;
Status destroy_graph(DeviceCalls& calls, int index, GraphHandle graph) noexcept;
Status destroy_captured_graph(DeviceCalls& calls, int index, CapturedGraphHandle graph) noexcept;

}  // namespace accel::detail::cuda
