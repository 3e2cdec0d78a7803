// Shared helpers of the public memory API (memory_common.h).
#include "api/memory_common.h"

#include "api/current_stream.h"
#include "core/device_resolution.h"

namespace accel::detail {

RuntimeState& initialized_memory_state() {
  RuntimeState& state = current_state();
  fail_if_bad_fork(state);
  ensure_initialized(state);
  return state;
}

alloc::CachingAllocator* allocator_if_initialized(RuntimeState& state) {
  fail_if_bad_fork(state);
  if (!state.lazy().initialized() && !is_initializing_thread(state)) return nullptr;
  return state.allocator();
}

int memory_device_index(RuntimeState& state, const DeviceArg& device, std::string_view operation) {
  const int index = resolve_device_index(device, /*optional=*/true);
  check_device_index_range(index);
  check_device_ordinal(state, index, operation);
  return index;
}

RuntimeState& checked_stream(const Stream& stream) {
  RuntimeState& state = prepare_stream_call(stream.device_index());
  (void)state.stream_pools().handle(initialized_backend(state), stream.device_index(),
                                    stream.id());
  return state;
}

HostFrame frame_of(const CallSite& site) {
  return alloc::host_frame(site.file, site.line, site.function);
}

}  // namespace accel::detail
