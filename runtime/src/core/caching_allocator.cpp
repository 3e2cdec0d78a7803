// The process-level caching allocator registry (caching_allocator.h).
#include "core/caching_allocator.h"

#include <cstdio>

#include "accel_common/units.h"
#include "core/backend_memory_provider.h"
#include "spi/status.h"

namespace accel::detail::alloc {

CachingAllocator::CachingAllocator(Backend& backend, StreamPools& pools, int device_count,
                                   AllocatorConfig config, const ToolHooks* tool)
    : tool_(tool != nullptr && tool->memory != nullptr ? tool : nullptr), config_(std::move(config)) {
  devices_.reserve(static_cast<std::size_t>(device_count));
  for (int index = 0; index < device_count; ++index) {
    devices_.push_back(std::make_unique<DeviceCachingAllocator>(
        make_backend_device_provider(backend, pools, index), config_, backend.name()));
    if (tool_ != nullptr) {
      device_names_.push_back(std::string(to_string(backend.type())) + ":" + std::to_string(index));
    }
  }
  host_ = std::make_unique<HostCachingAllocator>(make_backend_host_provider(backend, pools),
                                                 config_);
}

CachingAllocator::~CachingAllocator() = default;

void CachingAllocator::report_usage(int device) const noexcept {
  if (tool_ == nullptr) [[likely]]
    return;
  const DeviceCachingAllocator::Usage usage = devices_[device]->usage();
  tool_->memory(device_names_[device].c_str(), usage.allocated, usage.reserved);
}

std::uint64_t CachingAllocator::allocate(int device, std::size_t bytes, StreamId stream,
                                         const HostFrame& site) {
  // Told on every way out: an out-of-memory retry may have released cached segments.
  struct Report {
    const CachingAllocator& self;
    int device;
    ~Report() { self.report_usage(device); }
  } report{*this, device};
  const std::uint64_t address = devices_[device]->allocate(bytes, stream, site);
  if (address == 0) return 0;
  try {
    std::lock_guard lock(mutex_);
    live_.emplace(address, device);
  } catch (...) {
    devices_[device]->free(address, site);  // not remembered: not handed out
    throw;
  }
  return address;
}

void CachingAllocator::free(std::uint64_t address, const HostFrame& site,
                            std::string_view operation) {
  int device = -1;
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(address);
    if (it != live_.end()) {
      device = it->second;
      live_.erase(it);
    }
  }
  if (device < 0) {
    throw Error(ErrorKind::kValue,
                std::string(operation) + ": pointer " + common::hex_address(address) +
                    " is not a live allocation of the caching allocator (never allocated by "
                    "it, or already freed)");
  }
  devices_[device]->free(address, site);
  report_usage(device);
}

int CachingAllocator::device_of(std::uint64_t address) const {
  for (const auto& device : devices_) {
    if (device->owns(address)) return device->device();
  }
  return -1;
}

void CachingAllocator::empty_cache() {
  for (const auto& device : devices_) {
    device->empty_cache();
    report_usage(device->device());
  }
}

void CachingAllocator::apply_settings(std::string_view text) {
  std::lock_guard lock(mutex_);
  AllocatorConfig config = check(parse_allocator_config(text, "set_allocator_settings", config_));
  for (const auto& device : devices_) device->set_config(config);
  config_ = std::move(config);
}

std::string CachingAllocator::settings() const {
  std::lock_guard lock(mutex_);
  return to_string(config_);
}

void CachingAllocator::record_history(bool enabled, std::size_t max_entries) {
  for (const auto& device : devices_) device->record_history(enabled, max_entries);
}

MemorySnapshot CachingAllocator::snapshot() const {
  MemorySnapshot snapshot;
  for (const auto& device : devices_) {
    std::vector<SegmentSnapshot> segments = device->snapshot();
    for (SegmentSnapshot& segment : segments) snapshot.segments.push_back(std::move(segment));
    snapshot.device_traces.push_back(device->trace());
  }
  return snapshot;
}

HostFrame host_frame(const char* file, unsigned line, const char* function) {
  HostFrame frame;
  frame.filename = file != nullptr ? file : "";
  frame.line = static_cast<int>(line);
  frame.name = function != nullptr ? function : "";
  return frame;
}

}  // namespace accel::detail::alloc
