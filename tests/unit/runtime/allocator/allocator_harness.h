#pragma once
// A DeviceCachingAllocator over a FakeDeviceProvider, with the shorthands the allocator's
// tests use: alloc/free on a stream, one flat statistic by name, the allocator invariants'
// violations.
#include <cstdint>
#include <memory>
#include <string>

#include "accel_common/units.h"
#include "allocator/device_allocator_impl.h"
#include "allocator/device_caching_allocator.h"
#include "fake_device_provider.h"
#include "invariants.h"

namespace accel::detail::alloc::testing {

struct AllocatorHarness {
  explicit AllocatorHarness(FakeDeviceProvider::Options options = {},
                            AllocatorConfig config = {}, std::string device_type = "cuda") {
    auto provider = std::make_unique<FakeDeviceProvider>(options);
    fake = provider.get();
    allocator = std::make_unique<DeviceCachingAllocator>(std::move(provider), config,
                                                         std::move(device_type));
    expandable = config.expandable_segments;
  }

  std::uint64_t alloc(std::size_t bytes, StreamId stream = 0) {
    return allocator->allocate(bytes, stream, site);
  }
  void free(std::uint64_t address) { allocator->free(address, site); }
  std::int64_t stat(const std::string& key) const { return flatten(allocator->stats()).at(key); }
  std::string violations(bool no_accumulated_reset = true) const {
    return join(check_invariants(*allocator, {no_accumulated_reset, fake, expandable}));
  }

  FakeDeviceProvider* fake = nullptr;
  bool expandable = false;
  std::unique_ptr<DeviceCachingAllocator> allocator;
  HostFrame site{"test.cpp", 1, "test"};
};

}  // namespace accel::detail::alloc::testing

namespace accel::detail::alloc::testing {
inline std::string hex_string(std::uint64_t value) { return common::hex_address(value); }
}  // namespace accel::detail::alloc::testing
