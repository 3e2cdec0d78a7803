#pragma once
// What the public memory API (memory.cpp, data_ptr.cpp, host_memory.cpp) shares: reaching
// the installed runtime's caching allocator with PyTorch's initialisation rules
// (accel/memory.h, as torch.accelerator.memory's), device resolution for memory calls,
// and call sites for the memory history.

#include "accel/call_site.h"
#include <string_view>

#include "accel/memory.h"
#include "core/caching_allocator.h"
#include "core/runtime.h"

namespace accel::detail {

// The installed state, initialised (ForkError in a bad fork; init errors as init() throws).
RuntimeState& initialized_memory_state();
// The allocator of an initialised state.
inline alloc::CachingAllocator& allocator_of(RuntimeState& state) noexcept {
  return *state.allocator();
}

// The allocator when the state is initialised, else nullptr; never initialises. ForkError
// in a bad fork (every memory call touches the parent's memory).
alloc::CachingAllocator* allocator_if_initialized(RuntimeState& state);

// `device` resolved for a memory call (the current device when none, which initialises),
// range- and ordinal-checked against the initialised device count. Requires an
// initialised state.
int memory_device_index(RuntimeState& state, const DeviceArg& device, std::string_view operation);

// The stream's device, checked (range, initialisation, ordinal) and its id checked against
// the device's stream pools (kValue "stream: no stream with id ... exists on device ..."
// for a stream that no pool of this runtime made).
RuntimeState& checked_stream(const Stream& stream);

HostFrame frame_of(const CallSite& site);

}  // namespace accel::detail
