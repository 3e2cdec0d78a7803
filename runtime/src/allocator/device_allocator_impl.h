#pragma once
// DeviceCachingAllocator's state and its internal steps, shared by the files that
// implement them (device_caching_allocator.cpp: the public calls and the allocation path;
// segments.cpp: segments from and back to the driver, expandable segments, the release
// paths and the garbage collector; stream_events.cpp: record_stream and the events of
// PyTorch's recordStream). Every method expects the lock held. Private to the allocator.

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "allocator/block.h"
#include "allocator/device_caching_allocator.h"
#include "allocator/memory_history.h"

namespace accel::detail::alloc {

struct DeviceCachingAllocator::Impl {
  Impl(std::unique_ptr<DeviceMemoryProvider> p, AllocatorConfig c, std::string type);
  ~Impl();

  std::unique_ptr<DeviceMemoryProvider> provider;
  AllocatorConfig config;
  std::string device_type;  // for the messages (oom_message.h)
  int device = 0;
  mutable std::mutex mutex;
  DeviceStats stats;
  MemoryHistory history;

  BlockPool small_pool{true};
  BlockPool large_pool{false};
  std::map<MempoolId, std::unique_ptr<PrivatePool>> private_pools;
  std::vector<std::pair<MempoolId, StreamId>> captures;  // begin_allocate_to_pool, not ended

  std::map<std::uint64_t, std::unique_ptr<Segment>> segments;  // by address
  std::map<std::pair<BlockPool*, StreamId>, Segment*> expandable;  // one per pool and stream

  // Live blocks by start address; nodes of both containers are recycled (Note [Free set
  // order]) so that a cache hit allocates nothing.
  std::unordered_map<std::uint64_t, Block*> live;
  std::vector<decltype(live)::node_type> spare_live_nodes;
  std::vector<FreeSet::node_type> spare_free_nodes;
  std::vector<std::unique_ptr<Block>> block_storage;
  std::vector<Block*> spare_blocks;

  // Per stream, events in record order with the block each one guards.
  std::map<StreamId, std::deque<std::pair<EventHandle, Block*>>> events;
  std::size_t outstanding_events = 0;
  std::vector<Block*> deferred_event_blocks;  // freed during capture with stream uses

  bool fraction_set = false;
  double fraction = 1.0;
  std::size_t allowed_bytes = 0;

  // ---- blocks and free sets (device_caching_allocator.cpp) ----
  Block* new_block();
  void recycle(Block* block);
  void insert_free(Block* block);
  void erase_free(Block* block);
  void add_live(Block* block);
  void remove_live(std::uint64_t address);
  BlockPool& pool_for(StreamId stream, bool small);
  Block* get_free_block(BlockPool& pool, StreamId stream, std::size_t size);
  void alloc_found_block(Block* block, std::size_t size, std::size_t requested,
                         const HostFrame& site);
  void free_block(Block* block, const HostFrame* site);
  Block* find_containing(std::uint64_t address) const;
  [[noreturn]] void throw_oom(std::size_t requested, std::size_t size, std::size_t alloc_size,
                              StreamId stream);

  // ---- segments (segments.cpp) ----
  bool over_fraction(std::size_t extra) const;
  Block* alloc_block(BlockPool& pool, StreamId stream, std::size_t size, std::size_t alloc_size,
                     const HostFrame& site);
  Block* alloc_expandable(BlockPool& pool, StreamId stream, std::size_t size,
                          const HostFrame& site);
  void release_segment(Block* block);
  void unmap_free_pages(Segment& segment);  // Note [Expandable segments]
  bool release_available_cached_blocks(BlockPool& pool, StreamId stream, std::size_t size);
  void release_pool_blocks(BlockPool& pool);
  void release_cached_blocks();  // PyTorch's release_cached_blocks (without the event wait)
  void garbage_collect();
  bool capture_underway_locked() const { return !captures.empty(); }
  bool gc_enabled() const {
    return fraction_set && config.garbage_collection_threshold > 0.0;
  }

  // ---- stream events (stream_events.cpp) ----
  void insert_events(Block* block);
  void insert_deferred_events();
  void process_events();
  void synchronize_and_free_events();
};


}  // namespace accel::detail::alloc
