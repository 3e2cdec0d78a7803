#pragma once
// The allocator settings a core property program runs under, printed as ACCEL_ALLOC_CONF
// text, and their generator.

#include <rapidcheck.h>

#include <cstddef>
#include <ostream>
#include <string>

namespace accel::test::alloc_model {

struct Settings {
  bool expandable = false;
  std::size_t max_split_size_mb = 0;  // 0 = unlimited
  std::size_t roundup_divisions = 0;  // 0 = none; else one count for every size
  std::string text() const;           // "expandable_segments:False,max_split_size_mb:40,..."
};

// How rapidcheck prints a counterexample's settings.
void showValue(const Settings& settings, std::ostream& os);

// Settings: `expandable` fixed by the caller; max_split_size and roundup drawn when
// `with_limits`.
rc::Gen<Settings> gen_settings(bool expandable, bool with_limits);

}  // namespace accel::test::alloc_model
