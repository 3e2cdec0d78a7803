#pragma once
// Opaque handles that cross the backend SPI (backend.h) for the capabilities beyond device
// selection: device memory, streams, events, graphs.
//
// A handle is a backend's own pointer or id in an integer, typed so that a stream cannot be
// passed where an event is expected. Value 0 is "none" for every kind. The backend that
// created a handle owns what it names; the core only stores and returns it. Values only.

#include <compare>
#include <cstdint>

namespace accel::detail {

template <class Tag>
struct Handle {
  std::uintptr_t value = 0;
  explicit operator bool() const noexcept { return value != 0; }
  friend constexpr auto operator<=>(const Handle&, const Handle&) = default;
};

using DevicePointer = Handle<struct DevicePointerTag>;  // CUDA: CUdeviceptr
using StreamHandle = Handle<struct StreamTag>;          // CUDA: CUstream
using EventHandle = Handle<struct EventTag>;            // CUDA: CUevent
using GraphHandle = Handle<struct GraphTag>;            // CUDA: CUgraphExec
using CapturedGraphHandle = Handle<struct CapturedGraphTag>;  // CUDA: CUgraph
using PhysicalMemoryHandle = Handle<struct PhysicalMemoryTag>;  // CUDA: CUmemGenericAllocationHandle

}  // namespace accel::detail
