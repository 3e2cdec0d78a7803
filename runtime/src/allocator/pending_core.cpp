// WORK IN PROGRESS -- deleted before the allocator work lands. Bodies of the device
// allocator's contract (allocator_config.h, device_stats.h, device_caching_allocator.h)
// that are being written; each throws kUnsupported so that everything links meanwhile.

#include "allocator/allocator_config.h"
#include "allocator/device_caching_allocator.h"
#include "allocator/device_stats.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

namespace accel::detail::alloc {
namespace {
[[noreturn]] void pending(const char* what) {
  throw Error(ErrorKind::kUnsupported, std::string(what) + ": not written yet");
}
}  // namespace

std::size_t AllocatorConfig::divisions_for(std::size_t) const noexcept { return 0; }
Result<AllocatorConfig> parse_allocator_config(std::string_view, std::string_view,
                                               const AllocatorConfig& base) {
  return base;
}
Result<AllocatorConfig> allocator_config_from_environment() { return AllocatorConfig{}; }
std::string to_string(const AllocatorConfig&) { return {}; }

void Stat::increase(std::int64_t) noexcept {}
void Stat::decrease(std::int64_t) noexcept {}
void StatArray::increase(bool, std::int64_t) noexcept {}
void StatArray::decrease(bool, std::int64_t) noexcept {}
void DeviceStats::reset_peak() noexcept {}
void DeviceStats::reset_accumulated() noexcept {}
std::map<std::string, std::int64_t> flatten(const DeviceStats&) { return {}; }

struct DeviceCachingAllocator::Impl {};
DeviceCachingAllocator::DeviceCachingAllocator(std::unique_ptr<DeviceMemoryProvider>,
                                               AllocatorConfig) {}
DeviceCachingAllocator::~DeviceCachingAllocator() = default;
int DeviceCachingAllocator::device() const noexcept { return 0; }
std::uint64_t DeviceCachingAllocator::allocate(std::size_t, StreamId, const HostFrame&) {
  pending("allocate");
}
void DeviceCachingAllocator::free(std::uint64_t, const HostFrame&) { pending("free"); }
bool DeviceCachingAllocator::owns(std::uint64_t) const { return false; }
void DeviceCachingAllocator::record_stream(std::uint64_t, StreamId) { pending("record_stream"); }
void DeviceCachingAllocator::empty_cache() { pending("empty_cache"); }
DeviceStats DeviceCachingAllocator::stats() const { return {}; }
void DeviceCachingAllocator::reset_peak_stats() {}
void DeviceCachingAllocator::reset_accumulated_stats() {}
void DeviceCachingAllocator::set_memory_fraction(double) {}
double DeviceCachingAllocator::memory_fraction() const { return 1.0; }
void DeviceCachingAllocator::set_config(const AllocatorConfig&) {}
std::vector<SegmentSnapshot> DeviceCachingAllocator::snapshot() const { return {}; }
void DeviceCachingAllocator::record_history(bool, std::size_t) {}
std::vector<TraceEntry> DeviceCachingAllocator::trace() const { return {}; }
void DeviceCachingAllocator::begin_allocate_to_pool(MempoolId, StreamId) {}
void DeviceCachingAllocator::end_allocate_to_pool(MempoolId) {}
void DeviceCachingAllocator::release_pool(MempoolId) {}
bool DeviceCachingAllocator::capture_underway() const { return false; }

}  // namespace accel::detail::alloc
