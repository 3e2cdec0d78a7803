// Adapter: the simulated driver's CUDA_VISIBLE_DEVICES rules (internal header; one
// include and one call).
#include "cuda/visible_devices.h"
#include "visible_devices_adapters.h"

namespace accel::fuzz {

std::vector<int> mockdev_visible_devices(std::string_view value,
                                         const std::vector<std::string>& uuids) {
  std::vector<mockdev::DeviceSpec> devices(uuids.size());
  for (std::size_t i = 0; i < uuids.size(); ++i) devices[i].uuid = uuids[i];
  return mockdev::cuda::resolve_visible_devices(value, devices);
}

}  // namespace accel::fuzz
