#pragma once
// Edit distance for "closest:" suggestions: every reader that refuses an unknown name (a
// machine-file key, an entry point, a device attribute, a scenario step, an allocator
// setting) names the known ones nearest to it, measured here. Pure; thread-safe.

#include <cstddef>
#include <string_view>

namespace accel::common {

// Levenshtein distance between `a` and `b`, comparing letters without regard to case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The largest distance at which a known name counts as "close" to a `name` typed by a user:
// two edits, or a third of the name's length when that is more.
inline std::size_t close_distance_limit(std::string_view name) {
  return name.size() / 3 > 2 ? name.size() / 3 : 2;
}

}  // namespace accel::common
