#pragma once
// A vector clock over queues (Note [Happens-before] in core/op_observer.h): entry q is the
// id of the latest operation of queue q known to have completed before the clock's owner.
// Operation ids grow in enqueue order, so "A (id a, queue p) happens before the owner"
// is `clock.get(p) >= a`. Sized by the number of queues, grown on demand; missing entries
// are 0 (nothing known). A value type; not thread-safe.

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mockdev::core {

class VectorClock {
 public:
  std::uint64_t get(std::uint32_t queue) const {
    return queue < entries_.size() ? entries_[queue] : 0;
  }
  void raise(std::uint32_t queue, std::uint64_t op) {
    if (queue >= entries_.size()) entries_.resize(queue + 1, 0);
    entries_[queue] = std::max(entries_[queue], op);
  }
  // Pointwise maximum; returns whether an entry other than `own` grew.
  bool join(const VectorClock& other, std::uint32_t own) {
    if (other.entries_.size() > entries_.size()) entries_.resize(other.entries_.size(), 0);
    bool grew = false;
    for (std::uint32_t q = 0; q < other.entries_.size(); ++q) {
      if (other.entries_[q] > entries_[q]) {
        entries_[q] = other.entries_[q];
        grew = grew || q != own;
      }
    }
    return grew;
  }

 private:
  std::vector<std::uint64_t> entries_;
};

}  // namespace mockdev::core
