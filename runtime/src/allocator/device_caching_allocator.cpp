#include "allocator/device_caching_allocator.h"

#include <algorithm>
#include <cstdio>

#include "accel_common/units.h"
#include "allocator/device_allocator_impl.h"
#include "allocator/oom_message.h"
#include "allocator/size_policy.h"

namespace accel::detail::alloc {

// ---- Impl: blocks and free sets ------------------------------------------------------

DeviceCachingAllocator::Impl::Impl(std::unique_ptr<DeviceMemoryProvider> p, AllocatorConfig c,
                                   std::string type)
    : provider(std::move(p)), config(c), device_type(std::move(type)), device(provider->device()) {}

DeviceCachingAllocator::Impl::~Impl() {
  // Nothing goes back to the driver (the process may be exiting); only host memory.
  for (auto& [stream, queue] : events) {
    for (auto& [event, block] : queue) (void)provider->destroy_event(event);
  }
}

Block* DeviceCachingAllocator::Impl::new_block() {
  if (spare_blocks.empty()) {
    block_storage.push_back(std::make_unique<Block>());
    return block_storage.back().get();
  }
  Block* block = spare_blocks.back();
  spare_blocks.pop_back();
  return block;
}

void DeviceCachingAllocator::Impl::recycle(Block* block) {
  // Field by field: no temporary Block (its strings and vector) on the free path.
  block->address = 0;
  block->size = 0;
  block->requested_size = 0;
  block->stream = 0;
  block->segment = nullptr;
  block->prev = nullptr;
  block->next = nullptr;
  block->allocated = false;
  block->cached = false;
  block->oversize = false;
  block->mapped = true;
  block->event_count = 0;
  block->gc_count = 0;
  block->stream_uses.clear();  // keeps its capacity
  block->has_site = false;
  spare_blocks.push_back(block);
}

void DeviceCachingAllocator::Impl::insert_free(Block* block) {
  FreeSet& set = block->pool()->blocks;
  if (spare_free_nodes.empty()) {
    set.insert(FreeEntry{{block->stream, block->size, block->address}, block});
  } else {
    auto node = std::move(spare_free_nodes.back());
    spare_free_nodes.pop_back();
    node.value() = FreeEntry{{block->stream, block->size, block->address}, block};
    set.insert(std::move(node));
  }
  block->cached = true;
}

void DeviceCachingAllocator::Impl::erase_free(Block* block) {
  FreeSet& set = block->pool()->blocks;
  auto it = set.find(FreeKey{block->stream, block->size, block->address});
  spare_free_nodes.push_back(set.extract(it));
  block->cached = false;
}

void DeviceCachingAllocator::Impl::add_live(Block* block) {
  if (spare_live_nodes.empty()) {
    live.emplace(block->address, block);
    return;
  }
  auto node = std::move(spare_live_nodes.back());
  spare_live_nodes.pop_back();
  node.key() = block->address;
  node.mapped() = block;
  live.insert(std::move(node));
}

void DeviceCachingAllocator::Impl::remove_live(std::uint64_t address) {
  spare_live_nodes.push_back(live.extract(address));
}

BlockPool& DeviceCachingAllocator::Impl::pool_for(StreamId stream, bool small) {
  for (const auto& [pool_id, capture_stream] : captures) {
    if (capture_stream == stream) {
      PrivatePool& pool = *private_pools.at(pool_id);
      return small ? pool.small : pool.large;
    }
  }
  return small ? small_pool : large_pool;
}

Block* DeviceCachingAllocator::Impl::get_free_block(BlockPool& pool, StreamId stream,
                                                    std::size_t size) {
  if (gc_enabled()) {
    for (const FreeEntry& e : pool.blocks) ++e.block->gc_count;
  }
  auto it = pool.blocks.lower_bound(FreeKey{stream, size, 0});
  if (it == pool.blocks.end() || it->key.stream != stream) return nullptr;
  Block* block = it->block;
  std::size_t max_split = config.max_split_size;
  if (size < max_split && block->size >= max_split) return nullptr;
  if (size >= max_split && block->size >= size + config.max_non_split_rounding) return nullptr;
  spare_free_nodes.push_back(pool.blocks.extract(it));
  block->cached = false;
  block->gc_count = 0;
  return block;
}

void DeviceCachingAllocator::Impl::alloc_found_block(Block* block, std::size_t size,
                                                     std::size_t requested,
                                                     const HostFrame& site) {
  Segment* segment = block->segment;
  bool small = segment->small;
  bool tracked = !segment->expandable;  // inactive_split is not tracked for expandable ones
  bool already_split = block->is_split();
  if (should_split(block->size, size, small, segment->expandable, config.max_split_size)) {
    Block* rest = new_block();
    rest->address = block->address + size;
    rest->size = block->size - size;
    rest->stream = block->stream;
    rest->segment = segment;
    rest->prev = block;
    rest->next = block->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    block->next = rest;
    block->size = size;
    insert_free(rest);
    if (tracked) {
      if (already_split) {
        stats.inactive_split_bytes.decrease(small, static_cast<std::int64_t>(size));
      } else {
        stats.inactive_split.increase(small, 1);
        stats.inactive_split_bytes.increase(small, static_cast<std::int64_t>(rest->size));
      }
    }
  } else if (already_split && tracked) {
    stats.inactive_split.decrease(small, 1);
    stats.inactive_split_bytes.decrease(small, static_cast<std::int64_t>(block->size));
  }
  block->allocated = true;
  block->requested_size = requested;
  block->has_site = history.enabled();
  if (block->has_site) block->site = site;
  auto bytes = static_cast<std::int64_t>(block->size);
  stats.allocation.increase(small, 1);
  stats.allocated_bytes.increase(small, bytes);
  stats.active.increase(small, 1);
  stats.active_bytes.increase(small, bytes);
  stats.requested_bytes.increase(small, static_cast<std::int64_t>(requested));
  block->oversize = block->size >= config.max_split_size;
  if (block->oversize) stats.oversize_allocations.increase(1);
  add_live(block);
  history.record("alloc", block->address, block->size, block->stream, &site);
}

void DeviceCachingAllocator::Impl::free_block(Block* block, const HostFrame* site) {
  Segment* segment = block->segment;
  bool small = segment->small;
  bool tracked = !segment->expandable;
  std::size_t original_size = block->size;
  std::size_t requested = block->requested_size;
  std::uint64_t original_address = block->address;
  Block* survivor = block;
  if (Block* prev = block->prev; prev != nullptr && prev->cached) {
    erase_free(prev);
    if (tracked) {
      stats.inactive_split.decrease(small, 1);
      stats.inactive_split_bytes.decrease(small, static_cast<std::int64_t>(prev->size));
    }
    prev->size += block->size;
    prev->next = block->next;
    if (prev->next != nullptr) prev->next->prev = prev;
    recycle(block);
    survivor = prev;
  }
  if (Block* next = survivor->next; next != nullptr && next->cached) {
    erase_free(next);
    if (tracked) {
      stats.inactive_split.decrease(small, 1);
      stats.inactive_split_bytes.decrease(small, static_cast<std::int64_t>(next->size));
    }
    survivor->size += next->size;
    survivor->next = next->next;
    if (survivor->next != nullptr) survivor->next->prev = survivor;
    recycle(next);
  }
  survivor->allocated = false;
  survivor->requested_size = 0;
  survivor->has_site = false;
  insert_free(survivor);
  if (tracked && survivor->is_split()) {
    stats.inactive_split.increase(small, 1);
    stats.inactive_split_bytes.increase(small, static_cast<std::int64_t>(survivor->size));
  }
  stats.active.decrease(small, 1);
  stats.active_bytes.decrease(small, static_cast<std::int64_t>(original_size));
  stats.requested_bytes.decrease(small, static_cast<std::int64_t>(requested));
  history.record("free_completed", original_address, original_size, survivor->stream, site);
}

Block* DeviceCachingAllocator::Impl::find_containing(std::uint64_t address) const {
  auto it = segments.upper_bound(address);
  if (it == segments.begin()) return nullptr;
  --it;
  for (Block* b = it->second->head; b != nullptr; b = b->next) {
    if (address >= b->address && address < b->address + b->size) return b->mapped ? b : nullptr;
  }
  return nullptr;
}

void DeviceCachingAllocator::Impl::throw_oom(std::size_t requested, std::size_t size,
                                             std::size_t alloc_size, StreamId stream) {
  (void)size;
  (void)stream;
  stats.num_ooms += 1;
  MemoryInfo info{};
  if (auto r = provider->memory_info(); r.ok()) info = *r;
  history.record("oom", info.free_bytes, alloc_size, stream, nullptr);

  OutOfMemoryReport report;
  report.device = device;
  report.requested_bytes = requested;
  report.allocation_bytes = alloc_size;
  report.total_bytes = info.total_bytes;
  report.free_bytes = info.free_bytes;
  report.allocated_bytes = static_cast<std::size_t>(stats.allocated_bytes.all().current);
  report.reserved_bytes = static_cast<std::size_t>(stats.reserved_bytes.all().current);
  std::map<StreamId, StreamMemoryReport> per_stream;
  std::size_t in_private_pools = 0;
  auto scan = [&](const BlockPool& pool) {
    for (const FreeEntry& e : pool.blocks) {
      const Block* b = e.block;
      StreamMemoryReport& r = per_stream[b->stream];
      r.stream = b->stream;
      r.largest_free_block = std::max(r.largest_free_block, b->size);
      r.reserved_unallocated += b->size;
      report.largest_free_block = std::max(report.largest_free_block, b->size);
      if (pool.owner != nullptr) in_private_pools += b->size;
    }
  };
  scan(small_pool);
  scan(large_pool);
  for (const auto& [id, pool] : private_pools) {
    scan(pool->small);
    scan(pool->large);
  }
  for (auto& [s, r] : per_stream) report.streams.push_back(r);

  OomFigures figures;
  figures.device_type = device_type;
  figures.device = device;
  figures.allocation_bytes = alloc_size;
  figures.total_bytes = info.total_bytes;
  figures.free_bytes = info.free_bytes;
  if (fraction_set) figures.allowed_bytes = allowed_bytes;
  figures.allocated_bytes = report.allocated_bytes;
  figures.reserved_bytes = report.reserved_bytes;
  figures.in_private_pools = in_private_pools;
  ErrorDetail detail;
  detail.device = device;
  throw OutOfMemoryError(oom_message(figures), detail, std::move(report));
}

// ---- the public calls ------------------------------------------------------------------

DeviceCachingAllocator::DeviceCachingAllocator(std::unique_ptr<DeviceMemoryProvider> provider,
                                               AllocatorConfig config, std::string device_type)
    : impl_(std::make_unique<Impl>(std::move(provider), config, std::move(device_type))) {}

DeviceCachingAllocator::~DeviceCachingAllocator() = default;

int DeviceCachingAllocator::device() const noexcept { return impl_->device; }

std::uint64_t DeviceCachingAllocator::allocate(std::size_t bytes, StreamId stream,
                                               const HostFrame& site) {
  if (bytes == 0) return 0;
  Impl& m = *impl_;
  if (bytes >= kOneExbibyte) {
    ErrorDetail detail;
    detail.device = m.device;
    throw OutOfMemoryError(oversize_message(m.device_type), detail);
  }
  std::lock_guard lock(m.mutex);
  if (!m.capture_underway_locked()) {
    m.insert_deferred_events();
    m.process_events();
  }
  std::size_t size = round_size(bytes, m.config);
  bool small = is_small(size);
  BlockPool& pool = m.pool_for(stream, small);
  std::size_t alloc_size = allocation_size(size);

  Block* block = m.get_free_block(pool, stream, size);
  if (block == nullptr) {
    if (m.gc_enabled()) m.garbage_collect();
    block = m.alloc_block(pool, stream, size, alloc_size, site);
    if (block == nullptr && m.release_available_cached_blocks(pool, stream, size)) {
      block = m.alloc_block(pool, stream, size, alloc_size, site);
    }
    if (block == nullptr && !m.capture_underway_locked()) {
      m.synchronize_and_free_events();
      // Waiting for the events may have freed (and merged) a block that fits: look in the
      // pool again before going to the driver. Without this, a request fails with OOM
      // although a fitting block is cached (PyTorch's spurious OOM, pytorch#189504; found
      // here by the allocator core property).
      block = m.get_free_block(pool, stream, size);
      if (block == nullptr) {
        m.release_cached_blocks();
        m.stats.num_alloc_retries += 1;
        block = m.alloc_block(pool, stream, size, alloc_size, site);
      }
    }
    if (block == nullptr) m.throw_oom(bytes, size, alloc_size, stream);
  }
  m.alloc_found_block(block, size, bytes, site);
  return block->address;
}

void DeviceCachingAllocator::free(std::uint64_t address, const HostFrame& site) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto it = m.live.find(address);
  if (it == m.live.end()) {
    Block* b = m.find_containing(address);
    bool freed_start = b != nullptr && b->address == address && !b->allocated;
    throw Error(ErrorKind::kValue,
                "free: pointer " + common::hex_address(address) +
                    (freed_start ? " was already freed"
                                 : " was not allocated by the caching allocator of device " +
                                       std::to_string(m.device)));
  }
  Block* block = it->second;
  m.remove_live(address);
  bool small = block->segment->small;
  auto bytes = static_cast<std::int64_t>(block->size);
  block->allocated = false;
  m.stats.allocation.decrease(small, 1);
  m.stats.allocated_bytes.decrease(small, bytes);
  if (block->oversize) m.stats.oversize_allocations.decrease(1);
  block->oversize = false;
  m.history.record("free_requested", block->address, block->size, block->stream, &site);
  if (!block->stream_uses.empty()) {
    if (m.capture_underway_locked()) {
      m.deferred_event_blocks.push_back(block);
    } else {
      m.insert_events(block);
    }
    return;
  }
  m.free_block(block, &site);
}

bool DeviceCachingAllocator::owns(std::uint64_t address) const {
  std::lock_guard lock(impl_->mutex);
  const Block* b = impl_->find_containing(address);
  return b != nullptr && b->allocated;
}

void DeviceCachingAllocator::empty_cache() {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  // Event waits and frees to the driver are both illegal while a graph is being captured.
  if (m.capture_underway_locked()) return;
  m.insert_deferred_events();
  m.synchronize_and_free_events();
  m.release_cached_blocks();
}

DeviceCachingAllocator::Usage DeviceCachingAllocator::usage() const {
  std::lock_guard lock(impl_->mutex);
  return Usage{impl_->stats.allocated_bytes.all().current, impl_->stats.reserved_bytes.all().current};
}

DeviceStats DeviceCachingAllocator::stats() const {
  std::lock_guard lock(impl_->mutex);
  DeviceStats out = impl_->stats;
  out.max_split_size = impl_->config.max_split_size == static_cast<std::size_t>(-1)
                           ? -1
                           : static_cast<std::int64_t>(impl_->config.max_split_size);
  return out;
}

void DeviceCachingAllocator::reset_peak_stats() {
  std::lock_guard lock(impl_->mutex);
  impl_->stats.reset_peak();
}

void DeviceCachingAllocator::reset_accumulated_stats() {
  std::lock_guard lock(impl_->mutex);
  impl_->stats.reset_accumulated();
}

void DeviceCachingAllocator::set_memory_fraction(double fraction) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto info = m.provider->memory_info();
  check(info.status());
  m.fraction_set = true;
  m.fraction = fraction;
  m.allowed_bytes = static_cast<std::size_t>(fraction * static_cast<double>(info->total_bytes));
}

double DeviceCachingAllocator::memory_fraction() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->fraction;
}

void DeviceCachingAllocator::set_config(const AllocatorConfig& config) {
  std::lock_guard lock(impl_->mutex);
  impl_->config = config;
}

std::vector<SegmentSnapshot> DeviceCachingAllocator::snapshot() const {
  const Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  std::vector<SegmentSnapshot> out;
  out.reserve(m.segments.size());
  for (const auto& [address, segment] : m.segments) {
    // An expandable segment shows one snapshot segment per run of mapped blocks, so each
    // snapshot segment is tiled by its blocks and their sizes add up to reserved bytes.
    SegmentSnapshot run;
    bool open = false;  // a plain flag: std::optional here trips GCC 12's maybe-uninitialized
    SegmentSnapshot* s = &run;
    auto flush = [&]() {
      if (open) out.push_back(std::move(run));
      run = SegmentSnapshot{};
      open = false;
    };
    for (const Block* b = segment->head; b != nullptr; b = b->next) {
      if (!b->mapped) {
        flush();
        continue;
      }
      if (!open) {
        open = true;
        s->device = m.device;
        s->address = b->address;
        s->stream = segment->stream;
        s->segment_type = segment->small ? "small" : "large";
        s->is_expandable = segment->expandable;
        if (segment->owner != nullptr) s->segment_pool_id = segment->owner->id;
      }
      s->total_size += b->size;
      BlockSnapshot block;
      block.address = b->address;
      block.size = b->size;
      if (b->allocated) {
        block.state = "active_allocated";
      } else if (!b->cached) {
        block.state = "active_pending_free";
      } else {
        block.state = "inactive";
      }
      if (!b->cached) {
        block.requested_size = b->requested_size;
        s->active_size += b->size;
        s->requested_size += b->requested_size;
        if (b->allocated) s->allocated_size += b->size;
      }
      if (b->has_site) block.frames.push_back(b->site);
      s->blocks.push_back(std::move(block));
    }
    flush();
  }
  return out;
}

void DeviceCachingAllocator::record_history(bool enabled, std::size_t max_entries) {
  std::lock_guard lock(impl_->mutex);
  impl_->history.set_enabled(enabled, max_entries);
}

std::vector<TraceEntry> DeviceCachingAllocator::trace() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->history.entries();
}

void DeviceCachingAllocator::begin_allocate_to_pool(MempoolId pool, StreamId stream) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto it = m.private_pools.find(pool);
  if (it == m.private_pools.end()) {
    m.private_pools.emplace(pool, std::make_unique<PrivatePool>(pool));
  } else {
    it->second->use_count += 1;
  }
  m.captures.emplace_back(pool, stream);
}

void DeviceCachingAllocator::end_allocate_to_pool(MempoolId pool) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto it = std::find_if(m.captures.begin(), m.captures.end(),
                         [&](const auto& c) { return c.first == pool; });
  if (it == m.captures.end()) {
    throw Error(ErrorKind::kValue, "end_allocate_to_pool: pool (" + std::to_string(pool.first) +
                                       ", " + std::to_string(pool.second) +
                                       ") has no allocation to it underway on device " +
                                       std::to_string(m.device));
  }
  m.captures.erase(it);
}

void DeviceCachingAllocator::release_pool(MempoolId pool) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  auto it = m.private_pools.find(pool);
  if (it == m.private_pools.end() || it->second->use_count == 0) {
    throw Error(ErrorKind::kValue, "release_pool: pool (" + std::to_string(pool.first) + ", " +
                                       std::to_string(pool.second) +
                                       ") is not in use on device " + std::to_string(m.device));
  }
  it->second->use_count -= 1;
}

bool DeviceCachingAllocator::capture_underway() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->capture_underway_locked();
}

}  // namespace accel::detail::alloc
