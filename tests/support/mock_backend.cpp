#include "mock_backend.h"

#include <utility>

namespace accel::test {

using ::testing::Invoke;
using ::testing::Return;

void MockBackend::install_defaults(std::shared_ptr<FakeMachine> machine) {
  machine_ = std::move(machine);
  FakeMachine* m = machine_.get();
  const int count = m->device_count();
  ON_CALL(*this, type()).WillByDefault(Return(DeviceType::kCUDA));
  ON_CALL(*this, name()).WillByDefault(Return(std::string("cuda")));
  ON_CALL(*this, fork_safe_device_count()).WillByDefault(Return(count));
  ON_CALL(*this, driver_device_count()).WillByDefault([count] {
    return detail::Result<int>(count);
  });
  ON_CALL(*this, initialize()).WillByDefault([] { return detail::Status(); });
  ON_CALL(*this, device_count()).WillByDefault(Return(count));
  ON_CALL(*this, set_device).WillByDefault([m](int index) { return m->set_device(index); });
  ON_CALL(*this, maybe_set_device).WillByDefault([m](int index) {
    return m->maybe_set_device(index);
  });
  ON_CALL(*this, current_device()).WillByDefault([m] {
    return detail::Result<int>(m->current_device());
  });
  ON_CALL(*this, device_properties).WillByDefault([m](int index) {
    return m->device_properties(index);
  });
  ON_CALL(*this, device_capability).WillByDefault([m](int index) {
    return m->device_capability(index);
  });
  ON_CALL(*this, memory_info).WillByDefault([m](int index) { return m->memory_info(index); });
  streams_ = std::make_shared<FakeStreams>(count);
  FakeStreams* f = streams_.get();
  ON_CALL(*this, synchronize_device).WillByDefault([f](int index) {
    return f->synchronize_device(index);
  });
  ON_CALL(*this, stream_priority_range).WillByDefault([f](int index) {
    return f->stream_priority_range(index);
  });
  ON_CALL(*this, create_stream).WillByDefault([f](int index, int priority) {
    return f->create_stream(index, priority);
  });
  ON_CALL(*this, destroy_stream).WillByDefault([f](int index, detail::StreamHandle s) {
    return f->destroy_stream(index, s);
  });
  ON_CALL(*this, query_stream).WillByDefault([f](int index, detail::StreamHandle s) {
    return f->query_stream(index, s);
  });
  ON_CALL(*this, synchronize_stream).WillByDefault([f](int index, detail::StreamHandle s) {
    return f->synchronize_stream(index, s);
  });
  ON_CALL(*this, create_event).WillByDefault([f](int index, EventOptions options) {
    return f->create_event(index, options);
  });
  ON_CALL(*this, destroy_event).WillByDefault([f](int index, detail::EventHandle e) {
    return f->destroy_event(index, e);
  });
  ON_CALL(*this, record_event)
      .WillByDefault([f](int index, detail::EventHandle e, detail::StreamHandle s) {
        return f->record_event(index, e, s);
      });
  ON_CALL(*this, stream_wait_event)
      .WillByDefault([f](int index, detail::StreamHandle s, detail::EventHandle e) {
        return f->stream_wait_event(index, s, e);
      });
  ON_CALL(*this, query_event).WillByDefault([f](int index, detail::EventHandle e) {
    return f->query_event(index, e);
  });
  ON_CALL(*this, synchronize_event).WillByDefault([f](int index, detail::EventHandle e) {
    return f->synchronize_event(index, e);
  });
  ON_CALL(*this, event_elapsed_time)
      .WillByDefault([f](int index, detail::EventHandle a, detail::EventHandle b) {
        return f->event_elapsed_time(index, a, b);
      });
  ON_CALL(*this, begin_capture)
      .WillByDefault([f](int index, detail::StreamHandle s, CaptureErrorMode mode) {
        return f->begin_capture(index, s, mode);
      });
  ON_CALL(*this, end_capture).WillByDefault([f](int index, detail::StreamHandle s) {
    return f->end_capture(index, s);
  });
  ON_CALL(*this, instantiate_graph).WillByDefault([f](int index, detail::CapturedGraphHandle g) {
    return f->instantiate_graph(index, g);
  });
  ON_CALL(*this, launch_graph)
      .WillByDefault([f](int index, detail::GraphHandle g, detail::StreamHandle s) {
        return f->launch_graph(index, g, s);
      });
  ON_CALL(*this, destroy_graph).WillByDefault([f](int index, detail::GraphHandle g) {
    return f->destroy_graph(index, g);
  });
  ON_CALL(*this, destroy_captured_graph)
      .WillByDefault([f](int index, detail::CapturedGraphHandle g) {
        return f->destroy_captured_graph(index, g);
      });
  ON_CALL(*this, report()).WillByDefault([count] {
    BackendReport report;
    report.available = count > 0;
    report.components = {BackendComponent{"driver", "fake", true, "1.0"}};
    report.count_source = "nvml";
    report.device_count = count;
    return report;
  });
}

}  // namespace accel::test
