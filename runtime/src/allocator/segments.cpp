// Segments from and back to the driver (spec §4.8, §4.9): alloc_block with the per-process
// memory fraction, expandable segments grown and shrunk page by page, the release paths
// of the OOM retry chain and empty_cache, and the garbage collector.
#include <algorithm>

#include "allocator/device_allocator_impl.h"
#include "allocator/size_policy.h"

namespace accel::detail::alloc {

namespace {
std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
}  // namespace

bool DeviceCachingAllocator::Impl::over_fraction(std::size_t extra) const {
  if (!fraction_set) return false;
  auto reserved = static_cast<std::size_t>(stats.reserved_bytes.all().current);
  return reserved + extra > allowed_bytes;
}

Block* DeviceCachingAllocator::Impl::alloc_block(BlockPool& pool, StreamId stream,
                                                 std::size_t size, std::size_t alloc_size,
                                                 const HostFrame& site) {
  if (config.expandable_segments) return alloc_expandable(pool, stream, size, site);
  if (over_fraction(alloc_size)) return nullptr;
  auto pointer = provider->allocate(alloc_size);
  if (!pointer.ok()) {
    if (pointer.status().kind() == ErrorKind::kOutOfMemory) return nullptr;
    throw_error(pointer.status());
  }
  auto segment = std::make_unique<Segment>();
  segment->address = pointer->value;
  segment->size = alloc_size;
  segment->stream = stream;
  segment->small = pool.small;
  segment->pool = &pool;
  segment->owner = pool.owner;
  Block* block = new_block();
  block->address = pointer->value;
  block->size = alloc_size;
  block->stream = stream;
  block->segment = segment.get();
  segment->head = block;
  segment->oversize = alloc_size >= config.max_split_size;
  if (pool.owner != nullptr) pool.owner->segments += 1;
  segments.emplace(pointer->value, std::move(segment));
  stats.segment.increase(pool.small, 1);
  stats.reserved_bytes.increase(pool.small, static_cast<std::int64_t>(alloc_size));
  stats.num_device_alloc += 1;
  if (alloc_size >= config.max_split_size) stats.oversize_segments.increase(1);
  history.record("segment_alloc", pointer->value, alloc_size, stream, &site);
  return block;
}

// Note [Expandable segments]
// One address range per (pool, stream), reserved once at the device's total size, mapped
// from its start in granularity pages as allocations need them. The blocks of the segment
// cover exactly the mapped prefix; growing extends a free tail block (or adds one), and
// empty_cache unmaps the whole pages of a free tail. Pages change reserved_bytes and
// num_device_alloc/free one by one; the segment statistic never changes (spec §4.10).
// A page mapped in the middle of a grow that then fails is unmapped again, so a failed
// grow leaves nothing behind.
Block* DeviceCachingAllocator::Impl::alloc_expandable(BlockPool& pool, StreamId stream,
                                                      std::size_t size, const HostFrame& site) {
  auto page_result = provider->granularity();
  if (!page_result.ok()) {
    if (page_result.status().kind() == ErrorKind::kUnsupported) {
      throw Error(ErrorKind::kConfig, "expandable_segments:True: the device " +
                                          std::to_string(device) +
                                          " backend has no virtual memory API");
    }
    throw_error(page_result.status());
  }
  std::size_t page = *page_result;
  // The map gets the segment only once its range is reserved: a failed reservation (a
  // request larger than the device) must not leave a null entry behind for the release
  // paths to trip over.
  auto found = expandable.find({&pool, stream});
  Segment* slot = found != expandable.end() ? found->second : nullptr;
  if (slot == nullptr) {
    auto info = provider->memory_info();
    if (!info.ok()) throw_error(info.status());
    std::size_t va_bytes = round_up(std::max(info->total_bytes, size), page);
    auto base = provider->reserve_address_range(va_bytes);
    if (!base.ok()) {
      if (base.status().kind() == ErrorKind::kOutOfMemory) return nullptr;
      throw_error(base.status());
    }
    auto segment = std::make_unique<Segment>();
    segment->address = base->value;
    segment->stream = stream;
    segment->small = pool.small;
    segment->pool = &pool;
    segment->owner = pool.owner;
    segment->expandable = true;
    segment->va_bytes = va_bytes;
    segment->page = page;
    slot = segment.get();
    expandable[{&pool, stream}] = slot;
    if (pool.owner != nullptr) pool.owner->segments += 1;
    segments.emplace(base->value, std::move(segment));
  }
  Segment& segment = *slot;
  Block* tail = segment.head;
  while (tail != nullptr && tail->next != nullptr) tail = tail->next;
  Block* free_tail = tail != nullptr && tail->cached ? tail : nullptr;
  std::size_t have = free_tail != nullptr ? free_tail->size : 0;
  std::size_t grow = round_up(size - have, page);
  if (segment.size + grow > segment.va_bytes || over_fraction(grow)) return nullptr;

  std::size_t mapped_before = segment.pages.size();
  auto rollback = [&]() {
    while (segment.pages.size() > mapped_before) {
      std::uint64_t at = segment.address + (segment.pages.size() - 1) * page;
      (void)provider->unmap(DevicePointer{at}, page);
      (void)provider->release_physical(segment.pages.back());
      segment.pages.pop_back();
    }
  };
  for (std::size_t done = 0; done < grow; done += page) {
    auto memory = provider->create_physical(page);
    if (!memory.ok()) {
      rollback();
      if (memory.status().kind() == ErrorKind::kOutOfMemory) return nullptr;
      throw_error(memory.status());
    }
    std::uint64_t at = segment.address + segment.pages.size() * page;
    if (Status s = provider->map(DevicePointer{at}, page, *memory); !s.ok()) {
      (void)provider->release_physical(*memory);
      rollback();
      throw_error(s);
    }
    segment.pages.push_back(*memory);
  }
  std::uint64_t grown_at = segment.address + segment.size;
  segment.size += grow;
  auto pages = static_cast<std::int64_t>(grow / page);
  for (std::int64_t i = 0; i < pages; ++i) {
    stats.reserved_bytes.increase(pool.small, static_cast<std::int64_t>(page));
  }
  stats.num_device_alloc += pages;
  history.record("segment_map", grown_at, grow, stream, &site);

  if (free_tail != nullptr) {
    erase_free(free_tail);
    free_tail->size += grow;
    return free_tail;
  }
  Block* block = new_block();
  block->address = grown_at;
  block->size = grow;
  block->stream = stream;
  block->segment = &segment;
  block->prev = tail;
  if (tail != nullptr) {
    tail->next = block;
  } else {
    segment.head = block;
  }
  return block;
}

void DeviceCachingAllocator::Impl::shrink_expandable(Segment& segment) {
  Block* tail = segment.head;
  while (tail != nullptr && tail->next != nullptr) tail = tail->next;
  if (tail == nullptr || !tail->cached) return;
  std::size_t page = segment.page;
  std::uint64_t offset = tail->address - segment.address;
  std::size_t first_page = (offset + page - 1) / page;
  std::size_t count = segment.pages.size() - first_page;
  if (count == 0) return;
  for (std::size_t i = segment.pages.size(); i > first_page; --i) {
    std::uint64_t at = segment.address + (i - 1) * page;
    check(provider->unmap(DevicePointer{at}, page));
    check(provider->release_physical(segment.pages[i - 1]));
    segment.pages.pop_back();
    stats.reserved_bytes.decrease(segment.small, static_cast<std::int64_t>(page));
    stats.num_device_free += 1;
  }
  std::size_t unmapped = count * page;
  std::uint64_t unmapped_at = segment.address + first_page * page;
  segment.size -= unmapped;
  erase_free(tail);
  if (tail->size == unmapped) {
    if (tail->prev != nullptr) {
      tail->prev->next = nullptr;
    } else {
      segment.head = nullptr;
    }
    recycle(tail);
  } else {
    tail->size -= unmapped;
    insert_free(tail);
  }
  history.record("segment_unmap", unmapped_at, unmapped, segment.stream, nullptr);
}

void DeviceCachingAllocator::Impl::release_segment(Block* block) {
  Segment* segment = block->segment;
  bool small = segment->small;
  std::size_t size = segment->size;
  std::uint64_t address = segment->address;
  erase_free(block);
  check(provider->deallocate(DevicePointer{address}));
  stats.segment.decrease(small, 1);
  stats.reserved_bytes.decrease(small, static_cast<std::int64_t>(size));
  stats.num_device_free += 1;
  if (segment->oversize) stats.oversize_segments.decrease(1);
  if (segment->owner != nullptr) segment->owner->segments -= 1;
  history.record("segment_free", address, size, segment->stream, nullptr);
  recycle(block);
  segments.erase(address);
}

bool DeviceCachingAllocator::Impl::release_available_cached_blocks(BlockPool& pool,
                                                                   StreamId stream,
                                                                   std::size_t size) {
  std::size_t max_split = config.max_split_size;
  if (max_split == static_cast<std::size_t>(-1)) return false;
  auto whole = [](const Block* b) { return !b->is_split() && !b->segment->expandable; };
  auto it = pool.blocks.lower_bound(FreeKey{stream, std::max(size, max_split), 0});
  if (it != pool.blocks.end() && it->key.stream == stream && whole(it->block)) {
    release_segment(it->block);
    return true;
  }
  // No single oversize block is large enough: free the largest ones of this stream until
  // enough bytes have gone back.
  std::vector<Block*> victims;
  std::size_t released = 0;
  while (it != pool.blocks.begin() && released < size) {
    --it;
    Block* b = it->block;
    if (b->stream != stream || b->size < max_split) break;
    if (!whole(b)) continue;
    victims.push_back(b);
    released += b->size;
  }
  if (released < size) return false;
  for (Block* b : victims) release_segment(b);
  return true;
}

void DeviceCachingAllocator::Impl::release_pool_blocks(BlockPool& pool) {
  std::vector<Block*> whole;
  for (const FreeEntry& e : pool.blocks) {
    Block* b = e.block;
    if (!b->is_split() && !b->segment->expandable) whole.push_back(b);
  }
  for (Block* b : whole) release_segment(b);
}

void DeviceCachingAllocator::Impl::release_cached_blocks() {
  release_pool_blocks(large_pool);
  release_pool_blocks(small_pool);
  for (auto it = private_pools.begin(); it != private_pools.end();) {
    PrivatePool& pool = *it->second;
    if (pool.use_count == 0) {
      release_pool_blocks(pool.large);
      release_pool_blocks(pool.small);
      for (auto& [key, segment] : expandable) {
        if (segment->owner == &pool) shrink_expandable(*segment);
      }
    }
    // An expandable segment keeps its (empty) address range, so a pool with one stays.
    if (pool.use_count == 0 && pool.segments == 0) {
      it = private_pools.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [key, segment] : expandable) {
    if (segment->owner == nullptr) shrink_expandable(*segment);
  }
}

// PyTorch's garbage collector: with a memory fraction and garbage_collection_threshold set,
// once reserved bytes pass threshold * allowed, release whole cached large segments, the
// oldest (most cache misses since cached) first, until back under the threshold.
void DeviceCachingAllocator::Impl::garbage_collect() {
  auto threshold =
      static_cast<std::size_t>(config.garbage_collection_threshold * static_cast<double>(allowed_bytes));
  auto reserved = static_cast<std::size_t>(stats.reserved_bytes.all().current);
  if (reserved <= threshold) return;
  std::size_t target = reserved - threshold;
  std::size_t freed = 0;
  auto freeable = [](const Block* b) { return !b->is_split() && !b->segment->expandable; };
  while (freed < target) {
    std::uint64_t total_age = 0;
    std::size_t count = 0;
    for (const FreeEntry& e : large_pool.blocks) {
      const Block* b = e.block;
      if (!freeable(b)) continue;
      total_age += b->gc_count;
      ++count;
    }
    if (count == 0) return;
    std::uint64_t age_threshold = total_age / count;
    std::vector<Block*> victims;
    std::size_t planned = 0;
    for (const FreeEntry& e : large_pool.blocks) {
      Block* b = e.block;
      if (freed + planned >= target) break;
      if (freeable(b) && b->gc_count >= age_threshold) {
        victims.push_back(b);
        planned += b->size;
      }
    }
    for (Block* b : victims) {
      freed += b->size;
      release_segment(b);
    }
  }
}

}  // namespace accel::detail::alloc
