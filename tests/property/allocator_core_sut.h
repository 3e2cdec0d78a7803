#pragma once
// The system under test of the allocator core properties (allocator_commands.h): the device
// caching allocator core (DeviceCachingAllocator) over the allocator's fake provider
// (tests/unit/runtime/allocator/fake_device_provider.h: no driver, fake addresses, stream
// work queued and completed by the commands), one device of kCapacity bytes. After every
// command it checks:
//  * every allocator invariant that holds at a quiescent point (allocator_invariants.h),
//    the statistics' history included (exact current, peak and accumulated values);
//  * the reference model's blocks (allocator_model.h): live blocks never overlap, pending
//    blocks are not handed out before their work completed, the snapshot holds exactly the
//    model's live and pending blocks;
//  * oversize_allocations / oversize_segments equal the model's count of live blocks and
//    made segments of max_split_size or more, and max_split_size the configured limit;
//  * reserved_bytes.all.current equals the bytes the provider has handed out;
//  * an OutOfMemoryError is thrown only when nothing could serve the request after the whole
//    retry chain, loses no live block and moves num_ooms, num_alloc_retries and
//    num_sync_all_streams by exactly one (check_oom);
//  * empty_cache moves num_sync_all_streams by one, never raises reserved bytes or their
//    peak, and with nothing live returns to the baseline (nothing reserved, no segment);
//  * record_stream and set_memory_fraction leave the statistics alone;
//  * the core's own invariant checker (tests/unit/runtime/allocator/invariants.h) agrees.
// finish() frees everything, completes all work and empties the cache, which must leave
// the provider with nothing handed out.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "allocator/device_caching_allocator.h"
#include "allocator_commands.h"
#include "allocator_model.h"
#include "allocator_settings.h"
#include "fake_device_provider.h"

namespace accel::test::alloc_model {

inline constexpr std::size_t kCapacity = 96 * kMiB;
inline constexpr std::size_t kGranularity = 2 * kMiB;

struct CoreCoverage {
  std::size_t programs = 0;
  std::size_t commands = 0;
  std::size_t allocations = 0;
  std::size_t ooms = 0;
  std::size_t pending_frees = 0;      // frees of blocks used on another stream
  std::size_t reused_after_wait = 0;  // allocations that got a formerly pending block back
  std::size_t empty_caches = 0;
  std::size_t oversize_moments = 0;  // checks at which the model expected an oversize block
};

// A provider of kCapacity bytes with kGranularity pages.
std::unique_ptr<detail::alloc::testing::FakeDeviceProvider> make_core_provider();

class CoreSut final : public AllocatorSut {
 public:
  CoreSut(const Settings& settings, CoreCoverage& coverage);

  // A new allocator starts with every statistic 0 (max_split_size aside).
  Violations start() const;
  Violations allocate(int handle, int device, int stream, std::size_t bytes) override;
  Violations allocate_and_free(int device, int stream, std::size_t bytes) override;
  Violations free(int handle) override;
  Violations record_stream(int handle, int stream) override;
  Violations queue_work(int device, int stream) override;
  Violations complete_work(int device, int stream) override;
  Violations empty_cache() override;
  Violations reset_peak(int device) override;
  Violations reset_accumulated(int device) override;
  Violations set_fraction(int device, double fraction) override;
  Violations check() override;
  // Frees everything, completes all work, empties the cache: back to nothing.
  Violations finish();

 private:
  FlatStats stats() const;
  CompletionOracle done() const;
  std::size_t block_size(std::uint64_t address) const;
  std::size_t live_index(int handle) const;  // live().size() when the handle holds no block
  void free_live(std::size_t i);
  void allocate_block(int stream, std::size_t bytes, const FlatStats& before, Violations& out);
  void out_of_memory(int stream, std::size_t bytes, const FlatStats& before,
                     const OutOfMemoryError& e, Violations& out);
  void empty_cache_checked(const FlatStats& before, Violations& out);
  void check_all(Violations& out);
  void check_oversize_counts(const FlatStats& now, const std::vector<SegmentSnapshot>& segments,
                             std::int64_t split, Violations& out);

  Settings settings_;
  CoreCoverage& coverage_;
  PolicyConfig policy_;
  LayoutRules rules_;
  detail::alloc::testing::FakeDeviceProvider* provider_ = nullptr;
  std::unique_ptr<detail::alloc::DeviceCachingAllocator> allocator_;
  std::unique_ptr<StatHistory> history_;
  Model model_;                          // the reference
  std::map<int, std::uint64_t> blocks_;  // handle -> address of its live block
  double fraction_ = 1.0;
  bool accumulated_reset_ = false;
};

}  // namespace accel::test::alloc_model
