// The default implementations of the Backend SPI's optional capabilities.
#include "spi/backend.h"

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

namespace {
constexpr std::string_view kVirtualMemory = "virtual memory";
constexpr std::string_view kPinnedHost = "pinned host memory";
}  // namespace

Result<std::size_t> Backend::memory_granularity(int) noexcept {
  return unsupported(kVirtualMemory, "memory_granularity");
}
Result<DevicePointer> Backend::reserve_address_range(int, std::size_t) noexcept {
  return unsupported(kVirtualMemory, "reserve_address_range");
}
Status Backend::free_address_range(int, DevicePointer, std::size_t) noexcept {
  return unsupported(kVirtualMemory, "free_address_range");
}
Result<PhysicalMemoryHandle> Backend::create_physical_memory(int, std::size_t) noexcept {
  return unsupported(kVirtualMemory, "create_physical_memory");
}
Status Backend::release_physical_memory(int, PhysicalMemoryHandle) noexcept {
  return unsupported(kVirtualMemory, "release_physical_memory");
}
Status Backend::map_memory(int, DevicePointer, std::size_t, PhysicalMemoryHandle) noexcept {
  return unsupported(kVirtualMemory, "map_memory");
}
Status Backend::unmap_memory(int, DevicePointer, std::size_t) noexcept {
  return unsupported(kVirtualMemory, "unmap_memory");
}
Result<void*> Backend::allocate_host(std::size_t) noexcept {
  return unsupported(kPinnedHost, "allocate_host");
}
Status Backend::free_host(void*) noexcept { return unsupported(kPinnedHost, "free_host"); }

namespace {
constexpr std::string_view kStreams = "streams and events";
constexpr std::string_view kGraphs = "graphs";
}  // namespace

Result<Backend::PriorityRange> Backend::stream_priority_range(int) noexcept {
  return unsupported(kStreams, "stream_priority_range");
}
Result<StreamHandle> Backend::create_stream(int, int) noexcept {
  return unsupported(kStreams, "create_stream");
}
Status Backend::destroy_stream(int, StreamHandle) noexcept {
  return unsupported(kStreams, "destroy_stream");
}
Result<bool> Backend::query_stream(int, StreamHandle) noexcept {
  return unsupported(kStreams, "query_stream");
}
Status Backend::synchronize_stream(int, StreamHandle) noexcept {
  return unsupported(kStreams, "synchronize_stream");
}
Result<EventHandle> Backend::create_event(int, EventOptions) noexcept {
  return unsupported(kStreams, "create_event");
}
Status Backend::destroy_event(int, EventHandle) noexcept {
  return unsupported(kStreams, "destroy_event");
}
Status Backend::record_event(int, EventHandle, StreamHandle) noexcept {
  return unsupported(kStreams, "record_event");
}
Status Backend::stream_wait_event(int, StreamHandle, EventHandle) noexcept {
  return unsupported(kStreams, "stream_wait_event");
}
Result<bool> Backend::query_event(int, EventHandle) noexcept {
  return unsupported(kStreams, "query_event");
}
Status Backend::synchronize_event(int, EventHandle) noexcept {
  return unsupported(kStreams, "synchronize_event");
}
Result<float> Backend::event_elapsed_time(int, EventHandle, EventHandle) noexcept {
  return unsupported(kStreams, "event_elapsed_time");
}

namespace {
constexpr std::string_view kCopies = "copies and fills";
}  // namespace

Status Backend::copy_async(int, StreamHandle, void*, const void*, std::size_t) noexcept {
  return unsupported(kCopies, "copy_async");
}
Status Backend::fill_async(int, StreamHandle, void*, unsigned char, std::size_t) noexcept {
  return unsupported(kCopies, "fill_async");
}

Status Backend::begin_capture(int, StreamHandle, CaptureErrorMode) noexcept {
  return unsupported(kGraphs, "begin_capture");
}
Result<CapturedGraphHandle> Backend::end_capture(int, StreamHandle) noexcept {
  return unsupported(kGraphs, "end_capture");
}
Result<GraphHandle> Backend::instantiate_graph(int, CapturedGraphHandle) noexcept {
  return unsupported(kGraphs, "instantiate_graph");
}
Status Backend::launch_graph(int, GraphHandle, StreamHandle) noexcept {
  return unsupported(kGraphs, "launch_graph");
}
Status Backend::destroy_graph(int, GraphHandle) noexcept {
  return unsupported(kGraphs, "destroy_graph");
}
Status Backend::destroy_captured_graph(int, CapturedGraphHandle) noexcept {
  return unsupported(kGraphs, "destroy_captured_graph");
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

const void* Backend::driver_queue(int, StreamHandle stream) const noexcept {
  return reinterpret_cast<const void*>(stream.value);
}

Result<PeerLinkInfo> Backend::peer_link(int, int) noexcept {
  return unsupported("peers", "peer_link_info");
}

}  // namespace accel::detail
