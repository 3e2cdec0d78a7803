#pragma once
// The device `accel replay` replays on: a DeviceMemoryProvider that models what the
// allocator can observe of a device's memory -- capacity, the driver's allocation
// granularity (every segment and physical allocation rounded up to it, 2 MiB by default,
// as mockdev and the real driver do) and OOM when the rounded bytes do not fit -- with fake
// addresses and no bytes touched.
//
// Why not the in-process mock driver: a replay is millions of allocator calls and a
// --find-min-capacity or --compare run repeats it dozens of times; the mock driver's
// memory is real host memory behind every segment (a 70 GiB trace would need 70 GiB) and
// every call crosses its engine lock. The capacity/granularity rule is the only part of
// the device the allocator's decisions depend on, so that is what is modelled, exactly
// (docs/REPLAY.md). Events: a replay has no kernels, so every event is complete when
// recorded. Virtual memory (expandable segments): cuMemCreate-style physical allocations
// count against capacity when created, as in mockdev; reserved address ranges do not.
// Single-threaded use (the allocator's lock already serialises calls).

#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "allocator/memory_provider.h"

namespace accel::replay {

inline constexpr std::uint64_t kDefaultGranularity = std::uint64_t{2} << 20;  // 2 MiB

class SimulatedDevice final : public detail::alloc::DeviceMemoryProvider {
 public:
  // `granularity` must be a power of two (checked by the caller).
  SimulatedDevice(std::uint64_t capacity, std::uint64_t granularity = kDefaultGranularity);

  int device() const noexcept override { return 0; }
  detail::Result<MemoryInfo> memory_info() noexcept override;
  detail::Result<detail::DevicePointer> allocate(std::size_t bytes) noexcept override;
  detail::Status deallocate(detail::DevicePointer pointer) noexcept override;
  detail::Result<detail::EventHandle> record_event(detail::alloc::StreamId stream) noexcept override;
  detail::Result<bool> query_event(detail::EventHandle event) noexcept override;
  detail::Status synchronize_event(detail::EventHandle event) noexcept override;
  detail::Status destroy_event(detail::EventHandle event) noexcept override;
  detail::Result<std::size_t> granularity() noexcept override;
  detail::Result<detail::DevicePointer> reserve_address_range(std::size_t bytes) noexcept override;
  detail::Status free_address_range(detail::DevicePointer base, std::size_t bytes) noexcept override;
  detail::Result<detail::PhysicalMemoryHandle> create_physical(std::size_t bytes) noexcept override;
  detail::Status release_physical(detail::PhysicalMemoryHandle memory) noexcept override;
  detail::Status map(detail::DevicePointer address, std::size_t bytes,
                     detail::PhysicalMemoryHandle memory) noexcept override;
  detail::Status unmap(detail::DevicePointer address, std::size_t bytes) noexcept override;

  std::uint64_t used_bytes() const noexcept { return used_; }
  std::uint64_t peak_used_bytes() const noexcept { return peak_used_; }

 private:
  std::uint64_t rounded(std::uint64_t bytes) const noexcept;
  // Room for `bytes` more (already rounded)?
  bool fits(std::uint64_t bytes) const noexcept { return bytes <= capacity_ - used_; }
  void take(std::uint64_t bytes) noexcept;
  std::uint64_t fresh_range(std::uint64_t bytes) noexcept;

  std::uint64_t capacity_;
  std::uint64_t granularity_;
  std::uint64_t used_ = 0;
  std::uint64_t peak_used_ = 0;
  std::uint64_t next_address_;
  std::uint64_t next_handle_ = 1;
  std::unordered_map<std::uint64_t, std::uint64_t> allocations_;  // address -> bytes
  std::unordered_map<std::uint64_t, std::uint64_t> physical_;     // handle -> bytes
};

}  // namespace accel::replay
