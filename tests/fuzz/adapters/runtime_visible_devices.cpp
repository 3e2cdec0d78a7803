// Adapter: the runtime's CUDA_VISIBLE_DEVICES parser (internal header; one include, and
// the composition cuda_counting.cpp's nvml_visible_count() uses).
#include "backends/cuda/cuda_visibility.h"
#include "visible_devices_adapters.h"

namespace accel::fuzz {

RuntimeAnswer runtime_visible_devices(std::string_view value,
                                      const std::vector<std::string>& uuids) {
  using namespace accel::detail::cuda;
  RuntimeAnswer answer;
  const VisibleDevices visible = parse_visible_devices(value);
  if (visible.is_uuid_list) {
    if (!visible.uuids.empty() && visible.uuids.front().rfind("MIG-", 0) == 0) return answer;
    answer.ordinals = transform_uuid_to_ordinals(visible.uuids, uuids);
    return answer;
  }
  const int count =
      visible.ordinals.empty() ? 0
                               : truncate_to_raw_count(visible.ordinals,
                                                       static_cast<int>(uuids.size()));
  answer.ordinals = std::vector<int>();
  for (int i = 0; i < count; ++i) answer.ordinals->push_back(i);
  answer.count_only = true;
  return answer;
}

}  // namespace accel::fuzz
