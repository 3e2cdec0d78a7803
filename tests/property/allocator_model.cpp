#include "allocator_model.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <map>
#include <sstream>

namespace accel::test::alloc_model {
namespace {

constexpr std::size_t kMinBlock = 512;
constexpr std::size_t kSmallSize = std::size_t{1} << 20;
constexpr std::size_t kLargeBuffer = 20 * kSmallSize;
constexpr std::size_t kMinLargeAlloc = 10 * kSmallSize;
constexpr std::size_t kRoundLarge = 2 * kSmallSize;

std::string hex(std::uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}

bool overlaps(std::uint64_t a, std::size_t a_size, std::uint64_t b, std::size_t b_size) {
  return a < b + b_size && b < a + a_size;
}

// A test of the counterexample writer only (tests/tools/scenario/CMakeLists.txt,
// scenario_runner.allocator_counterexample_*): ACCEL_ALLOCATOR_MODEL_MUTANT=free_forgets_pending
// makes the model forget that a block freed while another stream may still use it is pending,
// so the allocator property fails on a correct allocator and its counterexample, replayed,
// fails the same way.
bool mutant_free_forgets_pending() {
  const char* value = std::getenv("ACCEL_ALLOCATOR_MODEL_MUTANT");
  return value != nullptr && std::string(value) == "free_forgets_pending";
}

}  // namespace

std::size_t round_size(std::size_t bytes, const PolicyConfig& config) {
  if (bytes < kMinBlock) return kMinBlock;
  const std::size_t divisions = config.roundup_divisions;
  if (divisions > 1 && bytes > kMinBlock * divisions) {
    // The next of `divisions` equal steps between the surrounding powers of two.
    if (std::has_single_bit(bytes)) return bytes;
    const std::size_t floor = std::bit_floor(bytes);
    const std::size_t step = floor / std::bit_floor(divisions);
    if (step == 0) return floor * 2;
    const std::size_t below = bytes & ~(step - 1);
    return below == bytes ? bytes : below + step;
  }
  return (bytes + kMinBlock - 1) / kMinBlock * kMinBlock;
}

std::size_t allocation_size(std::size_t rounded) {
  if (rounded <= kSmallSize) return 2 * kSmallSize;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return (rounded + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

bool is_small(std::size_t rounded) { return rounded <= kSmallSize; }

bool may_serve(std::size_t block_size, std::size_t rounded, const PolicyConfig& config) {
  if (block_size < rounded) return false;
  if (rounded < config.max_split_size && block_size >= config.max_split_size) return false;
  if (rounded >= config.max_split_size && block_size >= rounded + config.max_non_split_rounding) {
    return false;
  }
  return true;
}

Violations check_oom(const OomFacts& facts, const OutOfMemoryError& error,
                     const FlatStats& before, const FlatStats& after,
                     const std::vector<SegmentSnapshot>& segments) {
  Violations out;
  auto get = [](const FlatStats& s, const std::string& key) {
    const auto it = s.find(key);
    return it == s.end() ? std::int64_t{0} : it->second;
  };
  const std::string what = error.what();
  const std::string request = "OOM for " + std::to_string(facts.bytes) + " bytes";
  if (facts.bytes >= kOneExbibyte) {
    if (what.find("Tried to allocate more than 1EB memory") == std::string::npos) {
      out.push_back("a request of 1 EiB or more threw '" + what + "'");
    }
    if (after != before) out.emplace_back("a request of 1 EiB or more changed the statistics");
    return out;
  }
  for (const char* key : {"num_ooms", "num_alloc_retries", "num_sync_all_streams"}) {
    if (get(after, key) != get(before, key) + 1) {
      out.push_back(request + ": " + key + " went from " + std::to_string(get(before, key)) +
                    " to " + std::to_string(get(after, key)) + ", expected one more");
    }
  }
  const std::size_t rounded = round_size(facts.bytes, facts.policy);
  const std::size_t segment = allocation_size(rounded);
  if (error.report().requested_bytes != facts.bytes || error.report().device != facts.device) {
    out.push_back("OOM report: requested_bytes " + std::to_string(error.report().requested_bytes) +
                  " device " + std::to_string(error.report().device) + ", expected " +
                  std::to_string(facts.bytes) + " on device " + std::to_string(facts.device));
  }
  if (what.find("Tried to allocate") == std::string::npos) {
    out.push_back("OOM message lacks 'Tried to allocate': " + what);
  }
  const auto reserved = static_cast<std::size_t>(get(after, "reserved_bytes.all.current"));
  if (facts.expandable) {
    const std::size_t pages =
        (rounded + facts.granularity - 1) / facts.granularity * facts.granularity;
    if (facts.nothing_live && pages <= facts.free_bytes && reserved + pages <= facts.allowed_bytes) {
      out.push_back(request + " with nothing live, " + std::to_string(facts.free_bytes) +
                    " bytes free in the device and " + std::to_string(facts.allowed_bytes) +
                    " allowed");
    }
    return out;
  }
  if (error.report().allocation_bytes != segment) {
    out.push_back("OOM report: allocation_bytes " + std::to_string(error.report().allocation_bytes) +
                  ", expected the segment size " + std::to_string(segment));
  }
  for (const SegmentSnapshot& seg : segments) {
    if (seg.device != facts.device) continue;
    if (seg.blocks.size() == 1 && seg.blocks[0].state == "inactive") {
      out.push_back(request + " with a wholly free segment of " + std::to_string(seg.total_size) +
                    " bytes still cached (the retry chain releases them)");
    }
    if (seg.stream != facts.stream || (seg.segment_type == "small") != is_small(rounded)) continue;
    for (const BlockSnapshot& b : seg.blocks) {
      if (b.state == "inactive" && may_serve(b.size, rounded, facts.policy)) {
        out.push_back(request + " although a free block of " + std::to_string(b.size) +
                      " bytes on the same stream fits");
      }
    }
  }
  if (segment <= facts.free_bytes && reserved + segment <= facts.allowed_bytes) {
    out.push_back(request + " although a segment of " + std::to_string(segment) + " fits: " +
                  std::to_string(facts.free_bytes) + " bytes free in the device, " +
                  std::to_string(reserved) + " reserved of " +
                  std::to_string(facts.allowed_bytes) + " allowed");
  }
  return out;
}

Violations Model::hand_out(const LiveBlock& block, const CompletionOracle& done) {
  Violations out;
  const std::string name = "block " + hex(block.address) + " (" + std::to_string(block.size) +
                           " bytes) handed out on stream " + std::to_string(block.stream);
  for (const LiveBlock& other : live_) {
    if (other.device == block.device &&
        overlaps(block.address, block.size, other.address, other.size)) {
      out.push_back("double hand-out: " + name + " overlaps live block " + hex(other.address) +
                    " (" + std::to_string(other.size) + " bytes)");
    }
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->block.device != block.device ||
        !overlaps(block.address, block.size, it->block.address, it->block.size)) {
      ++it;
      continue;
    }
    for (const StreamWait& w : it->waits) {
      if (!done(block.device, w.stream, w.work)) {
        out.push_back("early reuse: " + name + " overlaps block " + hex(it->block.address) +
                      " freed while stream " + std::to_string(w.stream) +
                      " still had work using it, and that work has not completed");
      }
    }
    it = pending_.erase(it);  // reused: the allocator has let it go
  }
  live_.push_back(block);
  return out;
}

void Model::free(std::size_t i, const std::function<std::uint64_t(int, int)>& queued) {
  LiveBlock block = live_[i];
  live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
  if (block.used_on.empty() || mutant_free_forgets_pending()) return;
  PendingBlock p{block, {}};
  for (int s : block.used_on) p.waits.push_back({s, queued(block.device, s)});
  pending_.push_back(std::move(p));
}

void Model::process_events(int device, const CompletionOracle& done) {
  std::erase_if(pending_, [&](const PendingBlock& p) {
    if (p.block.device != device) return false;
    return std::all_of(p.waits.begin(), p.waits.end(),
                       [&](const StreamWait& w) { return done(device, w.stream, w.work); });
  });
}

void Model::synchronize_all(int device) {
  std::erase_if(pending_, [&](const PendingBlock& p) { return p.block.device == device; });
}

Violations Model::reconcile(int device, const std::vector<SegmentSnapshot>& segments,
                             const CompletionOracle& done) {
  Violations out;
  std::set<std::uint64_t> still_pending;
  for (const SegmentSnapshot& seg : segments) {
    if (seg.device != device) continue;
    for (const BlockSnapshot& b : seg.blocks) {
      if (b.state == "active_pending_free") still_pending.insert(b.address);
    }
  }
  std::erase_if(pending_, [&](const PendingBlock& p) {
    if (p.block.device != device || still_pending.contains(p.block.address)) return false;
    for (const StreamWait& w : p.waits) {
      if (!done(device, w.stream, w.work)) {
        out.push_back("block " + hex(p.block.address) + " left the pending state while stream " +
                      std::to_string(w.stream) + " still had work using it");
      }
    }
    return true;
  });
  return out;
}

Violations Model::check_blocks(int device, const std::vector<SegmentSnapshot>& segments) const {
  Violations out;
  struct Seen {
    std::string state;
    std::size_t size = 0;
    std::size_t requested = 0;
    std::int64_t stream = 0;
  };
  std::map<std::uint64_t, Seen> seen;
  for (const SegmentSnapshot& seg : segments) {
    if (seg.device != device) continue;
    for (const BlockSnapshot& b : seg.blocks) {
      if (b.state == "inactive") continue;
      seen[b.address] = Seen{b.state, b.size, b.requested_size, seg.stream};
    }
  }
  std::size_t expected = 0;
  for (const LiveBlock& l : live_) {
    if (l.device != device) continue;
    ++expected;
    const auto it = seen.find(l.address);
    if (it == seen.end() || it->second.state != "active_allocated") {
      out.push_back("live block " + hex(l.address) + " is " +
                    (it == seen.end() ? std::string("not an allocated block") : it->second.state) +
                    " in the snapshot");
      continue;
    }
    if (it->second.requested != l.requested || it->second.size != l.size) {
      out.push_back("live block " + hex(l.address) + ": snapshot says " +
                    std::to_string(it->second.size) + " bytes for " +
                    std::to_string(it->second.requested) + " requested, the model " +
                    std::to_string(l.size) + " for " + std::to_string(l.requested));
    }
    if (it->second.stream != l.stream) {
      out.push_back("live block " + hex(l.address) + " for stream " + std::to_string(l.stream) +
                    " lies in a segment of stream " + std::to_string(it->second.stream));
    }
  }
  for (const PendingBlock& p : pending_) {
    if (p.block.device != device) continue;
    ++expected;
    const auto it = seen.find(p.block.address);
    if (it == seen.end() || it->second.state != "active_pending_free") {
      out.push_back("block " + hex(p.block.address) +
                    " freed with work pending on another stream is " +
                    (it == seen.end() ? std::string("free") : it->second.state) +
                    " in the snapshot, expected active_pending_free");
    }
  }
  if (seen.size() != expected) {
    out.push_back("the snapshot has " + std::to_string(seen.size()) +
                  " active blocks, the model " + std::to_string(expected));
  }
  return out;
}

}  // namespace accel::test::alloc_model
