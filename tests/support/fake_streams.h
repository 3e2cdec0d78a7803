#pragma once
// FakeStreams: the streams, events and graphs behind MockBackend's default actions, with
// the rules of the CUDA driver that the runtime core relies on, and switches that let a
// test hold work back.
//
// Model: a stream is "busy" while a test says so (set_busy); nothing else ever runs late.
// An event recorded on a busy stream is incomplete until that stream is synchronised, the
// device is synchronised, or the event itself is synchronised. Records advance a virtual
// clock by 0.5 ms, so elapsed_time is exact. A handle used with another device's index, a
// stream recorded by an event of another device, timing on an event without timing, a
// second capture on a capturing stream, ending a capture that is not running: kDriver
// errors with the CUDA driver's texts and code names. The device's priority range is
// {0, -5} (an H100's).
// Thread safety: every member may be called from any thread (one mutex).

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "spi/backend.h"

namespace accel::test {

class FakeStreams {
 public:
  explicit FakeStreams(int device_count) : device_count_(device_count) {}

  detail::Result<detail::Backend::PriorityRange> stream_priority_range(int index);
  detail::Result<detail::StreamHandle> create_stream(int index, int priority);
  detail::Status destroy_stream(int index, detail::StreamHandle stream);
  detail::Result<bool> query_stream(int index, detail::StreamHandle stream);
  detail::Status synchronize_stream(int index, detail::StreamHandle stream);
  detail::Status synchronize_device(int index);
  detail::Result<detail::EventHandle> create_event(int index, EventOptions options);
  detail::Status destroy_event(int index, detail::EventHandle event);
  detail::Status record_event(int index, detail::EventHandle event, detail::StreamHandle stream);
  detail::Status stream_wait_event(int index, detail::StreamHandle stream,
                                   detail::EventHandle event);
  detail::Result<bool> query_event(int index, detail::EventHandle event);
  detail::Status synchronize_event(int index, detail::EventHandle event);
  detail::Result<float> event_elapsed_time(int index, detail::EventHandle start,
                                           detail::EventHandle end);
  detail::Status begin_capture(int index, detail::StreamHandle stream, CaptureErrorMode mode);
  detail::Result<detail::CapturedGraphHandle> end_capture(int index, detail::StreamHandle stream);
  detail::Result<detail::GraphHandle> instantiate_graph(int index,
                                                        detail::CapturedGraphHandle graph);
  detail::Status launch_graph(int index, detail::GraphHandle graph, detail::StreamHandle stream);
  detail::Status destroy_graph(int index, detail::GraphHandle graph);
  detail::Status destroy_captured_graph(int index, detail::CapturedGraphHandle graph);

  // Test controls and observations.
  void set_busy(int index, detail::StreamHandle stream, bool busy);
  int streams_created(int index) const;
  int live_events() const;
  int live_graphs() const;  // captured graphs not destroyed
  int live_execs() const;   // executable graphs not destroyed
  int launches(detail::GraphHandle graph) const;
  int waits() const;  // stream_wait_event calls that succeeded
  std::optional<int> stream_priority(detail::StreamHandle stream) const;
  std::optional<CaptureErrorMode> capture_mode(detail::StreamHandle stream) const;

 private:
  using StreamKey = std::pair<int, std::uintptr_t>;  // (device, handle); 0 = default stream
  struct FakeStream {
    int device;
    int priority;
  };
  struct FakeEvent {
    int device;
    EventOptions options;
    bool recorded = false;
    bool complete = true;
    double time_ms = 0;
    StreamKey recorded_on{-1, 0};
  };
  struct FakeCapture {
    CaptureErrorMode mode;
  };

  detail::Status check_device(int index) const;
  // kDriver "<op>: CUDA error: invalid resource handle" unless `stream` is one of index's.
  detail::Status check_stream(std::string_view operation, int index,
                              detail::StreamHandle stream) const;
  void complete_events_of(const StreamKey& key);

  const int device_count_;
  mutable std::mutex mutex_;
  std::uintptr_t next_handle_ = 0x1000;
  double clock_ms_ = 0;
  std::map<std::uintptr_t, FakeStream> streams_;
  std::map<int, int> created_per_device_;
  std::set<StreamKey> busy_;
  std::map<std::uintptr_t, FakeEvent> events_;
  std::map<StreamKey, FakeCapture> capturing_;
  std::map<std::uintptr_t, int> graphs_;  // captured graph -> device
  std::map<std::uintptr_t, int> execs_;   // executable -> device
  std::map<std::uintptr_t, int> launches_;
  int waits_ = 0;
};

// The driver's failure for a fake call: kDriver "<operation>: CUDA error: <text>
// (device=<i>, driver=<name>)", as backends/cuda/cuda_status.cpp words them.
detail::Status fake_driver_error(std::string_view operation, int device, std::string_view text,
                                 std::string_view name, int code);

}  // namespace accel::test
