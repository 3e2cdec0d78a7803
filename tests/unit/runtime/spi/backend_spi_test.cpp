// The backend SPI's defaults (spi/backend.h): a backend that implements only the
// mandatory groups answers kUnsupported, naming itself and the capability, for everything
// else, and still reports something sensible.
#include <gtest/gtest.h>

#include <string>

#include "spi/backend.h"

namespace accel::detail {
namespace {

// Only the pure virtual methods: what a new backend must write on day one.
class MinimalBackend final : public Backend {
 public:
  DeviceType type() const noexcept override { return DeviceType::kXPU; }
  std::string name() const override { return "minimal"; }
  int fork_safe_device_count() noexcept override { return 2; }
  Result<int> driver_device_count() noexcept override { return 2; }
  Status initialize() noexcept override { return Status(); }
  int device_count() const noexcept override { return 2; }
  Status set_device(int) noexcept override { return Status(); }
  Status maybe_set_device(int) noexcept override { return Status(); }
  Result<int> current_device() noexcept override { return 0; }
  Result<DeviceProperties> device_properties(int) noexcept override { return DeviceProperties{}; }
  Result<DeviceCapability> device_capability(int) noexcept override { return DeviceCapability{}; }
};

void expect_unsupported(const Status& status, const std::string& message) {
  EXPECT_EQ(status.kind(), ErrorKind::kUnsupported) << message;
  EXPECT_EQ(status.message(), message);
}

TEST(BackendSpiTest, OptionalCapabilitiesDefaultToUnsupported) {
  MinimalBackend backend;
  expect_unsupported(backend.can_access_peer(0, 1).status(),
                     "can_device_access_peer: the minimal backend does not support peers");
  expect_unsupported(backend.synchronize_device(0),
                     "synchronize_device: the minimal backend does not support device "
                     "synchronization");
  expect_unsupported(backend.memory_info(0).status(),
                     "memory_info: the minimal backend does not support memory");
  expect_unsupported(backend.allocate(0, 1024).status(),
                     "allocate: the minimal backend does not support memory");
  expect_unsupported(backend.deallocate(0, DevicePointer{1}),
                     "deallocate: the minimal backend does not support memory");
  const std::string streams = "the minimal backend does not support streams and events";
  expect_unsupported(backend.stream_priority_range(0).status(),
                     "stream_priority_range: " + streams);
  expect_unsupported(backend.create_stream(0, 0).status(), "create_stream: " + streams);
  expect_unsupported(backend.destroy_stream(0, StreamHandle{1}), "destroy_stream: " + streams);
  expect_unsupported(backend.query_stream(0, StreamHandle{1}).status(),
                     "query_stream: " + streams);
  expect_unsupported(backend.synchronize_stream(0, StreamHandle{1}),
                     "synchronize_stream: " + streams);
  expect_unsupported(backend.create_event(0, EventOptions{}).status(), "create_event: " + streams);
  expect_unsupported(backend.destroy_event(0, EventHandle{1}), "destroy_event: " + streams);
  expect_unsupported(backend.record_event(0, EventHandle{1}, StreamHandle{1}),
                     "record_event: " + streams);
  expect_unsupported(backend.stream_wait_event(0, StreamHandle{1}, EventHandle{1}),
                     "stream_wait_event: " + streams);
  expect_unsupported(backend.query_event(0, EventHandle{1}).status(), "query_event: " + streams);
  expect_unsupported(backend.synchronize_event(0, EventHandle{1}),
                     "synchronize_event: " + streams);
  expect_unsupported(backend.event_elapsed_time(0, EventHandle{1}, EventHandle{2}).status(),
                     "event_elapsed_time: " + streams);
  const std::string graphs = "the minimal backend does not support graphs";
  expect_unsupported(backend.begin_capture(0, StreamHandle{1}, CaptureErrorMode::kGlobal),
                     "begin_capture: " + graphs);
  expect_unsupported(backend.end_capture(0, StreamHandle{1}).status(), "end_capture: " + graphs);
  expect_unsupported(backend.instantiate_graph(0, CapturedGraphHandle{1}).status(),
                     "instantiate_graph: " + graphs);
  expect_unsupported(backend.launch_graph(0, GraphHandle{1}, StreamHandle{1}),
                     "launch_graph: " + graphs);
  expect_unsupported(backend.destroy_graph(0, GraphHandle{1}), "destroy_graph: " + graphs);
  expect_unsupported(backend.destroy_captured_graph(0, CapturedGraphHandle{1}),
                     "destroy_captured_graph: " + graphs);
  const std::string copies = "the minimal backend does not support copies and fills";
  char bytes[2] = {};
  expect_unsupported(backend.copy_async(0, StreamHandle{}, bytes, bytes + 1, 1),
                     "copy_async: " + copies);
  expect_unsupported(backend.fill_async(0, StreamHandle{}, bytes, 7, 2), "fill_async: " + copies);
}

TEST(BackendSpiTest, DefaultReportUsesTheForkSafeCount) {
  MinimalBackend backend;
  BackendReport report = backend.report();
  EXPECT_TRUE(report.available);
  EXPECT_EQ(report.device_count, 2);
  EXPECT_EQ(report.count_source, "fork-safe count");
  EXPECT_EQ(report.unavailable_reason, "");
  EXPECT_TRUE(report.components.empty());
  backend.prepare_fork();  // the fork hooks default to doing nothing
  backend.after_fork_parent();
  backend.after_fork_child();
}

TEST(BackendSpiTest, HandlesAreTypedAndZeroIsNone) {
  EXPECT_FALSE(StreamHandle{});
  EXPECT_TRUE(StreamHandle{7});
  EXPECT_EQ(EventHandle{3}, EventHandle{3});
  EXPECT_LT(GraphHandle{1}, GraphHandle{2});
}

}  // namespace
}  // namespace accel::detail
