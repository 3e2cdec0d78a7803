#include "core/pinned_host.h"

#include <map>

#include "core/engine.h"
#include "core/race_call_site.h"

namespace mockdev::core {
namespace {

struct PinnedState {
  std::uint64_t generation = 0;
  std::map<std::uint64_t, PinnedRange> ranges;  // by base
  std::uint64_t bytes = 0;
  std::uint64_t allocated_bytes = 0;  // of `bytes`, the driver-allocated ranges'
  std::uint64_t next_id = 1;
};

PinnedState& pinned() MOCKDEV_REQUIRES(g_engine_mutex) {
  static PinnedState* const state = new PinnedState();  // Note [Leaky state]
  const Engine& e = engine();
  if (state->generation != e.generation) *state = PinnedState{e.generation, {}, 0, 0, 1};
  return *state;
}

}  // namespace

std::vector<PinnedRange> pinned_ranges(Api owner) {
  std::vector<PinnedRange> out;
  for (const auto& [base, range] : pinned().ranges) {
    if (range.owner == owner) out.push_back(range);
  }
  return out;
}

bool add_pinned(PinnedRange range) {
  const std::uint64_t base = range.base;
  const std::uint64_t bytes = range.bytes;
  PinnedState& p = pinned();
  auto next = p.ranges.lower_bound(base);
  if (next != p.ranges.end() && next->first < base + bytes) return false;
  if (next != p.ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes > base) return false;
  }
  range.id = p.next_id++;
  range.caller = current_caller();
  p.ranges.emplace(base, range);
  if (range.managed) return true;  // not page-locked memory: not counted as pinned
  p.bytes += bytes;
  if (range.allocated) p.allocated_bytes += bytes;
  return true;
}

std::optional<PinnedRange> pinned_at(std::uint64_t base) {
  const PinnedState& p = pinned();
  auto it = p.ranges.find(base);
  if (it == p.ranges.end()) return std::nullopt;
  return it->second;
}

bool remove_pinned(std::uint64_t base) {
  PinnedState& p = pinned();
  auto it = p.ranges.find(base);
  if (it == p.ranges.end()) return false;
  if (!it->second.managed) {
    p.bytes -= it->second.bytes;
    if (it->second.allocated) p.allocated_bytes -= it->second.bytes;
  }
  p.ranges.erase(it);
  return true;
}

std::optional<PinnedRange> pinned_containing(std::uint64_t address, std::uint64_t bytes) {
  const PinnedState& p = pinned();
  if (p.ranges.empty()) return std::nullopt;
  auto it = p.ranges.upper_bound(address);
  if (it == p.ranges.begin()) return std::nullopt;
  --it;
  const std::uint64_t offset = address - it->first;
  if (offset >= it->second.bytes || bytes > it->second.bytes - offset) return std::nullopt;
  return it->second;
}

bool device_accessible_host(std::uint64_t address, std::uint64_t bytes) {
  std::optional<PinnedRange> r = pinned_containing(address, bytes);
  return r && r->device_accessible;
}

bool is_pinned(std::uint64_t address, std::uint64_t bytes) {
  return pinned_containing(address, bytes).has_value();
}

std::uint64_t pinned_bytes() { return pinned().bytes; }
std::uint64_t allocated_pinned_bytes() { return pinned().allocated_bytes; }

}  // namespace mockdev::core
