#pragma once
// The CUDA backend's memory groups (cuda_memory.cpp): raw device memory, virtual memory for
// expandable segments, and pinned host memory, each SPI method (spi/backend.h) as a
// function over DeviceCalls, as cuda_streams.h does for streams. CudaBackend forwards its
// overrides here.
//
// Note [Allocation during capture]
// The caching allocator takes new segments while a stream is being captured into a graph
// (PyTorch's graph private pools). cuMemAlloc and cuMemFree are "potentially unsafe"
// calls: in global capture mode the driver refuses them (and invalidates the capture). As
// PyTorch does, the thread's capture mode is exchanged to relaxed around them and put back
// afterwards, so they are legal during capture and the capture stays valid; the new
// address is baked into the graph. cuMemCreate/cuMemMap (expandable segments) get the
// same treatment.

#include <cstddef>

#include "backends/cuda/cuda_streams.h"
#include "spi/backend.h"

namespace accel::detail::cuda {

// memory
Result<DevicePointer> allocate(DeviceCalls& calls, int index, std::size_t bytes) noexcept;
Status deallocate(DeviceCalls& calls, int index, DevicePointer pointer) noexcept;

// virtual memory
Result<std::size_t> memory_granularity(DeviceCalls& calls, int index) noexcept;
Result<DevicePointer> reserve_address_range(DeviceCalls& calls, int index,
                                            std::size_t bytes) noexcept;
Status free_address_range(DeviceCalls& calls, int index, DevicePointer base,
                          std::size_t bytes) noexcept;
Result<PhysicalMemoryHandle> create_physical_memory(DeviceCalls& calls, int index,
                                                    std::size_t bytes) noexcept;
Status release_physical_memory(DeviceCalls& calls, int index,
                               PhysicalMemoryHandle memory) noexcept;
Status map_memory(DeviceCalls& calls, int index, DevicePointer address, std::size_t bytes,
                  PhysicalMemoryHandle memory) noexcept;
Status unmap_memory(DeviceCalls& calls, int index, DevicePointer address,
                    std::size_t bytes) noexcept;

// pinned host memory: under device 0's primary context (a context must be current for
// cuMemHostAlloc; PORTABLE makes the memory pinned for every context).
Result<void*> allocate_host(DeviceCalls& calls, std::size_t bytes) noexcept;
Status free_host(DeviceCalls& calls, void* pointer) noexcept;

}  // namespace accel::detail::cuda
