#pragma once
// FakeDeviceProvider: a DeviceMemoryProvider with no driver behind it, for the allocator's
// unit and property tests.
//
// Device memory is a bump pointer over a fake address space with a capacity: allocate()
// hands out fresh, 512-aligned addresses (never reused, so a stale address can never
// alias a new segment) and answers kOutOfMemory when the bytes in use would exceed the
// capacity. Streams carry "work": enqueue_work(s) queues one unit on stream s,
// complete_work(s) finishes everything queued so far. An event recorded on s completes when
// the work queued on s at record time has completed; synchronize_event finishes that work
// (the host waited for it). The virtual-memory calls model cuMemAddressReserve / Create /
// Map / Unmap: physical handles count against the same capacity; map and unmap check
// granularity alignment and that ranges are reserved and (un)mapped as claimed.
//
// Every call is counted (counts()) and, when call logging is on, appended to calls() by
// name ("allocate", "deallocate", "record_event", ...) so tests can assert the order of
// the retry chain. fail_call(name, kind, nth) makes the nth next call of that name fail.
// A call naming an unknown handle or a bad size answers kValue and counts as misuse()
// (always an allocator bug). queued()/completed() expose each stream's work items, so the
// allocator properties' model knows exactly which events have completed.
// Not thread-safe on its own: the allocator calls it under its lock; tests read it
// between allocator calls.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "allocator/memory_provider.h"

namespace accel::detail::alloc::testing {

inline constexpr std::size_t kMiB = 1024 * 1024;
inline constexpr std::size_t kGiB = 1024 * kMiB;

class FakeDeviceProvider final : public DeviceMemoryProvider {
 public:
  struct Options {
    int device = 0;
    std::size_t capacity_bytes = 1 * kGiB;  // what allocate/create_physical may take
    std::size_t total_bytes = 0;            // memory_info().total; 0 = capacity_bytes
    bool virtual_memory = true;             // false: the VMM calls answer kUnsupported
    std::size_t granularity = 2 * kMiB;
    bool log_calls = false;
  };
  FakeDeviceProvider();
  explicit FakeDeviceProvider(Options options);
  ~FakeDeviceProvider() override;

  // ---- DeviceMemoryProvider ----
  int device() const noexcept override { return options_.device; }
  Result<MemoryInfo> memory_info() noexcept override;
  Result<DevicePointer> allocate(std::size_t bytes) noexcept override;
  Status deallocate(DevicePointer pointer) noexcept override;
  Result<EventHandle> record_event(StreamId stream) noexcept override;
  Result<bool> query_event(EventHandle event) noexcept override;
  Status synchronize_event(EventHandle event) noexcept override;
  Status destroy_event(EventHandle event) noexcept override;
  Result<std::size_t> granularity() noexcept override;
  Result<DevicePointer> reserve_address_range(std::size_t bytes) noexcept override;
  Status free_address_range(DevicePointer base, std::size_t bytes) noexcept override;
  Result<PhysicalMemoryHandle> create_physical(std::size_t bytes) noexcept override;
  Status release_physical(PhysicalMemoryHandle memory) noexcept override;
  Status map(DevicePointer address, std::size_t bytes,
             PhysicalMemoryHandle memory) noexcept override;
  Status unmap(DevicePointer address, std::size_t bytes) noexcept override;

  // ---- streams and events ----
  void enqueue_work(StreamId stream);
  void complete_work(StreamId stream);
  void complete_all_work();
  bool has_pending_work(StreamId stream) const;
  // Work items queued on `stream` so far; whether the first `count` of them have completed.
  std::uint64_t queued(StreamId stream) const;
  bool completed(StreamId stream, std::uint64_t count) const;
  // Calls that named an unknown handle or a bad size (a double free, a stale event, ...).
  std::uint64_t misuse() const noexcept { return misuse_; }
  std::size_t live_events() const { return events_.size(); }

  // ---- memory, as the driver sees it ----
  std::size_t used_bytes() const { return used_bytes_; }  // segments + physical handles
  std::size_t peak_used_bytes() const { return peak_used_bytes_; }
  std::size_t live_segments() const { return segments_.size(); }
  std::size_t mapped_bytes() const;
  std::size_t capacity_bytes() const { return options_.capacity_bytes; }
  // Shrinks or grows the capacity at run time (bytes already in use stay).
  void set_capacity(std::size_t bytes) { options_.capacity_bytes = bytes; }

  // ---- call counts, log, faults ----
  std::size_t count(const std::string& call) const;
  const std::vector<std::string>& calls() const { return calls_; }
  void clear_calls() { calls_.clear(); }
  // The `nth` next call (1 = the very next) named `call` fails with `kind`.
  void fail_call(const std::string& call, ErrorKind kind, int nth = 1);

 private:
  Status enter(const char* call) noexcept;  // counts, logs, fires a scheduled fault
  Status misused(std::string what) noexcept;  // kValue `what`, counted as misuse
  bool take(std::size_t bytes) noexcept;
  void give(std::size_t bytes) noexcept;

  struct Event {
    StreamId stream;
    std::uint64_t ticket;  // complete when completed_[stream] >= ticket
  };
  struct Range {
    std::size_t bytes;
    std::map<std::uint64_t, std::size_t> mapped;  // offset -> bytes
  };
  struct Fault {
    ErrorKind kind;
    int remaining;
  };

  Options options_;
  std::uint64_t next_address_ = 0x7f0000000000ULL;
  std::uint64_t next_va_ = 0x7e0000000000ULL;
  std::uint64_t next_handle_ = 1;
  std::size_t used_bytes_ = 0;
  std::size_t peak_used_bytes_ = 0;
  std::uint64_t misuse_ = 0;
  std::map<std::uint64_t, std::size_t> segments_;
  std::map<std::uint64_t, std::size_t> physical_;  // handle -> bytes
  std::map<std::uint64_t, Range> ranges_;          // base -> range
  std::map<std::uint64_t, Event> events_;
  std::map<StreamId, std::uint64_t> queued_;
  std::map<StreamId, std::uint64_t> completed_;
  std::map<std::string, std::size_t> counts_;
  std::map<std::string, Fault> faults_;
  std::vector<std::string> calls_;
};

}  // namespace accel::detail::alloc::testing
