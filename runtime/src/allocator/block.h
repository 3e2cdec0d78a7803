#pragma once
// The device allocator's bookkeeping types: a Block (a piece of a segment), a Segment (one
// driver allocation, or one expandable address range), a BlockPool (the free blocks of one
// size class, ordered for best fit) and a PrivatePool (a graph's own small and large
// pools). Plain data; DeviceCachingAllocator's lock guards all of it.
//
// Note [Free set order]
// A pool's free blocks are kept in a std::set ordered by (stream, size, address), so the
// best fit for (stream, size) is one lower_bound: O(log n) however many blocks are cached
// (PyTorch's get_free_block). Blocks of one segment form a doubly linked list by address
// (prev/next); merging on free always keeps the lower block object, so a segment's head block never
// changes identity. Set nodes are recycled (extract/insert), so a cache hit allocates no
// heap memory.

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "accel/graph.h"
#include "accel/memory.h"
#include "allocator/memory_provider.h"

namespace accel::detail::alloc {

struct BlockPool;
struct PrivatePool;

struct Segment {
  std::uint64_t address = 0;
  std::size_t size = 0;  // bytes held from the driver (expandable: bytes mapped)
  StreamId stream = 0;
  bool small = false;
  BlockPool* pool = nullptr;
  PrivatePool* owner = nullptr;  // the graph pool, or null for the device's own pools
  struct Block* head = nullptr;  // lowest block
  // Expandable segments (expandable_segments:True): a reserved address range of va_bytes,
  // mapped in pages of `page` bytes wherever blocks need them; its blocks tile the whole
  // range, the unmapped parts being blocks with mapped == false. pages[i] backs
  // [address + i*page, +page) while page i is mapped.
  bool oversize = false;  // counted in oversize_segments (max_split_size may change later)
  bool expandable = false;
  std::size_t va_bytes = 0;
  std::size_t page = 0;
  std::map<std::size_t, PhysicalMemoryHandle> pages;
};

struct Block {
  std::uint64_t address = 0;
  std::size_t size = 0;
  std::size_t requested_size = 0;  // what the caller asked for (0 when not active)
  StreamId stream = 0;             // the allocation stream (the segment's)
  Segment* segment = nullptr;
  Block* prev = nullptr;
  Block* next = nullptr;
  bool allocated = false;      // handed out and not freed by the user
  bool cached = false;         // in its pool's free set
  bool oversize = false;       // counted in oversize_allocations while handed out
  // False only for a page-aligned unmapped range of an expandable segment: never cached,
  // never merged with a mapped neighbour on free, so the mapped pages stay known.
  bool mapped = true;
  int event_count = 0;         // outstanding events of recorded streams
  std::uint64_t gc_count = 0;  // cache misses since it was cached (garbage collector's age)
  std::vector<StreamId> stream_uses;  // record_stream, other than `stream`
  bool has_site = false;  // site valid (memory history was on at allocation)
  HostFrame site;

  BlockPool* pool() const noexcept { return segment->pool; }
  bool is_split() const noexcept { return prev != nullptr || next != nullptr; }
};

struct FreeKey {
  StreamId stream;
  std::size_t size;
  std::uint64_t address;
};

// The set holds the key next to the block, so a lookup compares inside the tree's nodes
// and never dereferences the blocks it passes (cache misses dominated at 64k blocks).
struct FreeEntry {
  FreeKey key;
  Block* block;
};

struct BlockOrder {
  using is_transparent = void;
  static const FreeKey& key(const FreeEntry& e) noexcept { return e.key; }
  static const FreeKey& key(const FreeKey& k) noexcept { return k; }
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    const FreeKey& ka = key(a);
    const FreeKey& kb = key(b);
    if (ka.stream != kb.stream) return ka.stream < kb.stream;
    if (ka.size != kb.size) return ka.size < kb.size;
    return ka.address < kb.address;
  }
};

using FreeSet = std::set<FreeEntry, BlockOrder>;

struct BlockPool {
  explicit BlockPool(bool is_small, PrivatePool* pool_owner = nullptr)
      : small(is_small), owner(pool_owner) {}
  FreeSet blocks;
  bool small;
  PrivatePool* owner;
};

struct PrivatePool {
  explicit PrivatePool(MempoolId pool_id) : id(pool_id), small(true, this), large(false, this) {}
  MempoolId id;
  int use_count = 1;        // graphs (begin_allocate_to_pool calls) not yet released
  std::size_t segments = 0;  // segments it owns
  BlockPool small;
  BlockPool large;
};

}  // namespace accel::detail::alloc
