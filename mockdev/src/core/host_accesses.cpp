#include "core/host_accesses.h"

#include <map>

#include "core/engine.h"

namespace mockdev::core {
namespace {

struct Declared {
  std::vector<AccessRange> reads;
  std::vector<AccessRange> writes;
};
struct HostAccessState {
  std::uint64_t generation = 0;
  std::map<const void*, Declared> by_user_data;  // looked up only, never iterated
};

HostAccessState& state() MOCKDEV_REQUIRES(g_engine_mutex) {
  static HostAccessState* const s = new HostAccessState();  // Note [Leaky state]
  if (s->generation != engine().generation) *s = HostAccessState{engine().generation, {}};
  return *s;
}

}  // namespace

void declare_accesses(const void* user_data, std::vector<AccessRange> reads,
                      std::vector<AccessRange> writes) {
  HostAccessState& s = state();
  if (reads.empty() && writes.empty()) {
    s.by_user_data.erase(user_data);
    return;
  }
  s.by_user_data[user_data] = Declared{std::move(reads), std::move(writes)};
}

void declared_accesses(const void* user_data, std::vector<AccessRange>& reads,
                       std::vector<AccessRange>& writes) {
  HostAccessState& s = state();
  if (s.by_user_data.empty()) return;
  auto it = s.by_user_data.find(user_data);
  if (it == s.by_user_data.end()) return;
  reads.insert(reads.end(), it->second.reads.begin(), it->second.reads.end());
  writes.insert(writes.end(), it->second.writes.begin(), it->second.writes.end());
}

}  // namespace mockdev::core
