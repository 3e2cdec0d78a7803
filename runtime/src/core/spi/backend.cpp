// The default implementations of the Backend SPI's optional capabilities.
#include "core/spi/backend.h"

namespace accel::detail {

Status Backend::unsupported(std::string_view capability,
                            std::string_view operation) const noexcept {
  try {
    return Status(ErrorKind::kUnsupported, std::string(operation) + ": the " + name() +
                                               " backend does not support " +
                                               std::string(capability));
  } catch (...) {
    return host_out_of_memory();
  }
}

Status Backend::synchronize_device(int) noexcept {
  return unsupported("device synchronization", "synchronize_device");
}

Result<MemoryInfo> Backend::memory_info(int) noexcept {
  return unsupported("memory", "memory_info");
}
Result<DevicePointer> Backend::allocate(int, std::size_t) noexcept {
  return unsupported("memory", "allocate");
}
Status Backend::deallocate(int, DevicePointer) noexcept {
  return unsupported("memory", "deallocate");
}

Result<StreamHandle> Backend::create_stream(int, int) noexcept {
  return unsupported("streams and events", "create_stream");
}
Status Backend::destroy_stream(StreamHandle) noexcept {
  return unsupported("streams and events", "destroy_stream");
}
Status Backend::synchronize_stream(StreamHandle) noexcept {
  return unsupported("streams and events", "synchronize_stream");
}
Result<EventHandle> Backend::create_event(int) noexcept {
  return unsupported("streams and events", "create_event");
}
Status Backend::destroy_event(EventHandle) noexcept {
  return unsupported("streams and events", "destroy_event");
}
Status Backend::record_event(EventHandle, StreamHandle) noexcept {
  return unsupported("streams and events", "record_event");
}
Status Backend::stream_wait_event(StreamHandle, EventHandle) noexcept {
  return unsupported("streams and events", "stream_wait_event");
}
Status Backend::synchronize_event(EventHandle) noexcept {
  return unsupported("streams and events", "synchronize_event");
}

Status Backend::begin_capture(StreamHandle) noexcept {
  return unsupported("graphs", "begin_capture");
}
Result<GraphHandle> Backend::end_capture(StreamHandle) noexcept {
  return unsupported("graphs", "end_capture");
}
Status Backend::launch_graph(GraphHandle, StreamHandle) noexcept {
  return unsupported("graphs", "launch_graph");
}
Status Backend::destroy_graph(GraphHandle) noexcept {
  return unsupported("graphs", "destroy_graph");
}

Status Backend::configuration_status() noexcept { return Status(); }

std::string Backend::visibility_filter() const { return {}; }

BackendReport Backend::report() noexcept {
  BackendReport report;
  try {
    const int count = fork_safe_device_count();
    report.device_count = count > 0 ? count : 0;
    report.available = count > 0;
    report.count_source = count >= 0 ? "fork-safe count" : "none";
    if (count <= 0) report.unavailable_reason = "no device found";
  } catch (...) {
  }
  return report;
}

Result<bool> Backend::can_access_peer(int, int) noexcept {
  return unsupported("peers", "can_device_access_peer");
}

}  // namespace accel::detail
