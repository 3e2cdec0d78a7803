// Segments from and back to the driver (PyTorch's CUDACachingAllocator.cpp: malloc's
// alloc_block and release_cached_blocks): alloc_block with the per-process
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
// One address range per (pool, stream), reserved once at the device's total size and tiled
// by blocks from the start: mapped ones (allocated, pending or cached) and unmapped ones
// (mapped == false, page aligned, never in a free set). A miss takes the first run of
// adjacent cached or unmapped blocks that covers the request, maps the unmapped pages it
// needs and joins the run into one block. empty_cache and the OOM flush unmap every whole
// page of every cached block, wherever it lies, leaving unmapped holes that a later miss
// maps again. Pages change reserved_bytes and num_device_alloc/free one by one; the segment
// statistic never changes (as in PyTorch). Pages mapped by a miss that then fails are unmapped
// again, so a failed miss leaves nothing behind.
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
    if (!info.ok()) {
      expandable.erase({&pool, stream});
      throw_error(info.status());
    }
    std::size_t va_bytes = round_up(std::max(info->total_bytes, size), page);
    auto base = provider->reserve_address_range(va_bytes);
    if (!base.ok()) {
      // No null entry may stay behind: the release paths walk `expandable`.
      expandable.erase({&pool, stream});
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
    Block* hole = new_block();
    hole->address = base->value;
    hole->size = va_bytes;
    hole->stream = stream;
    hole->segment = segment.get();
    hole->mapped = false;
    segment->head = hole;
    slot = segment.get();
    expandable[{&pool, stream}] = slot;
    if (pool.owner != nullptr) pool.owner->segments += 1;
    segments.emplace(base->value, std::move(segment));
  }
  Segment& segment = *slot;

  // First fit by address over runs of cached or unmapped blocks.
  Block* first = nullptr;
  Block* last = nullptr;
  std::size_t covered = 0;
  for (Block* b = segment.head; b != nullptr; b = b->next) {
    if (!b->cached && b->mapped) {
      first = nullptr;
      continue;
    }
    if (first == nullptr) {
      first = b;
      covered = 0;
    }
    covered += b->size;
    if (covered >= size) {
      last = b;
      break;
    }
  }
  if (last == nullptr) return nullptr;
  // Unmapped blocks are page aligned, so mapping a prefix of the last one keeps the rest
  // of it page aligned too.
  std::size_t last_map = last->size;
  if (!last->mapped) last_map = std::min(last->size, round_up(size - (covered - last->size), page));
  std::size_t grow = 0;
  for (Block* b = first;; b = b->next) {
    if (!b->mapped) grow += b == last ? last_map : b->size;
    if (b == last) break;
  }
  if (over_fraction(grow)) return nullptr;

  std::vector<std::size_t> mapped_now;
  auto rollback = [&]() {
    for (std::size_t index : mapped_now) {
      (void)provider->unmap(DevicePointer{segment.address + index * page}, page);
      (void)provider->release_physical(segment.pages.at(index));
      segment.pages.erase(index);
    }
  };
  for (Block* b = first;; b = b->next) {
    if (!b->mapped) {
      std::size_t bytes = b == last ? last_map : b->size;
      std::size_t from = (b->address - segment.address) / page;
      for (std::size_t index = from; index < from + bytes / page; ++index) {
        auto memory = provider->create_physical(page);
        if (!memory.ok()) {
          rollback();
          if (memory.status().kind() == ErrorKind::kOutOfMemory) return nullptr;
          throw_error(memory.status());
        }
        if (Status s = provider->map(DevicePointer{segment.address + index * page}, page, *memory);
            !s.ok()) {
          (void)provider->release_physical(*memory);
          rollback();
          throw_error(s);
        }
        segment.pages.emplace(index, *memory);
        mapped_now.push_back(index);
      }
    }
    if (b == last) break;
  }

  // Committed: account the pages, then join the run into `first`.
  segment.size += grow;
  for (std::size_t i = 0; i < mapped_now.size(); ++i) {
    stats.reserved_bytes.increase(pool.small, static_cast<std::int64_t>(page));
  }
  stats.num_device_alloc += static_cast<std::int64_t>(mapped_now.size());
  if (!last->mapped && last_map < last->size) {
    Block* rest = new_block();
    rest->address = last->address + last_map;
    rest->size = last->size - last_map;
    rest->stream = stream;
    rest->segment = &segment;
    rest->mapped = false;
    rest->prev = last;
    rest->next = last->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    last->next = rest;
    last->size = last_map;
  }
  for (Block* b = first;; b = b->next) {
    if (b->cached) erase_free(b);
    if (!b->mapped) {
      history.record("segment_map", b->address, b->size, stream, &site);
      b->mapped = true;
    }
    if (b == last) break;
  }
  while (first != last) {
    Block* next = first->next;
    first->size += next->size;
    first->next = next->next;
    if (first->next != nullptr) first->next->prev = first;
    if (next == last) last = first;
    recycle(next);
  }
  first->gc_count = 0;
  return first;
}

void DeviceCachingAllocator::Impl::unmap_free_pages(Segment& segment) {
  std::size_t page = segment.page;
  for (Block* b = segment.head; b != nullptr; b = b->next) {
    if (!b->cached) continue;
    std::uint64_t offset = b->address - segment.address;
    std::uint64_t lo = round_up(offset, page);
    std::uint64_t hi = (offset + b->size) / page * page;
    if (lo >= hi) continue;  // no whole page inside this free block
    for (std::size_t index = lo / page; index < hi / page; ++index) {
      check(provider->unmap(DevicePointer{segment.address + index * page}, page));
      check(provider->release_physical(segment.pages.at(index)));
      segment.pages.erase(index);
      stats.reserved_bytes.decrease(segment.small, static_cast<std::int64_t>(page));
      stats.num_device_free += 1;
    }
    segment.size -= hi - lo;
    history.record("segment_unmap", segment.address + lo, hi - lo, segment.stream, nullptr);
    // Split b into [mapped head) [unmapped hole) [mapped tail); the mapped pieces stay cached.
    erase_free(b);
    std::uint64_t end = offset + b->size;
    auto split_after = [&](Block* at, std::size_t keep) {
      Block* rest = new_block();
      rest->address = at->address + keep;
      rest->size = at->size - keep;
      rest->stream = at->stream;
      rest->segment = &segment;
      rest->prev = at;
      rest->next = at->next;
      if (rest->next != nullptr) rest->next->prev = rest;
      at->next = rest;
      at->size = keep;
      return rest;
    };
    Block* hole = b;
    if (lo > offset) {
      hole = split_after(b, lo - offset);
      insert_free(b);
    }
    if (end > hi) {
      Block* tail = split_after(hole, hi - lo);
      insert_free(tail);
    }
    hole->mapped = false;
    hole->gc_count = 0;
    b = hole;
  }
  // Join adjacent unmapped blocks, so that a hole is one block however it was made.
  for (Block* b = segment.head; b != nullptr && b->next != nullptr;) {
    Block* next = b->next;
    if (!b->mapped && !next->mapped) {
      b->size += next->size;
      b->next = next->next;
      if (b->next != nullptr) b->next->prev = b;
      recycle(next);
    } else {
      b = next;
    }
  }
}

void DeviceCachingAllocator::Impl::release_segment(Block* block) {
  Segment* segment = block->segment;
  bool small = segment->small;
  std::size_t size = segment->size;
  std::uint64_t address = segment->address;
  // The driver first: if it refuses the free, the segment stays cached and counted as it
  // was, so a later empty_cache (or OOM retry) offers it again. Taking it out of the free
  // pool before would strand it: reserved for good, in no pool to release it from.
  check(provider->deallocate(DevicePointer{address}));
  erase_free(block);
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
        if (segment->owner == &pool) unmap_free_pages(*segment);
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
    if (segment->owner == nullptr) unmap_free_pages(*segment);
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
