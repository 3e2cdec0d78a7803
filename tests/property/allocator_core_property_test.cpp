// Properties of the device caching allocator core (DeviceCachingAllocator over a scripted
// provider: no driver, fake addresses, stream work completed by hand). Random programs of
// allocate / free / record_stream / stream work / empty_cache / resets / memory fraction
// run under three families of settings (defaults; max_split_size_mb and
// roundup_power2_divisions; expandable_segments), and after every command:
//  * every allocator invariant that holds at a quiescent point (allocator_invariants.h);
//  * the model's blocks (allocator_model.h): live blocks never overlap, pending blocks are
//    not handed out before their work completed, the snapshot holds exactly the model's
//    live and pending blocks;
//  * reserved_bytes.all.current equals the bytes the provider has handed out;
//  * an OutOfMemoryError is thrown only when nothing could serve the request after the whole
//    retry chain (no fitting free block on the stream, no wholly free segment left, and no
//    room for a new segment in the device or under the memory fraction), loses no live block
//    and moves num_ooms, num_alloc_retries and num_sync_all_streams by exactly one;
//  * empty_cache moves num_sync_all_streams by one, never raises reserved bytes or their
//    peak, and with nothing live returns to the baseline (nothing reserved, no segment).
// Each program ends by freeing everything, completing all work and emptying the cache,
// which must leave the provider with nothing handed out. A failing program is printed as
// its numbered command list with its settings.

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <set>
#include <string>

#include "accel/error.h"
#include "allocator/device_caching_allocator.h"
#include "allocator_invariants.h"
#include "allocator_model.h"
#include "allocator_program.h"
#include "device_index_model.h"
#include "fake_device_provider.h"
#include "invariants.h"

namespace accel::test::alloc_model {
namespace {

using detail::alloc::AllocatorConfig;
using detail::alloc::DeviceCachingAllocator;
using detail::alloc::testing::FakeDeviceProvider;

constexpr std::size_t kCapacity = 96 * kMiB;
constexpr std::size_t kGranularity = 2 * kMiB;
constexpr std::size_t kProgramLength = 60;

// The allocator's one fake provider (tests/unit/runtime/allocator/fake_device_provider.h):
// a device of kCapacity bytes whose streams' work the property queues and completes.
std::unique_ptr<FakeDeviceProvider> make_provider() {
  return std::make_unique<FakeDeviceProvider>(
      FakeDeviceProvider::Options{.capacity_bytes = kCapacity, .granularity = kGranularity});
}

struct Coverage {
  std::size_t programs = 0;
  std::size_t commands = 0;
  std::size_t allocations = 0;
  std::size_t ooms = 0;
  std::size_t pending_frees = 0;   // frees of blocks used on another stream
  std::size_t reused_after_wait = 0;  // allocations that got a formerly pending block back
  std::size_t empty_caches = 0;
  std::size_t oversize_moments = 0;  // checks at which the model expected an oversize block
};

class CoreRun {
 public:
  explicit CoreRun(const Settings& settings, Coverage& coverage)
      : settings_(settings), coverage_(coverage) {
    AllocatorConfig config;
    config.expandable_segments = settings.expandable;
    if (settings.max_split_size_mb != 0) {
      config.max_split_size = settings.max_split_size_mb * kMiB;
      policy_.max_split_size = config.max_split_size;
    }
    config.roundup_power2_divisions.fill(settings.roundup_divisions);
    policy_.roundup_divisions = settings.roundup_divisions;
    auto provider = make_provider();
    provider_ = provider.get();
    allocator_ = std::make_unique<DeviceCachingAllocator>(std::move(provider), config);
    rules_.expandable = settings.expandable;
    history_ = std::make_unique<StatHistory>(stats());
  }

  FlatStats stats() const { return detail::alloc::flatten(allocator_->stats()); }

  // Runs one command and checks everything; returns the violations.
  Violations step(const Op& op) {
    Violations out;
    const FlatStats before = stats();
    switch (op.kind) {
      case OpKind::kAllocate:
        allocate(op, before, out);
        break;
      case OpKind::kAllocateAndFree: {
        const std::size_t live = model_.live().size();
        allocate(op, before, out);
        if (model_.live().size() > live) {
          // The allocation is a state of its own: the peaks must see it.
          const Violations v = history_->observe(stats());
          out.insert(out.end(), v.begin(), v.end());
          free_live(model_.live().size() - 1);
          const FlatStats after = stats();
          for (const char* key : {"allocated_bytes.all.current", "allocation.all.current"}) {
            if (stat_bytes(after, key) != stat_bytes(before, key)) {
              out.push_back("invariant 13: " + std::string(key) + " " +
                            std::to_string(stat_bytes(after, key)) + " after allocating and freeing, " +
                            std::to_string(stat_bytes(before, key)) + " before");
            }
          }
        }
        break;
      }
      case OpKind::kFree:
        if (model_.live().empty()) return out;
        free_live(model_.pick(op.index));
        break;
      case OpKind::kRecordStream: {
        if (model_.live().empty()) return out;
        LiveBlock& block = model_.live()[model_.pick(op.index)];
        // An address inside the block (a shifted view protects the whole block).
        allocator_->record_stream(block.address + block.requested / 2, op.stream);
        if (op.stream != block.stream) block.used_on.insert(op.stream);
        if (stats() != before) out.emplace_back("record_stream changed the statistics");
        break;
      }
      case OpKind::kQueueWork:
        provider_->enqueue_work(op.stream);
        break;
      case OpKind::kCompleteWork:
        provider_->complete_work(op.stream);
        break;
      case OpKind::kEmptyCache:
        empty_cache(before, out);
        break;
      case OpKind::kResetPeak: {
        allocator_->reset_peak_stats();
        const Violations v = history_->after_reset_peak(stats());
        out.insert(out.end(), v.begin(), v.end());
        break;
      }
      case OpKind::kResetAccumulated: {
        allocator_->reset_accumulated_stats();
        accumulated_reset_ = true;
        const Violations v = history_->after_reset_accumulated(stats());
        out.insert(out.end(), v.begin(), v.end());
        break;
      }
      case OpKind::kSetFraction:
        allocator_->set_memory_fraction(op.fraction);
        fraction_ = op.fraction;
        if (allocator_->memory_fraction() != op.fraction) {
          out.push_back("memory_fraction() " + std::to_string(allocator_->memory_fraction()) +
                        " after set_memory_fraction(" + std::to_string(op.fraction) + ")");
        }
        if (stats() != before) out.emplace_back("set_memory_fraction changed the statistics");
        break;
    }
    ++coverage_.commands;
    check_all(out);
    return out;
  }

  // Frees everything, completes all work, empties the cache: back to nothing.
  Violations finish() {
    Violations out;
    while (!model_.live().empty()) {
      free_live(model_.live().size() - 1);
      const Violations v = history_->observe(stats());
      out.insert(out.end(), v.begin(), v.end());
    }
    for (int s = 0; s < kStreams; ++s) provider_->complete_work(s);
    empty_cache(stats(), out);
    check_all(out);
    if (provider_->used_bytes() != 0) {
      out.push_back("the provider still has " + std::to_string(provider_->used_bytes()) +
                    " bytes handed out after everything was freed and the cache emptied");
    }
    return out;
  }

 private:
  HostFrame site() const { return HostFrame{"allocator_core_property_test.cpp", 1, "program"}; }

  CompletionOracle done() const {
    return [this](int, int stream, std::uint64_t work) {
      return provider_->completed(stream, work);
    };
  }

  void free_live(std::size_t i) {
    const LiveBlock& block = model_.live()[i];
    if (!block.used_on.empty()) ++coverage_.pending_frees;
    allocator_->free(block.address, site());
    model_.free(i, [this](int, int stream) { return provider_->queued(stream); });
  }

  std::size_t block_size(std::uint64_t address) const {
    for (const SegmentSnapshot& seg : allocator_->snapshot()) {
      for (const BlockSnapshot& b : seg.blocks) {
        if (b.address == address) return b.size;
      }
    }
    return 0;
  }

  void allocate(const Op& op, const FlatStats& before, Violations& out) {
    const bool rejected_up_front = op.bytes == 0 || op.bytes >= kOneExbibyte;
    // PyTorch's process_events: an allocation first lets go of pending blocks whose work has
    // completed.
    const std::vector<PendingBlock> pending_before = model_.pending();
    if (!rejected_up_front) model_.process_events(0, done());
    std::uint64_t address = 0;
    try {
      address = allocator_->allocate(op.bytes, op.stream, site());
    } catch (const OutOfMemoryError& e) {
      out_of_memory(op, before, e, out);
      return;
    } catch (const Error& e) {
      out.push_back(std::string("allocate threw an unexpected error: ") + e.what());
      return;
    }
    const FlatStats after = stats();
    if (op.bytes == 0) {
      if (address != 0) out.emplace_back("allocate(0) returned a non-null address");
      if (after != before) out.emplace_back("allocate(0) changed the statistics");
      return;
    }
    if (op.bytes >= kOneExbibyte) {
      out.push_back("allocate(" + std::to_string(op.bytes) + ") did not throw");
    }
    if (address == 0) {
      out.push_back("allocate(" + std::to_string(op.bytes) + ") returned a null address");
      return;
    }
    ++coverage_.allocations;
    LiveBlock block{address, op.bytes, block_size(address), 0, op.stream, {}};
    if (block.size < round_size(op.bytes, policy_)) {
      out.push_back("allocate(" + std::to_string(op.bytes) + ") gave a block of " +
                    std::to_string(block.size) + " bytes, less than the rounded size " +
                    std::to_string(round_size(op.bytes, policy_)));
    }
    // The memory fraction caps what an allocation may reserve (an older, larger reservation
    // stays until released).
    const auto reserved_before = stat_bytes(before, "reserved_bytes.all.current");
    const auto reserved_after = stat_bytes(after, "reserved_bytes.all.current");
    const auto allowed = static_cast<std::size_t>(fraction_ * static_cast<double>(kCapacity));
    if (reserved_after > reserved_before && reserved_after > allowed) {
      out.push_back("allocate(" + std::to_string(op.bytes) + ") took reserved bytes to " +
                    std::to_string(reserved_after) + ", above the fraction's " +
                    std::to_string(allowed));
    }
    const Violations v = model_.hand_out(block, done());
    out.insert(out.end(), v.begin(), v.end());
    for (const PendingBlock& p : pending_before) {
      if (block.address < p.block.address + p.block.size &&
          p.block.address < block.address + block.size) {
        ++coverage_.reused_after_wait;
        break;
      }
    }
    if (stat_bytes(after, "num_sync_all_streams") > stat_bytes(before, "num_sync_all_streams")) {
      model_.synchronize_all(0);
    }
  }

  void out_of_memory(const Op& op, const FlatStats& before, const OutOfMemoryError& e,
                     Violations& out) {
    if (op.bytes < kOneExbibyte) {
      ++coverage_.ooms;
      model_.synchronize_all(0);  // the retry chain waited for every event
    }
    OomFacts facts;
    facts.bytes = op.bytes;
    facts.device = 0;
    facts.stream = op.stream;
    facts.policy = policy_;
    facts.expandable = settings_.expandable;
    facts.granularity = kGranularity;
    facts.free_bytes = kCapacity - provider_->used_bytes();
    facts.allowed_bytes = static_cast<std::size_t>(fraction_ * static_cast<double>(kCapacity));
    facts.nothing_live = model_.live().empty();
    const Violations v = check_oom(facts, e, before, stats(), allocator_->snapshot());
    out.insert(out.end(), v.begin(), v.end());
  }

  void empty_cache(const FlatStats& before, Violations& out) {
    allocator_->empty_cache();
    ++coverage_.empty_caches;
    model_.synchronize_all(0);
    const FlatStats after = stats();
    if (stat_bytes(after, "num_sync_all_streams") != stat_bytes(before, "num_sync_all_streams") + 1) {
      out.emplace_back("invariant 12: empty_cache did not move num_sync_all_streams by one");
    }
    if (stat_bytes(after, "reserved_bytes.all.current") > stat_bytes(before, "reserved_bytes.all.current")) {
      out.emplace_back("invariant 12: empty_cache raised reserved_bytes.all.current");
    }
    if (stat_bytes(after, "reserved_bytes.all.peak") != stat_bytes(before, "reserved_bytes.all.peak")) {
      out.emplace_back("invariant 12: empty_cache changed reserved_bytes.all.peak");
    }
    if (model_.live().empty()) {
      for (const char* key : {"reserved_bytes.all.current", "segment.all.current",
                              "inactive_split.all.current", "active.all.current"}) {
        if (stat_bytes(after, key) != 0) {
          out.push_back("invariant 11: " + std::string(key) + " " +
                        std::to_string(stat_bytes(after, key)) + " after empty_cache with nothing live");
        }
      }
    }
    if (!settings_.expandable) {
      for (const SegmentSnapshot& seg : allocator_->snapshot()) {
        if (seg.blocks.size() == 1 && seg.blocks[0].state == "inactive") {
          out.push_back("empty_cache kept a wholly free segment of " +
                        std::to_string(seg.total_size) + " bytes");
        }
      }
    }
  }

  void check_all(Violations& out) {
    const FlatStats now = stats();
    const std::vector<SegmentSnapshot> segments = allocator_->snapshot();
    for (const Violations& v : {check_stats(now, rules_), check_snapshot(now, segments, rules_),
                                history_->observe(now), model_.check_blocks(0, segments)}) {
      out.insert(out.end(), v.begin(), v.end());
    }
    if (stat_bytes(now, "reserved_bytes.all.current") != provider_->used_bytes()) {
      out.push_back("reserved_bytes.all.current " +
                    std::to_string(stat_bytes(now, "reserved_bytes.all.current")) +
                    " != the bytes the provider has handed out " +
                    std::to_string(provider_->used_bytes()));
    }
    const std::int64_t split = settings_.max_split_size_mb == 0
                                   ? -1
                                   : static_cast<std::int64_t>(settings_.max_split_size_mb * kMiB);
    if (static_cast<std::int64_t>(stat_bytes(now, "max_split_size")) != split) {
      out.push_back("max_split_size " + std::to_string(stat_bytes(now, "max_split_size")) +
                    ", configured " + std::to_string(split));
    }
    check_oversize_counts(now, segments, split, out);
    // The core's own invariant checker (tests/unit/runtime/allocator/invariants.h) as a second
    // opinion on the same moment; it holds invariant 9 for every segment kind, which
    // expandable segments (pages mapped, not segments made) do not follow, so not for them.
    if (!settings_.expandable) {
      detail::alloc::testing::InvariantOptions options;
      options.no_accumulated_reset = !accumulated_reset_;
      for (const std::string& v :
           detail::alloc::testing::check_invariants(*allocator_, options)) {
        out.push_back("core invariant checker: " + v);
      }
    }
    if (provider_->misuse() != 0) {
      out.emplace_back("the allocator called the provider with an unknown handle");
    }
  }

  // PyTorch's oversize counters, from the model: oversize_allocations counts the live
  // blocks (freed ones stop counting at free(), pending or not) of max_split_size or more,
  // oversize_segments the segments made that large. With no limit both stay 0. Expandable
  // segments are mapped page by page rather than made, so only made segments are counted.
  void check_oversize_counts(const FlatStats& now, const std::vector<SegmentSnapshot>& segments,
                             std::int64_t split, Violations& out) {
    std::uint64_t allocations = 0;
    std::uint64_t made = 0;
    if (split >= 0) {
      const auto limit = static_cast<std::size_t>(split);
      for (const LiveBlock& block : model_.live()) allocations += block.size >= limit ? 1 : 0;
      coverage_.oversize_moments += allocations > 0 ? 1 : 0;
      for (const SegmentSnapshot& seg : segments) {
        made += !seg.is_expandable && seg.total_size >= limit ? 1 : 0;
      }
    }
    if (stat_bytes(now, "oversize_allocations.current") != allocations) {
      out.push_back("oversize_allocations.current " +
                    std::to_string(stat_bytes(now, "oversize_allocations.current")) + ", the model's " +
                    std::to_string(allocations) + " live blocks of max_split_size or more");
    }
    if (!settings_.expandable && stat_bytes(now, "oversize_segments.current") != made) {
      out.push_back("oversize_segments.current " +
                    std::to_string(stat_bytes(now, "oversize_segments.current")) + ", the snapshot's " +
                    std::to_string(made) + " segments of max_split_size or more");
    }
  }

  Settings settings_;
  Coverage& coverage_;
  PolicyConfig policy_;
  LayoutRules rules_;
  FakeDeviceProvider* provider_ = nullptr;
  std::unique_ptr<DeviceCachingAllocator> allocator_;
  std::unique_ptr<StatHistory> history_;
  Model model_;
  double fraction_ = 1.0;
  bool accumulated_reset_ = false;
};

void run_program(const Settings& settings, const Program& program, Coverage& coverage) {
  RC_LOG() << "settings: " << settings.text() << "\nprogram:\n" << describe(program);
  CoreRun run(settings, coverage);
  const FlatStats start = run.stats();
  for (const auto& [key, value] : start) {
    if (key != "max_split_size" && value != 0) {
      RC_FAIL("a new allocator starts with " + key + " = " + std::to_string(value));
    }
  }
  for (std::size_t i = 0; i < program.size(); ++i) {
    Violations v;
    try {
      v = run.step(program[i]);
    } catch (const std::exception& e) {
      v.push_back(std::string("threw: ") + e.what());
    }
    if (!v.empty()) RC_FAIL("after command " + std::to_string(i) + " (" + describe(program[i]) +
                            "):" + join_violations(v));
  }
  const Violations v = run.finish();
  if (!v.empty()) RC_FAIL("after freeing everything and emptying the cache:" + join_violations(v));
  ++coverage.programs;
}

// Whether the allocator core answers at all (a core whose bodies throw kUnsupported skips).
bool core_is_written() {
  DeviceCachingAllocator probe(make_provider(), AllocatorConfig{});
  try {
    probe.free(probe.allocate(512, 0, HostFrame{}), HostFrame{});
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kUnsupported) return false;
  }
  return true;
}

void run_property(const char* name, bool expandable, bool with_limits) {
  if (!core_is_written()) GTEST_SKIP() << "the device allocator core is not written yet";
  device_model::apply_property_scale();
  Coverage coverage;
  const bool ok = rc::check(std::string("device allocator core, ") + name, [&] {
    const Settings settings = *gen_settings(expandable, with_limits);
    const Program program = *gen_program(1, kCapacity, kProgramLength);
    run_program(settings, program, coverage);
  });
  std::cout << "[ property ] device allocator core (" << name << "): " << coverage.programs
            << " programs, " << coverage.commands << " commands, " << coverage.allocations
            << " allocations, " << coverage.ooms << " OOMs (each justified), "
            << coverage.pending_frees << " frees pending other streams, "
            << coverage.reused_after_wait << " reuses after the wait, " << coverage.empty_caches
            << " empty_cache, " << coverage.oversize_moments
            << " checks with oversize blocks live" << std::endl;
  EXPECT_TRUE(ok);
  const int wanted = rc::detail::configuration().testParams.maxSuccess;
  EXPECT_GE(coverage.programs, static_cast<std::size_t>(wanted))
      << "fewer generated programs ran than RC_PARAMS max_success asks for";
}

// The generator itself: rapidcheck runs the first programs at the smallest sizes, and at
// those sizes the programs must already hold every command kind and a stream other than the
// default one (a size-scaled draw gave only allocations there; reset_peak_memory_stats first
// appeared after about 90 programs). 200 programs drawn at sizes 1 to 10 from a fixed seed.
TEST(AllocatorProgramGenerator, TheSmallestSizesAlreadyDrawEveryCommandKindAndStream) {
  const rc::Gen<Program> gen = gen_program(1, kCapacity, kProgramLength);
  rc::Random random(20261202);
  std::set<OpKind> kinds;
  std::set<int> streams;
  for (int program = 0; program < 200; ++program) {
    for (const Op& op : gen(random.split(), 1 + program % 10).value()) {
      kinds.insert(op.kind);
      streams.insert(op.stream);
    }
  }
  for (OpKind kind : {OpKind::kAllocate, OpKind::kAllocateAndFree, OpKind::kFree,
                      OpKind::kRecordStream, OpKind::kQueueWork, OpKind::kCompleteWork,
                      OpKind::kEmptyCache, OpKind::kResetPeak, OpKind::kResetAccumulated,
                      OpKind::kSetFraction}) {
    Op op;
    op.kind = kind;
    EXPECT_TRUE(kinds.count(kind) == 1) << "never drawn: " << describe(op);
  }
  EXPECT_EQ(streams, (std::set<int>{0, 1, 2}));
}

TEST(AllocatorCoreProperty, DefaultSettings) { run_property("default settings", false, false); }
TEST(AllocatorCoreProperty, SplitLimitAndRoundup) {
  run_property("max_split_size_mb and roundup_power2_divisions", false, true);
}
TEST(AllocatorCoreProperty, ExpandableSegments) {
  run_property("expandable segments", true, false);
}

}  // namespace
}  // namespace accel::test::alloc_model
