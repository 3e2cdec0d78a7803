#include "allocator/host_caching_allocator.h"

#include <array>
#include <bit>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <iterator>
#include <limits>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "accel/error.h"
#include "accel_common/units.h"
#include "allocator/host_stats.h"
#include "spi/status.h"

namespace accel::detail::alloc {

std::size_t host_block_size(std::size_t bytes) noexcept {
  if (bytes > (std::numeric_limits<std::size_t>::max() >> 1) + 1) return 0;
  return std::bit_ceil(bytes);
}

namespace {

constexpr std::size_t kBucketCount = std::numeric_limits<std::size_t>::digits;

std::int64_t steady_microseconds() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Block {
  std::size_t size = 0;
  bool checked_out = false;               // handed to a caller and not freed since
  bool allocated_during_capture = false;  // Note [Host blocks and capture]
  std::set<std::pair<int, StreamId>> streams;  // recorded uses since it was handed out
  std::size_t pending_events = 0;              // events recorded at free, not yet completed
};

struct PendingEvent {
  int device = 0;
  EventHandle event;
  std::uintptr_t address = 0;
};

}  // namespace

struct HostCachingAllocator::Impl {
  Impl(std::unique_ptr<HostMemoryProvider> p, AllocatorConfig c, Clock k)
      : provider(std::move(p)), config(std::move(c)), clock(k ? std::move(k) : steady_microseconds) {}

  std::mutex mutex;
  std::unique_ptr<HostMemoryProvider> provider;
  AllocatorConfig config;
  Clock clock;

  std::map<std::uintptr_t, Block> blocks;  // every block the allocator owns, by address
  // Cached blocks ready for reuse, per log2 size; the most recently freed at the back.
  std::array<std::vector<std::uintptr_t>, kBucketCount> buckets;
  std::vector<PendingEvent> pending;    // in recording order
  std::vector<std::uintptr_t> deferred;  // freed during capture, events not yet recorded
  int capture_depth = 0;
  HostStats stats;

  static std::size_t bucket_of(std::size_t size) { return std::countr_zero(size); }

  void to_bucket(std::uintptr_t address, const Block& block) {
    buckets[bucket_of(block.size)].push_back(address);
  }

  // Records the events of blocks freed during a capture that has ended.
  void flush_deferred() {
    while (!deferred.empty()) {
      const std::uintptr_t address = deferred.back();
      record_events(address, blocks.at(address));  // throws with the block still deferred
      deferred.pop_back();
    }
  }

  // Moves every block whose events have all completed to its bucket. On a provider failure
  // the events not yet examined stay pending and the failure is raised.
  void process_events() {
    flush_deferred();
    std::vector<PendingEvent> still;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      const PendingEvent entry = pending[i];
      Result<bool> done = provider->query_event(entry.device, entry.event);
      if (!done.ok() || !*done) {
        still.push_back(entry);
        if (done.ok()) continue;
        still.insert(still.end(), pending.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                     pending.end());
        pending.swap(still);
        throw_error(done.status());
      }
      Block& block = blocks.at(entry.address);
      if (--block.pending_events == 0) to_bucket(entry.address, block);
      // A destroy failure leaks one event handle; the block is already accounted for, so it
      // is not worth failing the caller's allocation over.
      (void)provider->destroy_event(entry.device, entry.event);
    }
    pending.swap(still);
  }

  // One event per recorded stream of `block`; all or nothing.
  void record_events(std::uintptr_t address, Block& block) {
    std::vector<PendingEvent> recorded;
    for (const auto& [device, stream] : block.streams) {
      Result<EventHandle> event = provider->record_event(device, stream);
      if (!event.ok()) {
        for (const PendingEvent& undo : recorded) {
          (void)provider->destroy_event(undo.device, undo.event);
        }
        throw_error(event.status());
      }
      recorded.push_back(PendingEvent{device, *event, address});
    }
    pending.insert(pending.end(), recorded.begin(), recorded.end());
    block.pending_events = recorded.size();
    block.streams.clear();
  }

  void* new_block(std::size_t bytes, std::size_t size) {
    const std::int64_t start = clock();
    Result<void*> memory = provider->allocate(size);
    const std::int64_t end = clock();
    if (!memory.ok()) {
      if (memory.status().kind() == ErrorKind::kOutOfMemory) {
        throw OutOfMemoryError("allocate_host: out of pinned host memory: tried to allocate " +
                               std::to_string(size) + " bytes (requested " +
                               std::to_string(bytes) + "): " + memory.status().message());
      }
      throw_error(memory.status());
    }
    const auto address = reinterpret_cast<std::uintptr_t>(*memory);
    if (address == 0 || blocks.contains(address)) {
      // Give the memory back (uncounted) rather than corrupt the block table.
      if (address != 0) (void)provider->deallocate(*memory);
      throw Error(ErrorKind::kRuntime, "allocate_host: the provider returned pointer " +
                                           common::hex_address(address) + ", which is " +
                                           (address == 0 ? "null" : "already a pinned block"));
    }
    Block& block = blocks[address];
    block.size = size;
    block.checked_out = true;
    block.allocated_during_capture = capture_depth > 0;
    const auto bytes_signed = static_cast<std::int64_t>(size);
    stats.allocations.increase(1);
    stats.allocated_bytes.increase(bytes_signed);
    stats.active_requests.increase(1);
    stats.active_bytes.increase(bytes_signed);
    ++stats.num_host_alloc;
    stats.host_alloc_time.add(end - start);
    return *memory;
  }
};

HostCachingAllocator::HostCachingAllocator(std::unique_ptr<HostMemoryProvider> provider,
                                           AllocatorConfig config, Clock clock)
    : impl_(std::make_unique<Impl>(std::move(provider), std::move(config), std::move(clock))) {}

HostCachingAllocator::~HostCachingAllocator() = default;

void* HostCachingAllocator::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::size_t size = host_block_size(bytes);
  if (size == 0) {
    throw OutOfMemoryError("allocate_host: cannot allocate " + std::to_string(bytes) +
                           " bytes of pinned memory: no power of two of at most 2^63 holds it");
  }
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  if (m.capture_depth == 0) m.process_events();
  auto& bucket = m.buckets[Impl::bucket_of(size)];
  if (bucket.empty()) return m.new_block(bytes, size);
  const std::uintptr_t address = bucket.back();
  bucket.pop_back();
  Block& block = m.blocks.at(address);
  block.checked_out = true;
  block.allocated_during_capture = m.capture_depth > 0;
  m.stats.active_requests.increase(1);
  m.stats.active_bytes.increase(static_cast<std::int64_t>(size));
  return reinterpret_cast<void*>(address);
}

void HostCachingAllocator::free(void* pointer) {
  if (pointer == nullptr) return;
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto found = m.blocks.find(address);
  if (found == m.blocks.end()) {
    throw Error(ErrorKind::kValue, "free: pointer " + common::hex_address(address) + " is not a pinned block");
  }
  Block& block = found->second;
  if (!block.checked_out) {
    throw Error(ErrorKind::kValue, "free: pointer " + common::hex_address(address) + " was already freed");
  }
  if (block.streams.empty() || block.allocated_during_capture) {
    block.streams.clear();
    m.to_bucket(address, block);
  } else if (m.capture_depth > 0) {
    m.deferred.push_back(address);
  } else {
    m.record_events(address, block);  // throws with the block still checked out
  }
  block.checked_out = false;
  m.stats.active_requests.decrease(1);
  m.stats.active_bytes.decrease(static_cast<std::int64_t>(block.size));
}

void HostCachingAllocator::record_use(void* pointer, int device, StreamId stream) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (device < 0) {
    throw Error(ErrorKind::kValue, "record_use: invalid device " + std::to_string(device) +
                                       " for pointer " + common::hex_address(address));
  }
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto after = m.blocks.upper_bound(address);
  if (after != m.blocks.begin()) {
    auto holder = std::prev(after);
    Block& block = holder->second;
    if (address - holder->first < block.size && block.checked_out) {
      block.streams.emplace(device, stream);
      return;
    }
  }
  throw Error(ErrorKind::kValue,
              "record_use: pointer " + common::hex_address(address) + " is not in a live pinned block");
}

void HostCachingAllocator::empty_cache() {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  if (m.capture_depth > 0) return;
  m.process_events();
  for (auto& bucket : m.buckets) {
    while (!bucket.empty()) {
      const std::uintptr_t address = bucket.back();
      const std::int64_t start = m.clock();
      Status released = m.provider->deallocate(reinterpret_cast<void*>(address));
      const std::int64_t end = m.clock();
      check(released);  // on failure the block stays cached, every statistic unchanged
      bucket.pop_back();
      const auto size = static_cast<std::int64_t>(m.blocks.at(address).size);
      m.blocks.erase(address);
      m.stats.allocations.decrease(1);
      m.stats.allocated_bytes.decrease(size);
      ++m.stats.num_host_free;
      m.stats.host_free_time.add(end - start);
    }
  }
}

std::map<std::string, std::int64_t> HostCachingAllocator::stats() const {
  std::lock_guard lock(impl_->mutex);
  return flatten(impl_->stats);
}

void HostCachingAllocator::reset_peak_stats() {
  std::lock_guard lock(impl_->mutex);
  impl_->stats.reset_peak();
}

void HostCachingAllocator::reset_accumulated_stats() {
  std::lock_guard lock(impl_->mutex);
  impl_->stats.reset_accumulated();
}

void HostCachingAllocator::begin_capture() {
  std::lock_guard lock(impl_->mutex);
  ++impl_->capture_depth;
}

void HostCachingAllocator::end_capture() {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  if (m.capture_depth == 0) {
    throw Error(ErrorKind::kRuntime, "end_capture: no capture is underway");
  }
  if (--m.capture_depth > 0) return;
  // Record the deferred blocks' events now; a failure leaves the rest deferred until the
  // next allocate or empty_cache (and raises).
  m.flush_deferred();
}

}  // namespace accel::detail::alloc
