#pragma once
// Real work queued through the runtime alone (accel/copy.h: copy_async, fill_async and the
// blocking forms), for the conformance tests that watch streams, events and copies on every
// backend: device memory from the caching allocator, read back with the runtime's blocking
// copy. No driver entry point is called, so the same test body runs on CUDA and Level Zero.
// Header-only; for use inside run_isolated bodies.

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accel/accel.h"
#include "backend_profile.h"
#include "mockdev/control.h"

namespace accel::test {

using Bytes = std::vector<unsigned char>;

// The child environment of an ordering test on the simulated hardware: nothing completes until
// something waits for it, so a missing dependency shows as old bytes every time.
inline const std::vector<std::pair<std::string, std::optional<std::string>>> kAdversarial = {
    {"MOCKDEV_SCHEDULE", "adversarial"}};

// Inside a run_isolated body, before the runtime initialises: the simulated hardware takes
// MOCKDEV_SCHEDULE from the child's environment (the engine of the test process was set up
// before the child changed it). Nothing on a real driver.
inline void schedule_from_environment(const BackendProfile& profile) {
  if (profile.on_mock) mockdev::control::reset_from_environment();
}

// Device memory from the caching allocator on `stream`'s device; given back, and the cache
// emptied, at scope exit (the suite's live-object promise: nothing left behind).
struct DeviceMemory {
  void* ptr;
  DeviceMemory(std::size_t bytes, const Stream& stream) : ptr(raw_alloc(bytes, stream)) {}
  ~DeviceMemory() {
    raw_delete(ptr);
    empty_cache();
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  unsigned char* bytes() const { return static_cast<unsigned char*>(ptr); }
};

// What the device memory holds, read back with the blocking copy on `stream` (which waits
// for that stream's earlier work, and for nothing else).
inline Bytes read_back(const void* device, std::size_t bytes, const Stream& stream) {
  Bytes out(bytes, 0xEE);
  copy(out.data(), device, bytes, stream);
  return out;
}

}  // namespace accel::test
