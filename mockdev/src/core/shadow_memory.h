#pragma once
// Shadow state of the race detector: for every byte range ever accessed, the last write and
// the reads since it, as an interval map (disjoint cells keyed by their first byte; equal
// neighbours merged), never per byte. Reads keep at most one entry per queue, the latest:
// operations of one queue are totally ordered, so if a queue's latest read is ordered
// before a write, all its earlier reads are too. A value type; not thread-safe (the race
// detector runs under the engine lock).

#include <cstdint>
#include <map>
#include <vector>

#include "core/op_observer.h"

namespace mockdev::core {

// One access: which operation, on which queue (the detector's dense queue index).
struct ShadowAccess {
  OpId op = 0;  // 0 = none
  std::uint32_t queue = 0;
  bool operator==(const ShadowAccess&) const = default;
};

struct ShadowCell {
  std::uint64_t end = 0;            // the cell is [key, end)
  ShadowAccess write;               // the last write (op 0: never written)
  std::vector<ShadowAccess> reads;  // since that write, sorted by queue, one per queue
  bool same_state(const ShadowCell& other) const {
    return write == other.write && reads == other.reads;
  }
};

class ShadowMemory {
 public:
  // Calls visit(begin, end, cell) for every cell overlapping [begin, end), with the
  // overlapping part; bytes never accessed are skipped.
  template <class Visit>
  void visit(std::uint64_t begin, std::uint64_t end, Visit&& visit) const {
    auto it = cells_.upper_bound(begin);
    if (it != cells_.begin()) {
      auto prev = std::prev(it);
      if (prev->second.end > begin) it = prev;
    }
    for (; it != cells_.end() && it->first < end; ++it) {
      visit(std::max(begin, it->first), std::min(end, it->second.end), it->second);
    }
  }

  // [begin, end) was written by `access`: one cell, no reads.
  void record_write(std::uint64_t begin, std::uint64_t end, ShadowAccess access);
  // [begin, end) was read by `access`: it becomes each cell's read of its queue.
  void record_read(std::uint64_t begin, std::uint64_t end, ShadowAccess access);

  std::size_t cell_count() const { return cells_.size(); }
  void clear() { cells_.clear(); }

 private:
  using Cells = std::map<std::uint64_t, ShadowCell>;
  // Makes a cell boundary at `at` (splitting the cell that straddles it).
  void split(std::uint64_t at);
  // Merges the cell at `it` with equal neighbours on both sides.
  void merge_around(Cells::iterator it);

  Cells cells_;
};

}  // namespace mockdev::core
