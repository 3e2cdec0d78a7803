#include "core/pinned_host.h"

#include <map>

#include "core/engine.h"

namespace mockdev::core {
namespace {

struct PinnedState {
  std::uint64_t generation = 0;
  std::map<std::uint64_t, PinnedRange> ranges;  // by base
  std::uint64_t bytes = 0;
  std::uint64_t allocated_bytes = 0;  // of `bytes`, the driver-allocated ranges'
};

PinnedState& pinned() MOCKDEV_REQUIRES(g_engine_mutex) {
  static PinnedState* const state = new PinnedState();  // Note [Leaky state]
  const Engine& e = engine();
  if (state->generation != e.generation) *state = PinnedState{e.generation, {}, 0, 0};
  return *state;
}

}  // namespace

bool add_pinned(std::uint64_t base, std::uint64_t bytes, bool allocated) {
  PinnedState& p = pinned();
  auto next = p.ranges.lower_bound(base);
  if (next != p.ranges.end() && next->first < base + bytes) return false;
  if (next != p.ranges.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes > base) return false;
  }
  p.ranges.emplace(base, PinnedRange{base, bytes, allocated});
  p.bytes += bytes;
  if (allocated) p.allocated_bytes += bytes;
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
  p.bytes -= it->second.bytes;
  if (it->second.allocated) p.allocated_bytes -= it->second.bytes;
  p.ranges.erase(it);
  return true;
}

bool is_pinned(std::uint64_t address, std::uint64_t bytes) {
  const PinnedState& p = pinned();
  if (p.ranges.empty()) return false;
  auto it = p.ranges.upper_bound(address);
  if (it == p.ranges.begin()) return false;
  --it;
  const std::uint64_t offset = address - it->first;
  return offset < it->second.bytes && bytes <= it->second.bytes - offset;
}

std::uint64_t pinned_bytes() { return pinned().bytes; }
std::uint64_t allocated_pinned_bytes() { return pinned().allocated_bytes; }

}  // namespace mockdev::core
