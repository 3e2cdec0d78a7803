// The memory pool model (pool_model.h).

#include "cuda/pool_model.h"

#include "core/keep_forever.h"

#include <algorithm>

#include "core/engine.h"
#include "core/memory.h"

namespace mockdev::cuda {
namespace {

struct PoolRegistry {
  std::uint64_t generation = 0;
  std::set<const CUmemPoolHandle_st*> live;
  std::vector<CUmemPoolHandle_st*> all;  // live and destroyed, creation order
  std::vector<CUmemPoolHandle_st*> defaults;  // by physical device; created at first use
  std::vector<CUmemPoolHandle_st*> current;   // by physical device; nullptr: the default
};

PoolRegistry& registry() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static PoolRegistry* const r = new PoolRegistry();  // never deleted: Note [Leaky state]
  const core::Engine& e = core::engine();
  if (r->generation != e.generation) {
    // A new machine: old pool objects stay allocated but leave the registry.
    *r = PoolRegistry{};
    r->generation = e.generation;
    r->defaults.assign(e.machine.devices.size(), nullptr);
    r->current.assign(e.machine.devices.size(), nullptr);
  }
  return *r;
}

std::uint64_t round_up(std::uint64_t bytes, std::uint64_t unit) {
  if (unit == 0) return bytes;
  const std::uint64_t r = (bytes + unit - 1) / unit * unit;
  return r < bytes ? 0 : r;
}

using Block = CUmemPoolHandle_st::Block;
using Chunk = CUmemPoolHandle_st::Chunk;

// Chunks whose core allocation is gone (their context released its memory) leave the pool.
void prune(CUmemPoolHandle_st* pool) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (auto it = pool->chunks.begin(); it != pool->chunks.end();) {
    if (core::find_allocation(it->first)) {
      ++it;
      continue;
    }
    pool->reserved -= it->second.bytes;
    for (const auto& [offset, b] : it->second.blocks) pool->used -= b.requested;
    it = pool->chunks.erase(it);
  }
}

bool free_completed(const Block& b) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return b.requested == 0 && (b.free_op == 0 || core::is_complete(b.free_op));
}

// Adjacent never-used blocks merge. Freed blocks keep their history (the free a new owner's
// work must follow: Note [Pool reuse]) until their chunk is released.
void coalesce(Chunk& c) {
  auto open = [](const Block& b) {
    return b.requested == 0 && b.free_queue == 0 && b.free_op == 0;
  };
  for (auto it = c.blocks.begin(); it != c.blocks.end();) {
    auto next = std::next(it);
    if (next == c.blocks.end()) break;
    if (open(it->second) && open(next->second)) {
      it->second.bytes += next->second.bytes;
      c.blocks.erase(next);
    } else {
      it = next;
    }
  }
}

bool wholly_free(const Chunk& c) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (const auto& [offset, b] : c.blocks)
    if (!free_completed(b)) return false;
  return true;
}

// The block at `address` and its chunk, or nulls.
struct Found {
  Chunk* chunk = nullptr;
  Block* block = nullptr;
};
Found find_block(CUmemPoolHandle_st* pool, std::uint64_t address) {
  auto it = pool->chunks.upper_bound(address);
  if (it == pool->chunks.begin()) return {};
  --it;
  if (address - it->first >= it->second.bytes) return {};
  auto b = it->second.blocks.find(address - it->first);
  if (b == it->second.blocks.end()) return {};
  return {&it->second, &b->second};
}

}  // namespace

CUmemPoolHandle_st* create_pool(int device, std::uint64_t max_size) {
  PoolRegistry& r = registry();
  auto* pool = new CUmemPoolHandle_st();  // never deleted: Note [Leaky state]
  core::keep_forever(pool);
  pool->device = device;
  pool->max_size = max_size;
  r.live.insert(pool);
  r.all.push_back(pool);
  return pool;
}

bool is_live_pool(const CUmemPoolHandle_st* pool) { return registry().live.count(pool) != 0; }

bool is_known_pool(const CUmemPoolHandle_st* pool) {
  const std::vector<CUmemPoolHandle_st*>& all = registry().all;
  return std::find(all.begin(), all.end(), pool) != all.end();
}

CUmemPoolHandle_st* default_pool(int device) {
  PoolRegistry& r = registry();
  CUmemPoolHandle_st*& slot = r.defaults.at(static_cast<std::size_t>(device));
  if (slot == nullptr) {
    slot = create_pool(device, 0);
    slot->is_default = true;
  }
  return slot;
}

CUmemPoolHandle_st* current_pool(int device) {
  CUmemPoolHandle_st* c = registry().current.at(static_cast<std::size_t>(device));
  return c != nullptr ? c : default_pool(device);
}

void set_current_pool(int device, CUmemPoolHandle_st* pool) {
  registry().current.at(static_cast<std::size_t>(device)) = pool;
}

void destroy_pool(CUmemPoolHandle_st* pool) {
  PoolRegistry& r = registry();
  r.live.erase(pool);
  pool->destroyed = true;
  if (r.current.at(static_cast<std::size_t>(pool->device)) == pool) {
    r.current.at(static_cast<std::size_t>(pool->device)) = nullptr;
  }
  release_down_to(pool, 0);
}

std::optional<std::uint64_t> pool_allocate(CUmemPoolHandle_st* pool, std::uint64_t bytes,
                                           std::uint64_t queue, core::OpId* after) {
  prune(pool);
  *after = 0;
  const std::uint64_t span = round_up(bytes, kPoolBlockAlignment);
  const std::uint64_t fresh_chunk =
      std::max(kPoolChunkBytes, round_up(bytes, core::granularity(pool->device)));
  if (span == 0 || fresh_chunk < bytes) return std::nullopt;
  // Note [Pool reuse]: the smallest usable free block, lowest address among equals.
  std::uint64_t best_chunk = 0, best_offset = 0, best_bytes = 0;
  bool found = false;
  for (auto& [address, c] : pool->chunks) {
    coalesce(c);
    for (const auto& [offset, b] : c.blocks) {
      if (b.requested != 0 || b.bytes < span) continue;
      const bool open = b.free_queue == 0 && b.free_op == 0;
      const bool same_stream = b.free_queue == queue;
      const bool opportunistic = pool->allow_opportunistic != 0 && free_completed(b);
      if (!open && !same_stream && !opportunistic) continue;
      if (!found || b.bytes < best_bytes) {
        found = true;
        best_chunk = address, best_offset = offset, best_bytes = b.bytes;
      }
    }
  }
  if (!found) {
    const bool over_max = pool->max_size != 0 && pool->reserved + fresh_chunk > pool->max_size;
    std::optional<std::uint64_t> address;
    if (!over_max) address = core::allocate(Api::kCuda, pool->device, fresh_chunk);
    if (!address) {
      // Out of room: what is free and released-able goes first, then one more try.
      release_down_to(pool, 0);
      if (pool->max_size != 0 && pool->reserved + fresh_chunk > pool->max_size) return std::nullopt;
      address = core::allocate(Api::kCuda, pool->device, fresh_chunk);
      if (!address) return std::nullopt;
    }
    Chunk chunk{fresh_chunk, {}};
    chunk.blocks.emplace(0, Block{fresh_chunk, 0, 0, 0});
    pool->chunks.emplace(*address, std::move(chunk));
    pool->reserved += fresh_chunk;
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    best_chunk = *address, best_offset = 0, best_bytes = fresh_chunk;
  }
  Chunk& c = pool->chunks.at(best_chunk);
  Block& b = c.blocks.at(best_offset);
  if (b.free_queue != 0 && b.free_queue != queue) *after = b.free_op;
  if (b.bytes > span) {  // the rest stays free, with the same history
    Block rest = b;
    rest.bytes = b.bytes - span;
    c.blocks.emplace(best_offset + span, rest);
  }
  b.bytes = span;
  b.requested = bytes;
  pool->used += bytes;
  pool->used_high = std::max(pool->used_high, pool->used);
  return best_chunk + best_offset;
}

CUmemPoolHandle_st* pool_of(std::uint64_t address) {
  for (CUmemPoolHandle_st* pool : registry().all) {
    const Found f = find_block(pool, address);
    if (f.block != nullptr && f.block->requested != 0) return pool;
  }
  return nullptr;
}

std::optional<PoolAllocation> pool_allocation_containing(std::uint64_t address) {
  for (CUmemPoolHandle_st* pool : registry().all) {
    auto it = pool->chunks.upper_bound(address);
    if (it == pool->chunks.begin()) continue;
    --it;
    if (address - it->first >= it->second.bytes) continue;
    auto b = it->second.blocks.upper_bound(address - it->first);
    --b;  // the block holding the offset (blocks tile the chunk from offset 0)
    if (b->second.requested == 0 || address - it->first - b->first >= b->second.requested) {
      return std::nullopt;
    }
    return PoolAllocation{pool, it->first + b->first, b->second.requested};
  }
  return std::nullopt;
}

void pool_free(CUmemPoolHandle_st* pool, std::uint64_t address, std::uint64_t queue) {
  const Found f = find_block(pool, address);
  pool->used -= f.block->requested;
  f.block->requested = 0;
  f.block->free_queue = queue;
  f.block->free_op = 0;
}

void note_free_op(std::uint64_t address, core::OpId op) {
  for (CUmemPoolHandle_st* pool : registry().all) {
    const Found f = find_block(pool, address);
    if (f.block != nullptr && f.block->requested == 0) f.block->free_op = op;
  }
}

void release_down_to(CUmemPoolHandle_st* pool, std::uint64_t keep) {
  prune(pool);
  for (auto it = pool->chunks.end(); it != pool->chunks.begin() && pool->reserved > keep;) {
    --it;
    if (!wholly_free(it->second)) continue;
    core::free_allocation(it->first);
    pool->reserved -= it->second.bytes;
    it = pool->chunks.erase(it);
  }
}

void pools_after_host_wait() {
  for (CUmemPoolHandle_st* pool : registry().all) {
    if (pool->reserved > pool->release_threshold) {
      release_down_to(pool, pool->destroyed ? 0 : pool->release_threshold);
    }
  }
}

}  // namespace mockdev::cuda
