#pragma once
// A HostMemoryProvider with no driver behind it, for the host allocator's unit and property
// tests: fake addresses (never reused, each aligned to its size), a capacity, scripted event
// completion, one-shot failures per call, a virtual microsecond clock that each provider
// allocate / deallocate advances by a set cost, and a log of every call.
//
// The test keeps a raw pointer to the fake after handing the unique_ptr to the allocator
// (the allocator owns it and outlives every use in a test). Not thread-safe on its own: the
// allocator calls it under its lock, and tests read it only while no allocator call runs.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accel_common/units.h"
#include "allocator/memory_provider.h"

namespace accel::test {

class FakeHostProvider final : public detail::alloc::HostMemoryProvider {
 public:
  struct Event {
    int device = 0;
    detail::alloc::StreamId stream = 0;
    bool completed = false;
    bool destroyed = false;
  };

  explicit FakeHostProvider(std::size_t capacity_bytes = std::size_t{1} << 40)
      : capacity_bytes_(capacity_bytes) {}

  detail::Result<void*> allocate(std::size_t bytes) noexcept override;
  detail::Status deallocate(void* pointer) noexcept override;
  detail::Result<detail::EventHandle> record_event(int device,
                                                   detail::alloc::StreamId stream) noexcept override;
  detail::Result<bool> query_event(int device, detail::EventHandle event) noexcept override;
  detail::Status synchronize_event(int device, detail::EventHandle event) noexcept override;
  detail::Status destroy_event(int device, detail::EventHandle event) noexcept override;

  // ---- scripting ----
  // Completes every event recorded so far on (device, stream); returns how many.
  int complete_stream(int device, detail::alloc::StreamId stream);
  void complete_event(std::uint64_t event);
  void complete_all();
  // The next call of that kind fails once with `status`.
  void fail_next_allocate(detail::Status status) { fail_allocate_ = std::move(status); }
  void fail_next_deallocate(detail::Status status) { fail_deallocate_ = std::move(status); }
  // The record_event call after `succeed_first` more successful ones fails once.
  void fail_next_record(detail::Status status, int succeed_first = 0) {
    fail_record_ = std::move(status);
    record_successes_before_failure_ = succeed_first;
  }
  void fail_next_query(detail::Status status) { fail_query_ = std::move(status); }
  void set_costs_us(std::int64_t allocate_us, std::int64_t deallocate_us) {
    allocate_cost_us_ = allocate_us;
    deallocate_cost_us_ = deallocate_us;
  }
  void set_capacity(std::size_t bytes) { capacity_bytes_ = bytes; }

  // ---- observation ----
  std::int64_t now_us() const { return now_us_; }
  const std::map<std::uintptr_t, std::size_t>& live() const { return live_; }
  std::size_t live_bytes() const { return live_bytes_; }
  const std::map<std::uint64_t, Event>& events() const { return events_; }
  std::size_t undestroyed_events() const;
  // "allocate(65536)=0x...", "deallocate(0x...)", "record_event(0,3)=1", "query_event(1)",
  // "destroy_event(1)", in call order.
  const std::vector<std::string>& calls() const { return calls_; }
  void clear_calls() { calls_.clear(); }

 private:
  std::size_t capacity_bytes_;
  std::size_t live_bytes_ = 0;
  std::uintptr_t next_address_ = 0x7f0000000000;
  std::map<std::uintptr_t, std::size_t> live_;
  std::map<std::uint64_t, Event> events_;
  std::uint64_t next_event_ = 1;
  std::int64_t now_us_ = 1000;
  std::int64_t allocate_cost_us_ = 0;
  std::int64_t deallocate_cost_us_ = 0;
  std::optional<detail::Status> fail_allocate_, fail_deallocate_, fail_record_, fail_query_;
  int record_successes_before_failure_ = 0;
  std::vector<std::string> calls_;
};

// "0x7f0000000000", as the allocator's messages spell addresses.
using common::hex_address;

}  // namespace accel::test
