#include "allocator_settings.h"

namespace accel::test::alloc_model {

std::string Settings::text() const {
  std::string t = std::string("expandable_segments:") + (expandable ? "True" : "False");
  if (max_split_size_mb != 0) t += ",max_split_size_mb:" + std::to_string(max_split_size_mb);
  if (roundup_divisions != 0) {
    t += ",roundup_power2_divisions:" + std::to_string(roundup_divisions);
  }
  return t;
}

void showValue(const Settings& settings, std::ostream& os) { os << settings.text(); }

rc::Gen<Settings> gen_settings(bool expandable, bool with_limits) {
  return rc::gen::exec([expandable, with_limits] {
    Settings s;
    s.expandable = expandable;
    if (with_limits) {
      s.max_split_size_mb = *rc::gen::element<std::size_t>(0, 24, 40);
      s.roundup_divisions = *rc::gen::element<std::size_t>(0, 2, 4, 8);
    }
    return s;
  });
}

}  // namespace accel::test::alloc_model
