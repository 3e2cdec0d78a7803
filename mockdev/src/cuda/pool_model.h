#pragma once
// The simulated driver's memory pools (stream-ordered allocation, cuMemAllocAsync ..
// cuMemPoolTrimTo; decision 198). A pool reserves device memory in chunks and carves its
// allocations out of them; memory freed to the pool stays reserved and is reused until a
// synchronisation releases whole chunks (Note [Pool release]).
//
// Note [Pool accounting]
// Recorded on an H100 (docs/HARDWARE.md, Recording 2): a pool reserves 32 MiB for its first
// small allocation, later small allocations share that reservation (a 1000-byte one went
// right after a 1024-byte one), and USED_MEM_CURRENT is the sum of the sizes asked for
// (1024 + 1000 read 2024). So: a chunk is one core allocation (core/memory.h) of
// kPoolChunkBytes, or of the allocation's size rounded up to the device's granularity when
// that is larger [inferred]; so cuMemGetInfo sees a pool's reserve, and a copy into pool
// memory is checked like any other. Inside a chunk an allocation takes a block of its size
// rounded up to kPoolBlockAlignment [inferred: the H100 showed only that 1024 bytes needed
// no more]. RESERVED_MEM_CURRENT is the sum of the pool's chunks; USED_MEM_CURRENT the sum of
// its live allocations' sizes as asked for. The *_HIGH values are the highest the current
// values reached since the pool was created or the watermark was reset. An allocation takes
// the smallest usable free block that fits (lowest address among equals; Note [Pool
// reuse]); else a new chunk, after releasing unusable free chunks if the device is out of
// memory.
//
// Note [Pool reuse]
// A block freed by cuMemFreeAsync on stream S is free in stream order: an allocation on S
// may take it at once (its work follows the free). Another stream may take it once the
// free has completed (CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, on by default), and the
// new allocation's first operation is then ordered after the free, so the race detector
// sees the handover. Never-used space of a chunk is free for every stream, and adjacent
// never-used blocks merge; a freed block keeps its history until its chunk is released
// (two freed neighbours do not merge). [inferred] Reuse through internal dependencies
// (waiting for a free that has not completed) and event dependencies are not modelled: the
// pool grows instead, the conservative choice.
//
// Note [Pool release]
// Documented (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD): a pool keeps freed memory while it holds
// no more than the threshold (0 by default), and releases the excess when the host
// synchronises. A chunk goes back only when all of it is free with every free completed
// (Recording 2: a 2 MiB allocation still live kept its 32 MiB chunk after a sync).
// [inferred] Every host wait of a stream, event or context (and a synchronous copy that
// waits) is such a point; such chunks are released from the highest address down while the
// reserve is above the threshold. cuMemPoolTrimTo releases the same way down to its
// argument, at once.
//
// Ownership: pool objects are never freed (Note [Leaky state]): a destroyed handle leaves
// the registry (attribute and access calls reject it) but keeps serving allocations, as the
// H100 did (Recording 2), and its memory goes back when its chunks are free. Thread
// safety: engine lock.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "core/timeline.h"

struct accel::cuda_abi::CUmemPoolHandle_st {
  // A piece of a chunk: live (an allocation of `requested` bytes) or free.
  struct Block {
    std::uint64_t bytes = 0;       // the span in the chunk (rounded to kPoolBlockAlignment)
    std::uint64_t requested = 0;   // 0: free; else the live allocation's size as asked for
    std::uint64_t free_queue = 0;  // the queue of the stream that freed it (0: never used)
    mockdev::core::OpId free_op = 0;  // the free's operation (0: done at once)
  };
  struct Chunk {
    std::uint64_t bytes = 0;                // reserved
    std::map<std::uint64_t, Block> blocks;  // by offset; they tile the chunk
  };
  int device = 0;  // physical
  bool is_default = false;
  bool destroyed = false;  // left the registry; live allocations may still be freed
  std::uint64_t max_size = 0;  // 0: no limit but the device's memory
  std::uint64_t release_threshold = 0;
  int follow_event_dependencies = 1, allow_opportunistic = 1, allow_internal_dependencies = 1;
  std::uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
  std::map<std::uint64_t, Chunk> chunks;  // by address
  std::map<int, accel::cuda_abi::CUmemAccess_flags> peer_access;  // by physical device
};

namespace mockdev::cuda {

using accel::cuda_abi::CUmemPoolHandle_st;

inline constexpr std::uint64_t kPoolChunkBytes = std::uint64_t{32} << 20;  // Recording 2
inline constexpr std::uint64_t kPoolBlockAlignment = 512;

// A live pool allocation: its pool, start and size as asked for.
struct PoolAllocation {
  CUmemPoolHandle_st* pool = nullptr;
  std::uint64_t base = 0;
  std::uint64_t bytes = 0;
};

// A new pool on physical `device` (registered).
CUmemPoolHandle_st* create_pool(int device, std::uint64_t max_size)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether `pool` is a live pool handle of this machine (never dereferences it otherwise).
bool is_live_pool(const CUmemPoolHandle_st* pool) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Whether `pool` is a pool handle this machine made, destroyed or not.
bool is_known_pool(const CUmemPoolHandle_st* pool) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The device's default pool (created at first use) and its current pool.
CUmemPoolHandle_st* default_pool(int device) MOCKDEV_REQUIRES(core::g_engine_mutex);
CUmemPoolHandle_st* current_pool(int device) MOCKDEV_REQUIRES(core::g_engine_mutex);
void set_current_pool(int device, CUmemPoolHandle_st* pool) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Leaves the registry (not the default pool: the caller checks); the device's current pool
// becomes its default pool if it was this one; free chunks are released.
void destroy_pool(CUmemPoolHandle_st* pool) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Note [Pool reuse]: an allocation of `bytes` for the stream whose queue is `queue`. Its
// address, and in `*after` the free operation its work must follow (0: none); nullopt when
// the device (or the pool's maximum size) has no room.
std::optional<std::uint64_t> pool_allocate(CUmemPoolHandle_st* pool, std::uint64_t bytes,
                                           std::uint64_t queue, core::OpId* after)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// The pool holding a live allocation starting at `address` (destroyed pools included).
CUmemPoolHandle_st* pool_of(std::uint64_t address) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The live pool allocation containing `address`, if any (destroyed pools included).
std::optional<PoolAllocation> pool_allocation_containing(std::uint64_t address)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// Marks the allocation at `address` free in stream order on `queue` (its free operation
// `op` is set by note_free_op once submitted).
void pool_free(CUmemPoolHandle_st* pool, std::uint64_t address, std::uint64_t queue)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
void note_free_op(std::uint64_t address, core::OpId op) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Releases wholly free chunks whose frees completed, highest address first, while the
// reserve is above `keep` (Note [Pool release]).
void release_down_to(CUmemPoolHandle_st* pool, std::uint64_t keep)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
// A host synchronisation happened: every pool releases down to its threshold.
void pools_after_host_wait() MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
