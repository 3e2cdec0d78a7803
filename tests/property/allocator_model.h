#pragma once
// The model the allocator properties hold the caching allocator to: which blocks the user
// holds (live), which were freed while other streams still had work queued that used them
// (pending, with the work each must wait for), and PyTorch's size policy
// (CUDACachingAllocator.cpp) to judge an out-of-memory error.
//
// The model is written from PyTorch's rules, not from the allocator: it never predicts addresses
// (it learns them from what allocate returns and from the snapshot) but it predicts which
// blocks are handed out, pending or free at every step, and it checks that
//  * no live block overlaps another live one (no address handed out twice);
//  * a block freed with pending work on another stream is not handed out again before that
//    work completed (PyTorch's recordStream rule);
//  * the snapshot's allocated blocks are exactly the live ones (with their requested sizes)
//    and its pending-free blocks exactly the pending ones;
//  * every live block sits in a segment made for its own stream (no cross-stream reuse).
// Values only; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "accel/error.h"
#include "accel/memory.h"
#include "allocator_invariants.h"

namespace accel::test::alloc_model {

struct LiveBlock {
  std::uint64_t address = 0;
  std::size_t requested = 0;
  std::size_t size = 0;  // the block's size, from the snapshot
  int device = 0;
  int stream = 0;
  std::set<int> used_on;  // streams given to record_stream (never the allocation stream)
};

struct StreamWait {
  int stream = 0;
  std::uint64_t work = 0;  // that stream's work items queued when the block was freed
};

struct PendingBlock {
  LiveBlock block;
  std::vector<StreamWait> waits;  // one per stream in block.used_on
};

// Whether the first `work` items queued on `stream` of `device` have completed.
using CompletionOracle = std::function<bool(int device, int stream, std::uint64_t work)>;

struct PolicyConfig {
  std::size_t max_split_size = static_cast<std::size_t>(-1);
  std::size_t roundup_divisions = 0;
  std::size_t max_non_split_rounding = 20 * (std::size_t{1} << 20);
};

// PyTorch's round_size, get_allocation_size, get_pool.
std::size_t round_size(std::size_t bytes, const PolicyConfig& config);
std::size_t allocation_size(std::size_t rounded);
bool is_small(std::size_t rounded);
// Whether a free block of `block_size` may serve a request of `rounded` bytes (get_free_block's
// oversize rules).
bool may_serve(std::size_t block_size, std::size_t rounded, const PolicyConfig& config);

// What an OutOfMemoryError is judged against (PyTorch's malloc path): the request, the settings,
// and the device right after the error.
struct OomFacts {
  std::size_t bytes = 0;
  int device = 0;
  int stream = 0;  // as the snapshot names it (Stream::id())
  PolicyConfig policy;
  bool expandable = false;
  std::size_t granularity = 2 * (std::size_t{1} << 20);
  std::size_t free_bytes = 0;     // what the driver could still hand out
  std::size_t allowed_bytes = 0;  // fraction * total (total when no fraction is set)
  bool nothing_live = false;      // no live block on the device
};

inline constexpr std::size_t kOneExbibyte = std::size_t{1} << 60;

// An OOM is legitimate only after the whole retry chain found nothing: requests of 1 EiB or
// more are refused up front (PyTorch's text, no statistic moves); otherwise num_ooms,
// num_alloc_retries and num_sync_all_streams move by exactly one, the report names the
// request, no wholly free segment is left cached, no free block on the stream may serve the
// request, and no new segment fits in the device under the fraction. Expandable segments
// are judged only where nothing is live (then every page could be remapped).
Violations check_oom(const OomFacts& facts, const OutOfMemoryError& error,
                     const FlatStats& before, const FlatStats& after,
                     const std::vector<SegmentSnapshot>& segments);

class Model {
 public:
  std::vector<LiveBlock>& live() { return live_; }
  const std::vector<LiveBlock>& live() const { return live_; }
  const std::vector<PendingBlock>& pending() const { return pending_; }

  // The live block chosen by a command's index (the count must be > 0).
  std::size_t pick(std::size_t index) const { return index % live_.size(); }

  // A new allocation: checks it against the live and pending blocks of its device first.
  Violations hand_out(const LiveBlock& block, const CompletionOracle& done);
  // Frees live block `i`: pending when it was used on other streams, with the work queued
  // on each (`queued(device, stream)`) as what it must wait for.
  void free(std::size_t i, const std::function<std::uint64_t(int, int)>& queued);
  // What an allocation on `device` does to pending blocks first (PyTorch's
  // process_events): those whose work has all completed become free.
  void process_events(int device, const CompletionOracle& done);
  // A synchronisation of every event of `device` (empty_cache, the OOM retry chain).
  void synchronize_all(int device);

  // Where the model cannot know when the allocator looked at its events (real streams on
  // the simulated driver): pending blocks the snapshot no longer shows as pending are
  // dropped, each a violation unless all of its work has completed.
  Violations reconcile(int device, const std::vector<SegmentSnapshot>& segments,
                       const CompletionOracle& done);

  // Exact correspondence with the snapshot of `device` (see the header comment).
  Violations check_blocks(int device, const std::vector<SegmentSnapshot>& segments) const;

 private:
  std::vector<LiveBlock> live_;
  std::vector<PendingBlock> pending_;
};

}  // namespace accel::test::alloc_model
