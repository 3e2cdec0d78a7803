#pragma once
// The memory providers of the real runtime: DeviceMemoryProvider and HostMemoryProvider
// (memory_provider.h) over the Backend SPI of one RuntimeState. The allocators are written
// against the provider interfaces so that unit tests can drive them with fakes; these are
// the two implementations every backend shares.
//
// Streams: the allocator names a stream by its Stream::id(); the provider finds the
// backend handle in the state's stream pools (core/stream_pool.h: 0 = the default stream,
// never created). Events: one backend event per record_event() (timing disabled, as
// PyTorch's allocator creates them), destroyed by destroy_event().
//
// The Backend calls may switch the thread's context for their duration; on failure the
// thread's cached current device is forgotten (Backend::memory_info's contract), so the
// next device query asks the backend again.
//
// Thread safety: as memory_provider.h (called under the owning allocator's lock). The
// Backend and StreamPools outlive the providers (both belong to the RuntimeState that
// owns the allocators).

#include <memory>

#include "allocator/memory_provider.h"
#include "spi/backend.h"
#include "core/stream_pool.h"

namespace accel::detail::alloc {

std::unique_ptr<DeviceMemoryProvider> make_backend_device_provider(Backend& backend,
                                                                   StreamPools& pools, int device);
std::unique_ptr<HostMemoryProvider> make_backend_host_provider(Backend& backend,
                                                               StreamPools& pools);

}  // namespace accel::detail::alloc
