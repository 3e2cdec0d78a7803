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

// Chunks whose core allocation is gone (their context released its memory) leave the pool.
void prune(CUmemPoolHandle_st* pool) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (auto it = pool->chunks.begin(); it != pool->chunks.end();) {
    if (core::find_allocation(it->first)) {
      ++it;
      continue;
    }
    pool->reserved -= it->second.bytes;
    pool->used -= it->second.used;
    it = pool->chunks.erase(it);
  }
}

bool free_completed(const CUmemPoolHandle_st::Chunk& c) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return c.used == 0 && (c.free_op == 0 || core::is_complete(c.free_op));
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
  const std::uint64_t chunk_bytes = round_up(bytes, core::granularity(pool->device));
  const std::uint64_t used = round_up(bytes, kPoolUsedRounding);
  if (chunk_bytes == 0 || used == 0) return std::nullopt;
  // Note [Pool reuse]: the smallest usable free chunk, lowest address among equals.
  std::map<std::uint64_t, CUmemPoolHandle_st::Chunk>::iterator best = pool->chunks.end();
  for (auto it = pool->chunks.begin(); it != pool->chunks.end(); ++it) {
    const CUmemPoolHandle_st::Chunk& c = it->second;
    if (c.used != 0 || c.bytes < chunk_bytes) continue;
    const bool same_stream = c.free_queue == queue;
    const bool opportunistic = pool->allow_opportunistic != 0 && free_completed(c);
    if (!same_stream && !opportunistic) continue;
    if (best == pool->chunks.end() || c.bytes < best->second.bytes) best = it;
  }
  if (best == pool->chunks.end()) {
    const bool over_max = pool->max_size != 0 && pool->reserved + chunk_bytes > pool->max_size;
    std::optional<std::uint64_t> address;
    if (!over_max) address = core::allocate(Api::kCuda, pool->device, chunk_bytes);
    if (!address) {
      // Out of room: what is free and released-able goes first, then one more try.
      release_down_to(pool, 0);
      if (pool->max_size != 0 && pool->reserved + chunk_bytes > pool->max_size) return std::nullopt;
      address = core::allocate(Api::kCuda, pool->device, chunk_bytes);
      if (!address) return std::nullopt;
    }
    best = pool->chunks.emplace(*address, CUmemPoolHandle_st::Chunk{chunk_bytes, 0, 0, 0}).first;
    pool->reserved += chunk_bytes;
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
  } else if (best->second.free_queue != queue) {
    *after = best->second.free_op;
  }
  best->second.used = used;
  pool->used += used;
  pool->used_high = std::max(pool->used_high, pool->used);
  return best->first;
}

CUmemPoolHandle_st* pool_of(std::uint64_t address) {
  for (CUmemPoolHandle_st* pool : registry().all) {
    auto it = pool->chunks.find(address);
    if (it != pool->chunks.end() && it->second.used != 0) return pool;
  }
  return nullptr;
}

void pool_free(CUmemPoolHandle_st* pool, std::uint64_t address, std::uint64_t queue) {
  CUmemPoolHandle_st::Chunk& c = pool->chunks.at(address);
  pool->used -= c.used;
  c.used = 0;
  c.free_queue = queue;
  c.free_op = 0;
}

void note_free_op(std::uint64_t address, core::OpId op) {
  for (CUmemPoolHandle_st* pool : registry().all) {
    auto it = pool->chunks.find(address);
    if (it != pool->chunks.end() && it->second.used == 0) it->second.free_op = op;
  }
}

void release_down_to(CUmemPoolHandle_st* pool, std::uint64_t keep) {
  prune(pool);
  for (auto it = pool->chunks.end(); it != pool->chunks.begin() && pool->reserved > keep;) {
    --it;
    if (!free_completed(it->second)) continue;
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
