#pragma once
// MockBackend: a GMock of the backend SPI (accel::detail::Backend, spi/backend.h), for
// testing the runtime core without any driver. It mocks the identity, device, memory_info,
// streams, events and graphs methods; raw memory keeps the SPI's default (kUnsupported).
//
// install_defaults() makes every method delegate to a FakeMachine (4 devices by default)
// and its FakeStreams (streams(): busy streams, live events and graphs, launches),
// so a NiceMock<MockBackend> behaves like a small healthy machine and a test only states
// the calls it cares about (EXPECT_CALL) or overrides one answer (ON_CALL). The runtime
// owns the backend once it is handed to ScopedBackendOverride; the test keeps a raw
// pointer for expectations and must not use it after the override ends.
// Thread safety: as GMock's (calls from any thread; set expectations before the calls).

#include <gmock/gmock.h>

#include <memory>
#include <string>

#include "spi/backend.h"
#include "fake_machine.h"
#include "fake_streams.h"

namespace accel::test {

class MockBackend : public detail::Backend {
 public:
  MOCK_METHOD(DeviceType, type, (), (const, noexcept, override));
  MOCK_METHOD(std::string, name, (), (const, override));
  MOCK_METHOD(int, fork_safe_device_count, (), (noexcept, override));
  MOCK_METHOD(detail::Result<int>, driver_device_count, (), (noexcept, override));
  MOCK_METHOD(detail::Status, initialize, (), (noexcept, override));
  MOCK_METHOD(int, device_count, (), (const, noexcept, override));
  MOCK_METHOD(detail::Status, set_device, (int index), (noexcept, override));
  MOCK_METHOD(detail::Status, maybe_set_device, (int index), (noexcept, override));
  MOCK_METHOD(detail::Result<int>, current_device, (), (noexcept, override));
  MOCK_METHOD(detail::Result<DeviceProperties>, device_properties, (int index),
              (noexcept, override));
  MOCK_METHOD(detail::Result<DeviceCapability>, device_capability, (int index),
              (noexcept, override));
  MOCK_METHOD(detail::Result<MemoryInfo>, memory_info, (int index), (noexcept, override));
  MOCK_METHOD(detail::Status, synchronize_device, (int index), (noexcept, override));
  MOCK_METHOD(BackendReport, report, (), (noexcept, override));
  MOCK_METHOD(detail::Result<PriorityRange>, stream_priority_range, (int index),
              (noexcept, override));
  MOCK_METHOD(detail::Result<detail::StreamHandle>, create_stream, (int index, int priority),
              (noexcept, override));
  MOCK_METHOD(detail::Status, destroy_stream, (int index, detail::StreamHandle stream),
              (noexcept, override));
  MOCK_METHOD(detail::Result<bool>, query_stream, (int index, detail::StreamHandle stream),
              (noexcept, override));
  MOCK_METHOD(detail::Status, synchronize_stream, (int index, detail::StreamHandle stream),
              (noexcept, override));
  MOCK_METHOD(detail::Result<detail::EventHandle>, create_event, (int index, EventOptions options),
              (noexcept, override));
  MOCK_METHOD(detail::Status, destroy_event, (int index, detail::EventHandle event),
              (noexcept, override));
  MOCK_METHOD(detail::Status, record_event,
              (int index, detail::EventHandle event, detail::StreamHandle stream),
              (noexcept, override));
  MOCK_METHOD(detail::Status, stream_wait_event,
              (int index, detail::StreamHandle stream, detail::EventHandle event),
              (noexcept, override));
  MOCK_METHOD(detail::Result<bool>, query_event, (int index, detail::EventHandle event),
              (noexcept, override));
  MOCK_METHOD(detail::Status, synchronize_event, (int index, detail::EventHandle event),
              (noexcept, override));
  MOCK_METHOD(detail::Result<float>, event_elapsed_time,
              (int index, detail::EventHandle start, detail::EventHandle end),
              (noexcept, override));
  MOCK_METHOD(detail::Status, begin_capture,
              (int index, detail::StreamHandle stream, CaptureErrorMode mode),
              (noexcept, override));
  MOCK_METHOD(detail::Result<detail::CapturedGraphHandle>, end_capture,
              (int index, detail::StreamHandle stream), (noexcept, override));
  MOCK_METHOD(detail::Result<detail::GraphHandle>, instantiate_graph,
              (int index, detail::CapturedGraphHandle graph), (noexcept, override));
  MOCK_METHOD(detail::Status, launch_graph,
              (int index, detail::GraphHandle graph, detail::StreamHandle stream),
              (noexcept, override));
  MOCK_METHOD(detail::Status, destroy_graph, (int index, detail::GraphHandle graph),
              (noexcept, override));
  MOCK_METHOD(detail::Status, destroy_captured_graph,
              (int index, detail::CapturedGraphHandle graph), (noexcept, override));

  // Makes every method answer from `machine` (ON_CALL, so it also gives StrictMock a
  // return value for the calls it reports as unexpected).
  void install_defaults(std::shared_ptr<FakeMachine> machine);

  const std::shared_ptr<FakeMachine>& machine() const { return machine_; }
  // The streams, events and graphs behind the defaults (made by install_defaults()).
  const std::shared_ptr<FakeStreams>& streams() const { return streams_; }

 private:
  std::shared_ptr<FakeMachine> machine_;
  std::shared_ptr<FakeStreams> streams_;
};

}  // namespace accel::test
