#pragma once
// The model the allocator properties hold the caching allocator to: which blocks the user
// holds (live), which were freed while other streams still had work queued that used them
// (pending, with the work each must wait for), and PyTorch's size policy (spec
// torch_accelerator.md §4.2-4.5) to judge an out-of-memory error.
//
// The model is written from the spec, not from the allocator: it never predicts addresses
// (it learns them from what allocate returns and from the snapshot) but it predicts which
// blocks are handed out, pending or free at every step, and it checks that
//  * no live block overlaps another live one (no address handed out twice);
//  * a block freed with pending work on another stream is not handed out again before that
//    work completed (spec §4.7);
//  * the snapshot's allocated blocks are exactly the live ones (with their requested sizes)
//    and its pending-free blocks exactly the pending ones;
//  * every live block sits in a segment made for its own stream (no cross-stream reuse).
// Values only; not thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

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

// Spec §4.2-4.5.
std::size_t round_size(std::size_t bytes, const PolicyConfig& config);
std::size_t allocation_size(std::size_t rounded);
bool is_small(std::size_t rounded);
// Whether a free block of `block_size` may serve a request of `rounded` bytes (§4.4).
bool may_serve(std::size_t block_size, std::size_t rounded, const PolicyConfig& config);

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
  // What an allocation on `device` does to pending blocks first (spec §4.7
  // process_events): those whose work has all completed become free.
  void process_events(int device, const CompletionOracle& done);
  // A synchronisation of every event of `device` (empty_cache, the OOM retry chain).
  void synchronize_all(int device);

  // Exact correspondence with the snapshot of `device` (see the header comment).
  Violations check_blocks(int device, const std::vector<SegmentSnapshot>& segments) const;

 private:
  std::vector<LiveBlock> live_;
  std::vector<PendingBlock> pending_;
};

}  // namespace accel::test::alloc_model
