// record_stream and the end-of-life events of blocks used on other streams (PyTorch's
// recordStream, CUDACachingAllocator.cpp).
#include <algorithm>

#include "accel_common/units.h"
#include "allocator/device_allocator_impl.h"

namespace accel::detail::alloc {

void DeviceCachingAllocator::record_stream(std::uint64_t address, StreamId stream) {
  Impl& m = *impl_;
  std::lock_guard lock(m.mutex);
  Block* block = m.find_containing(address);
  if (block == nullptr || !block->allocated) {
    throw Error(ErrorKind::kValue, "record_stream: pointer " + common::hex_address(address) +
                                       " is not in a live block of the caching allocator of "
                                       "device " +
                                       std::to_string(m.device));
  }
  if (stream == block->stream) return;
  auto& uses = block->stream_uses;
  if (std::find(uses.begin(), uses.end(), stream) == uses.end()) uses.push_back(stream);
}

void DeviceCachingAllocator::Impl::insert_events(Block* block) {
  for (StreamId stream : block->stream_uses) {
    auto event = provider->record_event(stream);
    if (!event.ok()) {
      // Without an event the block's safety cannot be tracked: wait for what was recorded
      // instead of ever handing it out early, then report the failure.
      block->stream_uses.clear();
      if (block->event_count == 0) free_block(block, nullptr);
      throw_error(event.status());
    }
    block->event_count += 1;
    outstanding_events += 1;
    events[stream].emplace_back(*event, block);
  }
  block->stream_uses.clear();
}

void DeviceCachingAllocator::Impl::insert_deferred_events() {
  if (deferred_event_blocks.empty()) return;
  std::vector<Block*> blocks;
  blocks.swap(deferred_event_blocks);
  for (Block* block : blocks) insert_events(block);
}

void DeviceCachingAllocator::Impl::process_events() {
  if (outstanding_events == 0) return;
  for (auto& [stream, queue] : events) {
    while (!queue.empty()) {
      auto [event, block] = queue.front();
      auto done = provider->query_event(event);
      if (!done.ok()) throw_error(done.status());
      if (!*done) break;
      (void)provider->destroy_event(event);
      queue.pop_front();
      outstanding_events -= 1;
      if (--block->event_count == 0) free_block(block, nullptr);
    }
  }
}

void DeviceCachingAllocator::Impl::synchronize_and_free_events() {
  stats.num_sync_all_streams += 1;
  for (auto& [stream, queue] : events) {
    while (!queue.empty()) {
      auto [event, block] = queue.front();
      check(provider->synchronize_event(event));
      (void)provider->destroy_event(event);
      queue.pop_front();
      outstanding_events -= 1;
      if (--block->event_count == 0) free_block(block, nullptr);
    }
  }
}

}  // namespace accel::detail::alloc
