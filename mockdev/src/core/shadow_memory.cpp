#include "core/shadow_memory.h"

#include <algorithm>
#include <iterator>

namespace mockdev::core {

void ShadowMemory::split(std::uint64_t at) {
  auto it = cells_.upper_bound(at);
  if (it == cells_.begin()) return;
  --it;
  if (it->first == at || it->second.end <= at) return;
  ShadowCell right = it->second;  // same state, [at, old end)
  it->second.end = at;
  cells_.emplace_hint(std::next(it), at, std::move(right));
}

void ShadowMemory::merge_around(Cells::iterator it) {
  // With the left neighbour...
  if (it != cells_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end == it->first && prev->second.same_state(it->second)) {
      prev->second.end = it->second.end;
      cells_.erase(it);
      it = prev;
    }
  }
  // ...and the right one.
  auto next = std::next(it);
  if (next != cells_.end() && it->second.end == next->first &&
      it->second.same_state(next->second)) {
    it->second.end = next->second.end;
    cells_.erase(next);
  }
}

void ShadowMemory::record_write(std::uint64_t begin, std::uint64_t end, ShadowAccess access) {
  if (begin >= end) return;
  // Fast path: one cell covers exactly this range (a buffer written again and again).
  auto exact = cells_.find(begin);
  if (exact != cells_.end() && exact->second.end == end) {
    exact->second.write = access;
    exact->second.reads.clear();
    merge_around(exact);
    return;
  }
  split(begin);
  split(end);
  auto first = cells_.lower_bound(begin);
  auto last = cells_.lower_bound(end);
  cells_.erase(first, last);
  auto it = cells_.emplace_hint(last, begin, ShadowCell{end, access, {}});
  merge_around(it);
}

void ShadowMemory::record_read(std::uint64_t begin, std::uint64_t end, ShadowAccess access) {
  if (begin >= end) return;
  auto add_read = [&](ShadowCell& cell) {
    auto pos = std::lower_bound(
        cell.reads.begin(), cell.reads.end(), access,
        [](const ShadowAccess& a, const ShadowAccess& b) { return a.queue < b.queue; });
    if (pos != cell.reads.end() && pos->queue == access.queue) {
      pos->op = std::max(pos->op, access.op);
    } else {
      cell.reads.insert(pos, access);
    }
  };
  // Fast path: one cell covers exactly this range (a buffer read again and again).
  if (auto exact = cells_.find(begin); exact != cells_.end() && exact->second.end == end) {
    add_read(exact->second);
    merge_around(exact);
    return;
  }
  split(begin);
  split(end);
  // Walk the cells in [begin, end), filling gaps with fresh cells.
  std::uint64_t at = begin;
  auto it = cells_.lower_bound(begin);
  while (at < end) {
    if (it == cells_.end() || it->first > at) {
      const std::uint64_t gap_end = it == cells_.end() ? end : std::min(end, it->first);
      it = cells_.emplace_hint(it, at, ShadowCell{gap_end, ShadowAccess{}, {access}});
    } else {
      add_read(it->second);
    }
    at = it->second.end;
    ++it;
  }
  // Merge equal neighbours over the range and its two edges.
  auto walk = cells_.lower_bound(begin);
  if (walk != cells_.begin()) --walk;
  while (walk != cells_.end() && walk->first <= end) {
    auto next = std::next(walk);
    if (next != cells_.end() && walk->second.end == next->first &&
        walk->second.same_state(next->second)) {
      walk->second.end = next->second.end;
      cells_.erase(next);
    } else {
      walk = next;
    }
  }
}

}  // namespace mockdev::core
