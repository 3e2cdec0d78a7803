#include "fake_streams.h"

#include <string>

namespace accel::test {

namespace {
constexpr int kInvalidHandle = 400;
constexpr const char* kInvalidHandleText = "invalid resource handle";
constexpr const char* kInvalidHandleName = "CUDA_ERROR_INVALID_HANDLE";
}  // namespace

detail::Status fake_driver_error(std::string_view operation, int device, std::string_view text,
                                 std::string_view name, int code) {
  ErrorDetail detail;
  detail.device = device;
  detail.driver_code = code;
  detail.driver_error_name = std::string(name);
  return detail::Status(ErrorKind::kDriver,
                        std::string(operation) + ": CUDA error: " + std::string(text) +
                            " (device=" + std::to_string(device) +
                            ", driver=" + std::string(name) + ")",
                        detail);
}

detail::Status FakeStreams::check_device(int index) const {
  if (index >= 0 && index < device_count_) return {};
  return fake_driver_error("fake", index, "invalid device ordinal", "CUDA_ERROR_INVALID_DEVICE",
                           101);
}

detail::Status FakeStreams::check_stream(std::string_view operation, int index,
                                         detail::StreamHandle stream) const {
  if (detail::Status device = check_device(index); !device.ok()) return device;
  if (!stream) return {};
  auto it = streams_.find(stream.value);
  if (it == streams_.end() || it->second.device != index) {
    return fake_driver_error(operation, index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  return {};
}

void FakeStreams::complete_events_of(const StreamKey& key) {
  for (auto& [handle, event] : events_) {
    if (event.recorded_on == key) event.complete = true;
  }
}

detail::Result<detail::Backend::PriorityRange> FakeStreams::stream_priority_range(int index) {
  std::lock_guard lock(mutex_);
  if (detail::Status device = check_device(index); !device.ok()) return device;
  return detail::Backend::PriorityRange{0, -5};
}

detail::Result<detail::StreamHandle> FakeStreams::create_stream(int index, int priority) {
  std::lock_guard lock(mutex_);
  if (detail::Status device = check_device(index); !device.ok()) return device;
  const std::uintptr_t handle = next_handle_++;
  // The driver clamps priorities into its range.
  streams_[handle] = FakeStream{index, priority < -5 ? -5 : (priority > 0 ? 0 : priority)};
  ++created_per_device_[index];
  return detail::StreamHandle{handle};
}

detail::Status FakeStreams::destroy_stream(int index, detail::StreamHandle stream) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("destroy_stream", index, stream); !s.ok()) return s;
  streams_.erase(stream.value);
  return {};
}

detail::Result<bool> FakeStreams::query_stream(int index, detail::StreamHandle stream) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("query_stream", index, stream); !s.ok()) return s;
  return busy_.count({index, stream.value}) == 0;
}

detail::Status FakeStreams::synchronize_stream(int index, detail::StreamHandle stream) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("synchronize_stream", index, stream); !s.ok()) return s;
  busy_.erase({index, stream.value});
  complete_events_of({index, stream.value});
  return {};
}

detail::Status FakeStreams::synchronize_device(int index) {
  std::lock_guard lock(mutex_);
  if (detail::Status device = check_device(index); !device.ok()) return device;
  for (auto it = busy_.begin(); it != busy_.end();) {
    if (it->first == index) {
      complete_events_of(*it);
      it = busy_.erase(it);
    } else {
      ++it;
    }
  }
  return {};
}

detail::Result<detail::EventHandle> FakeStreams::create_event(int index, EventOptions options) {
  std::lock_guard lock(mutex_);
  if (detail::Status device = check_device(index); !device.ok()) return device;
  // The driver: an interprocess event must have timing disabled.
  if (options.interprocess && options.enable_timing) {
    return fake_driver_error("create_event: cuEventCreate", index, "invalid argument",
                             "CUDA_ERROR_INVALID_VALUE", 1);
  }
  const std::uintptr_t handle = next_handle_++;
  events_[handle] = FakeEvent{index, options};
  return detail::EventHandle{handle};
}

detail::Status FakeStreams::destroy_event(int index, detail::EventHandle event) {
  std::lock_guard lock(mutex_);
  auto it = events_.find(event.value);
  if (it == events_.end() || it->second.device != index) {
    return fake_driver_error("destroy_event", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  events_.erase(it);
  return {};
}

detail::Status FakeStreams::record_event(int index, detail::EventHandle event,
                                         detail::StreamHandle stream) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("record_event", index, stream); !s.ok()) return s;
  auto it = events_.find(event.value);
  if (it == events_.end() || it->second.device != index) {
    return fake_driver_error("record_event", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  clock_ms_ += 0.5;
  it->second.recorded = true;
  it->second.time_ms = clock_ms_;
  it->second.recorded_on = {index, stream.value};
  it->second.complete = busy_.count({index, stream.value}) == 0;
  return {};
}

detail::Status FakeStreams::stream_wait_event(int index, detail::StreamHandle stream,
                                              detail::EventHandle event) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("stream_wait_event", index, stream); !s.ok()) return s;
  if (events_.count(event.value) == 0) {
    return fake_driver_error("stream_wait_event", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  ++waits_;
  return {};
}

detail::Result<bool> FakeStreams::query_event(int index, detail::EventHandle event) {
  std::lock_guard lock(mutex_);
  auto it = events_.find(event.value);
  if (it == events_.end() || it->second.device != index) {
    return fake_driver_error("query_event", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  return it->second.complete;
}

detail::Status FakeStreams::synchronize_event(int index, detail::EventHandle event) {
  std::lock_guard lock(mutex_);
  auto it = events_.find(event.value);
  if (it == events_.end() || it->second.device != index) {
    return fake_driver_error("synchronize_event", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  it->second.complete = true;
  return {};
}

detail::Result<float> FakeStreams::event_elapsed_time(int index, detail::EventHandle start,
                                                      detail::EventHandle end) {
  std::lock_guard lock(mutex_);
  auto a = events_.find(start.value);
  auto b = events_.find(end.value);
  // The driver: events of two devices, or without timing, or never recorded: 400.
  if (a == events_.end() || b == events_.end() || a->second.device != index ||
      b->second.device != index || !a->second.options.enable_timing ||
      !b->second.options.enable_timing || !a->second.recorded || !b->second.recorded) {
    return fake_driver_error("event_elapsed_time: cuEventElapsedTime", index, kInvalidHandleText,
                             kInvalidHandleName, kInvalidHandle);
  }
  if (!a->second.complete || !b->second.complete) {
    return fake_driver_error("event_elapsed_time: cuEventElapsedTime", index,
                             "device not ready", "CUDA_ERROR_NOT_READY", 600);
  }
  return static_cast<float>(b->second.time_ms - a->second.time_ms);
}

detail::Status FakeStreams::begin_capture(int index, detail::StreamHandle stream,
                                          CaptureErrorMode mode) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("begin_capture", index, stream); !s.ok()) return s;
  if (!stream) {
    return fake_driver_error("begin_capture: cuStreamBeginCapture", index,
                             "operation not permitted when stream is capturing",
                             "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 900);
  }
  if (!capturing_.emplace(StreamKey{index, stream.value}, FakeCapture{mode}).second) {
    return fake_driver_error("begin_capture: cuStreamBeginCapture", index,
                             "operation not permitted when stream is capturing",
                             "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 900);
  }
  return {};
}

detail::Result<detail::CapturedGraphHandle> FakeStreams::end_capture(int index,
                                                                     detail::StreamHandle stream) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("end_capture", index, stream); !s.ok()) return s;
  if (capturing_.erase({index, stream.value}) == 0) {
    return fake_driver_error("end_capture: cuStreamEndCapture", index,
                             "the operation is not permitted in the current state",
                             "CUDA_ERROR_ILLEGAL_STATE", 401);
  }
  const std::uintptr_t graph = next_handle_++;
  graphs_[graph] = index;
  return detail::CapturedGraphHandle{graph};
}

detail::Result<detail::GraphHandle> FakeStreams::instantiate_graph(
    int index, detail::CapturedGraphHandle graph) {
  std::lock_guard lock(mutex_);
  auto it = graphs_.find(graph.value);
  if (it == graphs_.end() || it->second != index) {
    return fake_driver_error("instantiate_graph", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  const std::uintptr_t exec = next_handle_++;
  execs_[exec] = index;
  return detail::GraphHandle{exec};
}

detail::Status FakeStreams::launch_graph(int index, detail::GraphHandle graph,
                                         detail::StreamHandle stream) {
  std::lock_guard lock(mutex_);
  if (detail::Status s = check_stream("launch_graph", index, stream); !s.ok()) return s;
  auto it = execs_.find(graph.value);
  if (it == execs_.end() || it->second != index) {
    return fake_driver_error("launch_graph", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  ++launches_[graph.value];
  return {};
}

detail::Status FakeStreams::destroy_graph(int index, detail::GraphHandle graph) {
  std::lock_guard lock(mutex_);
  auto it = execs_.find(graph.value);
  if (it == execs_.end() || it->second != index) {
    return fake_driver_error("destroy_graph", index, kInvalidHandleText, kInvalidHandleName,
                             kInvalidHandle);
  }
  execs_.erase(it);
  return {};
}

detail::Status FakeStreams::destroy_captured_graph(int index, detail::CapturedGraphHandle graph) {
  std::lock_guard lock(mutex_);
  auto it = graphs_.find(graph.value);
  if (it == graphs_.end() || it->second != index) {
    return fake_driver_error("destroy_captured_graph", index, kInvalidHandleText,
                             kInvalidHandleName, kInvalidHandle);
  }
  graphs_.erase(it);
  return {};
}

void FakeStreams::set_busy(int index, detail::StreamHandle stream, bool busy) {
  std::lock_guard lock(mutex_);
  if (busy) {
    busy_.insert({index, stream.value});
  } else {
    busy_.erase({index, stream.value});
    complete_events_of({index, stream.value});
  }
}

int FakeStreams::streams_created(int index) const {
  std::lock_guard lock(mutex_);
  auto it = created_per_device_.find(index);
  return it == created_per_device_.end() ? 0 : it->second;
}
int FakeStreams::live_events() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(events_.size());
}
int FakeStreams::live_graphs() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(graphs_.size());
}
int FakeStreams::live_execs() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(execs_.size());
}
int FakeStreams::launches(detail::GraphHandle graph) const {
  std::lock_guard lock(mutex_);
  auto it = launches_.find(graph.value);
  return it == launches_.end() ? 0 : it->second;
}
int FakeStreams::waits() const {
  std::lock_guard lock(mutex_);
  return waits_;
}
std::optional<int> FakeStreams::stream_priority(detail::StreamHandle stream) const {
  std::lock_guard lock(mutex_);
  auto it = streams_.find(stream.value);
  if (it == streams_.end()) return std::nullopt;
  return it->second.priority;
}
std::optional<CaptureErrorMode> FakeStreams::capture_mode(detail::StreamHandle stream) const {
  std::lock_guard lock(mutex_);
  for (const auto& [key, capture] : capturing_) {
    if (key.second == stream.value) return capture.mode;
  }
  return std::nullopt;
}

}  // namespace accel::test
