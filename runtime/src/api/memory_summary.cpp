// accel::memory_summary(device): the installed allocator's statistics of one device as
// PyTorch's summary table. The table itself is the allocator's pure formatter
// (src/allocator/memory_summary.cpp); this file only resolves the device as the other
// memory calls do.
#include "accel/memory.h"
#include "api/memory_common.h"

namespace accel {

std::string memory_summary(DeviceArg device, bool abbreviated) {
  detail::RuntimeState& state = detail::initialized_memory_state();
  const int index = detail::memory_device_index(state, device, "memory_summary");
  return format_memory_summary(memory_stats(index), index, abbreviated);
}

}  // namespace accel
