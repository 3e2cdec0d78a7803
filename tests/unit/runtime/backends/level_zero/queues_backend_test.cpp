// The Level Zero backend's memory, streams, events and peers, through the backend class,
// on the mock Level Zero driver loaded by the real loader (ZE_ENABLE_ALT_DRIVERS) over the
// 2xmax1550 machine (FLAT: 4 devices, one per tile). Each test is its own process (ctest),
// so each installs its machine before the loader initialises.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_streams.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"
#include "mockdev/memory.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"

namespace accel::detail::level_zero {
namespace {

using mockdev::MachineSpec;
using mockdev::StreamSettings;

// A failed result with exactly this kind and message (the gtest message shows both sides).
template <class T>
::testing::AssertionResult fails_with(const Result<T>& result, ErrorKind kind,
                                      const std::string& message) {
  if (result.ok()) return ::testing::AssertionFailure() << "succeeded; expected: " << message;
  if (result.status().kind() == kind && result.status().message() == message) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "failed with kind " << static_cast<int>(result.status().kind())
                                       << " and \"" << result.status().message()
                                       << "\"; expected kind " << static_cast<int>(kind)
                                       << " and \"" << message << "\"";
}

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

class QueuesTest : public ::testing::Test {
 protected:
  // Every test also checks that the mock saw no misuse: no unordered conflicting accesses
  // (its race detector) and no "mockdev: level zero:" report on stderr (event reuse
  // while a signal is pending, deadlocked waits).
  void SetUp() override { ::testing::internal::CaptureStderr(); }
  void TearDown() override {
    // Events are destroyed by their owner (the SPI's rule): here, the fixture.
    for (EventHandle event : events_) (void)backend().destroy_event(event_devices_[event.value], event);
    const std::string errors = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(errors.find("mockdev: level zero:"), std::string::npos) << errors;
    EXPECT_EQ(mockdev::control::race_count(), 0u) << errors;
  }

  // Installs the machine (with `schedule`) and brings the backend up.
  void start(StreamSettings::Schedule schedule = StreamSettings::Schedule::kEager) {
    MachineSpec machine = mockdev::load_machine("2xmax1550");
    machine.streams.schedule = schedule;
    start_on(machine, 4);
  }
  void start_on(const MachineSpec& machine, int devices) {
    mockdev::control::reset(machine);
    backend_ = create_level_zero_backend();
    Status status = backend_->initialize();
    ASSERT_TRUE(status.ok()) << status.message();
    ASSERT_EQ(backend_->device_count(), devices);
  }

  LevelZeroBackend& backend() { return static_cast<LevelZeroBackend&>(*backend_); }
  // The backend's create_event / destroy_event; what a test leaves, TearDown destroys.
  Result<EventHandle> create_event(int index, EventOptions options) {
    Result<EventHandle> event = backend().create_event(index, options);
    if (event.ok()) {
      events_.push_back(*event);
      event_devices_[event->value] = index;
    }
    return event;
  }
  Status destroy_event(int index, EventHandle event) {
    std::erase(events_, event);
    return backend().destroy_event(index, event);
  }
  QueueState& queues() { return *backend().queues(); }
  const ZeApi& ze() { return backend().api(); }

  // Appends a fill of `bytes` bytes of `value` at `pointer` on `stream`, in stream order.
  void fill(int index, StreamHandle stream, void* pointer, std::uint8_t value, std::size_t bytes) {
    Status status = queues().append(
        index, stream, "test fill",
        [&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t count,
            ze_event_handle_t* waits) {
          return ze().zeCommandListAppendMemoryFill(list, pointer, &value, 1, bytes, signal,
                                                    count, waits);
        });
    ASSERT_TRUE(status.ok()) << status.message();
  }
  void copy(int index, StreamHandle stream, void* to, const void* from, std::size_t bytes) {
    Status status = queues().append(
        index, stream, "test copy",
        [&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t count,
            ze_event_handle_t* waits) {
          return ze().zeCommandListAppendMemoryCopy(list, to, from, bytes, signal, count, waits);
        });
    ASSERT_TRUE(status.ok()) << status.message();
  }
  void* device_memory(int index, std::size_t bytes) {
    Result<DevicePointer> pointer = backend().allocate(index, bytes);
    EXPECT_TRUE(pointer.ok()) << pointer.status().message();
    return pointer.ok() ? reinterpret_cast<void*>(pointer->value) : nullptr;
  }
  std::uint8_t* host_memory(std::size_t bytes) {
    Result<void*> pointer = backend().allocate_host(bytes);
    EXPECT_TRUE(pointer.ok()) << pointer.status().message();
    return pointer.ok() ? static_cast<std::uint8_t*>(*pointer) : nullptr;
  }
  StreamHandle stream(int index, int priority = 0) {
    Result<StreamHandle> made = backend().create_stream(index, priority);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? *made : StreamHandle{};
  }

  std::unique_ptr<Backend> backend_;
  std::vector<EventHandle> events_;               // created by create_event, not destroyed
  std::map<std::uintptr_t, int> event_devices_;  // their devices
};

// ---- memory ------------------------------------------------------------------------------

TEST_F(QueuesTest, AllocateAndFreeAreSeenByTheMockAccounting) {
  start();
  const std::uint64_t before = mockdev::control::memory_usage(0).allocation_bytes;
  Result<DevicePointer> pointer = backend().allocate(0, 3 * kMiB);
  ASSERT_TRUE(pointer.ok()) << pointer.status().message();
  EXPECT_EQ(pointer->value % 512, 0u);
  mockdev::control::DeviceMemoryUsage usage = mockdev::control::memory_usage(0);
  bool found = false;
  for (const auto& allocation : usage.allocations) {
    if (allocation.address == pointer->value) {
      found = true;
      EXPECT_EQ(allocation.requested_bytes, 3 * kMiB);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_GE(usage.allocation_bytes, before + 3 * kMiB);
  ASSERT_TRUE(backend().deallocate(0, *pointer).ok());
  EXPECT_EQ(mockdev::control::memory_usage(0).allocation_bytes, before);
}

// Above maxMemAllocSize (one tile's 64 GiB) the driver says UNSUPPORTED_SIZE; the
// allocator must see "no room" (kOutOfMemory) all the same, with the driver's text.
TEST_F(QueuesTest, AllocationAboveTheCapIsOutOfMemoryWithTheDriversText) {
  start();
  Result<DevicePointer> pointer = backend().allocate(0, 100 * kGiB);
  EXPECT_TRUE(fails_with(pointer, ErrorKind::kOutOfMemory,
            "allocate: zeMemAllocDevice: Level Zero error ZE_RESULT_ERROR_UNSUPPORTED_SIZE "
            "(0x78000009) (device=0)"));
}

// A full tile says OUT_OF_DEVICE_MEMORY.
TEST_F(QueuesTest, AllocationOnAFullTileIsOutOfMemory) {
  start();
  Result<DevicePointer> first = backend().allocate(3, 40 * kGiB);
  ASSERT_TRUE(first.ok()) << first.status().message();
  Result<DevicePointer> second = backend().allocate(3, 40 * kGiB);
  EXPECT_TRUE(fails_with(second, ErrorKind::kOutOfMemory,
            "allocate: zeMemAllocDevice: Level Zero error ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY "
            "(0x70000003) (device=3)"));
  // The other tile of the card still has room.
  Result<DevicePointer> other = backend().allocate(2, 40 * kGiB);
  ASSERT_TRUE(other.ok()) << other.status().message();
}

TEST_F(QueuesTest, FreeOfAForeignPointerIsADriverError) {
  start();
  int local = 0;
  Status status = backend().deallocate(1, DevicePointer{reinterpret_cast<std::uintptr_t>(&local)});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), ErrorKind::kDriver);
  EXPECT_NE(status.message().find("deallocate: zeMemFree: Level Zero error "
                                  "ZE_RESULT_ERROR_INVALID_ARGUMENT"),
            std::string::npos)
      << status.message();
}

TEST_F(QueuesTest, VirtualMemoryReserveCreateMapUnmap) {
  start();
  Result<std::size_t> page = backend().memory_granularity(0);
  ASSERT_TRUE(page.ok()) << page.status().message();
  ASSERT_GT(*page, 0u);
  const std::size_t bytes = 4 * *page;
  Result<DevicePointer> base = backend().reserve_address_range(0, bytes);
  ASSERT_TRUE(base.ok()) << base.status().message();
  Result<PhysicalMemoryHandle> memory = backend().create_physical_memory(0, *page);
  ASSERT_TRUE(memory.ok()) << memory.status().message();
  const DevicePointer second{base->value + *page};
  ASSERT_TRUE(backend().map_memory(0, second, *page, *memory).ok());
  // The mapped page holds data: fill it and read it back.
  std::uint8_t* host = host_memory(64);
  fill(0, StreamHandle{}, reinterpret_cast<void*>(second.value), 0x5c, 64);
  copy(0, StreamHandle{}, host, reinterpret_cast<void*>(second.value), 64);
  ASSERT_TRUE(backend().synchronize_stream(0, StreamHandle{}).ok());
  EXPECT_EQ(host[0], 0x5c);
  EXPECT_EQ(host[63], 0x5c);
  ASSERT_TRUE(backend().unmap_memory(0, second, *page).ok());
  ASSERT_TRUE(backend().release_physical_memory(0, *memory).ok());
  ASSERT_TRUE(backend().free_address_range(0, *base, bytes).ok());
  ASSERT_TRUE(backend().free_host(host).ok());
}

TEST_F(QueuesTest, PinnedHostMemoryIsAccounted) {
  start();
  const std::uint64_t before = mockdev::control::pinned_host_bytes();
  std::uint8_t* host = host_memory(1 * kMiB);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(host) % 512, 0u);
  std::memset(host, 7, kMiB);  // host memory is the host's
  EXPECT_EQ(mockdev::control::pinned_host_bytes(), before + kMiB);
  ASSERT_TRUE(backend().free_host(host).ok());
  EXPECT_EQ(mockdev::control::pinned_host_bytes(), before);
}

// memory_info on an untiled device: total = the machine's memory, free = total minus what the
// driver accounts as used.
TEST_F(QueuesTest, MemoryInfoIsExactOnAnUntiledDevice) {
  start_on(mockdev::load_machine("laptop_igpu"), 1);
  const std::uint64_t capacity = 8 * kGiB;
  Result<MemoryInfo> empty = backend().memory_info(0);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->total_bytes, capacity);
  EXPECT_EQ(empty->free_bytes, capacity - mockdev::control::memory_usage(0).used_bytes);
  Result<DevicePointer> pointer = backend().allocate(0, 1 * kGiB);
  ASSERT_TRUE(pointer.ok()) << pointer.status().message();
  Result<MemoryInfo> used = backend().memory_info(0);
  ASSERT_TRUE(used.ok()) << used.status().message();
  EXPECT_EQ(used->total_bytes, capacity);
  EXPECT_EQ(used->free_bytes, capacity - mockdev::control::memory_usage(0).used_bytes);
  EXPECT_EQ(empty->free_bytes - used->free_bytes, 1 * kGiB);
}

// memory_info on tiles (FLAT: each device is one tile): the tile's own memory and modules.
TEST_F(QueuesTest, MemoryInfoIsTheTilesCapacityAndItsFreeBytes) {
  start();
  Result<MemoryInfo> empty = backend().memory_info(1);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  // 128 GiB card, 2 tiles, FLAT: each device is one tile with half.
  EXPECT_EQ(empty->total_bytes, 64 * kGiB);
  Result<DevicePointer> pointer = backend().allocate(1, 8 * kGiB);
  ASSERT_TRUE(pointer.ok()) << pointer.status().message();
  Result<MemoryInfo> used = backend().memory_info(1);
  ASSERT_TRUE(used.ok()) << used.status().message();
  EXPECT_EQ(used->total_bytes, 64 * kGiB);
  Result<MemoryInfo> other = backend().memory_info(0);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(empty->free_bytes - used->free_bytes, 8 * kGiB);
  EXPECT_EQ(other->free_bytes, empty->free_bytes);  // the card's other tile is untouched
  ASSERT_TRUE(backend().deallocate(1, *pointer).ok());
}

// ---- streams and events ------------------------------------------------------------------

TEST_F(QueuesTest, PriorityRangeIsPyTorchXpus) {
  start();
  Result<Backend::PriorityRange> range = backend().stream_priority_range(0);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->least, 1);
  EXPECT_EQ(range->greatest, -1);
}

// On the adversarial schedule nothing runs before a host wait needs it, so a copy
// that did not wait for the fill before it would read stale bytes.
TEST_F(QueuesTest, StreamOrderHoldsOnTheAdversarialSchedule) {
  start(StreamSettings::Schedule::kAdversarial);
  const StreamHandle s = stream(0);
  void* a = device_memory(0, 4096);
  void* b = device_memory(0, 4096);
  std::uint8_t* host = host_memory(4096);
  fill(0, s, a, 0x11, 4096);
  fill(0, s, a, 0x22, 4096);  // overwrites: order matters
  copy(0, s, b, a, 4096);
  copy(0, s, host, b, 4096);
  Result<bool> before = backend().query_stream(0, s);
  ASSERT_TRUE(before.ok());
  EXPECT_FALSE(*before);  // adversarial: nothing ran yet
  ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
  EXPECT_EQ(host[0], 0x22);
  EXPECT_EQ(host[4095], 0x22);
  Result<bool> after = backend().query_stream(0, s);
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(*after);
}

TEST_F(QueuesTest, DefaultStreamIsMadeAtFirstUseAndOrdered) {
  start(StreamSettings::Schedule::kAdversarial);
  Result<bool> idle = backend().query_stream(2, StreamHandle{});
  ASSERT_TRUE(idle.ok());
  EXPECT_TRUE(*idle);
  void* a = device_memory(2, 256);
  std::uint8_t* host = host_memory(256);
  fill(2, StreamHandle{}, a, 0x42, 256);
  copy(2, StreamHandle{}, host, a, 256);
  ASSERT_TRUE(backend().synchronize_device(2).ok());
  EXPECT_EQ(host[255], 0x42);
}

TEST_F(QueuesTest, CrossStreamWaitOrdersTheSecondStream) {
  start(StreamSettings::Schedule::kAdversarial);
  const StreamHandle producer = stream(0);
  const StreamHandle consumer = stream(0, -1);
  void* a = device_memory(0, 1024);
  std::uint8_t* host = host_memory(1024);
  Result<EventHandle> event = create_event(0, EventOptions{});
  ASSERT_TRUE(event.ok());
  fill(0, producer, a, 0x77, 1024);
  ASSERT_TRUE(backend().record_event(0, *event, producer).ok());
  ASSERT_TRUE(backend().stream_wait_event(0, consumer, *event).ok());
  copy(0, consumer, host, a, 1024);
  // Only the consumer is waited for: the producer's fill must run because of the wait.
  ASSERT_TRUE(backend().synchronize_stream(0, consumer).ok());
  EXPECT_EQ(host[0], 0x77);
  EXPECT_EQ(host[1023], 0x77);
  Result<bool> done = backend().query_event(0, *event);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
  ASSERT_TRUE(destroy_event(0, *event).ok());
}

TEST_F(QueuesTest, CrossDeviceWait) {
  start(StreamSettings::Schedule::kAdversarial);
  const StreamHandle producer = stream(0);
  const StreamHandle consumer = stream(2);
  void* a = device_memory(0, 512);
  std::uint8_t* host = host_memory(512);
  Result<EventHandle> event = create_event(0, EventOptions{});
  ASSERT_TRUE(event.ok());
  fill(0, producer, a, 0x31, 512);
  ASSERT_TRUE(backend().record_event(0, *event, producer).ok());
  ASSERT_TRUE(backend().stream_wait_event(2, consumer, *event).ok());
  copy(2, consumer, host, a, 512);
  ASSERT_TRUE(backend().synchronize_stream(2, consumer).ok());
  EXPECT_EQ(host[511], 0x31);
}

TEST_F(QueuesTest, EventQueryAndSynchronizeFollowTheWork) {
  start(StreamSettings::Schedule::kAdversarial);
  const StreamHandle s = stream(1);
  void* a = device_memory(1, 1024);
  Result<EventHandle> event = create_event(1, EventOptions{});
  ASSERT_TRUE(event.ok());
  Result<bool> unrecorded = backend().query_event(1, *event);
  ASSERT_TRUE(unrecorded.ok());
  EXPECT_TRUE(*unrecorded);  // never recorded: no work
  fill(1, s, a, 1, 1024);
  ASSERT_TRUE(backend().record_event(1, *event, s).ok());
  Result<bool> pending = backend().query_event(1, *event);
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(*pending);
  ASSERT_TRUE(backend().synchronize_event(1, *event).ok());
  Result<bool> done = backend().query_event(1, *event);
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
}

// The fill's duration in virtual time (the mock's launch latency plus bytes at
// the memset bandwidth), in ticks of 52.083 ns, back in milliseconds; exact up to the
// one-tick quantisation of the counter.
TEST_F(QueuesTest, ElapsedTimeIsTheFillsVirtualDuration) {
  start();
  const StreamHandle s = stream(0);
  const std::size_t bytes = 64 * kMiB;
  void* a = device_memory(0, bytes);
  EventOptions timing;
  timing.enable_timing = true;
  Result<EventHandle> begin = create_event(0, timing);
  Result<EventHandle> end = create_event(0, timing);
  ASSERT_TRUE(begin.ok() && end.ok());
  ASSERT_TRUE(backend().record_event(0, *begin, s).ok());
  fill(0, s, a, 3, bytes);
  ASSERT_TRUE(backend().record_event(0, *end, s).ok());
  ASSERT_TRUE(backend().synchronize_event(0, *end).ok());
  Result<float> ms = backend().event_elapsed_time(0, *begin, *end);
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  const StreamSettings::Timing timing_model = mockdev::streams::settings().timing;
  const double expected_ns = static_cast<double>(timing_model.launch_latency_ns) +
                             static_cast<double>(bytes) / timing_model.memset_gb_per_s;
  EXPECT_NEAR(*ms, expected_ns / 1e6, 52.083e-6);
  EXPECT_GT(*ms, 0.0f);
  // The other way round: the same time, negative (PyTorch's end - start).
  Result<float> back = backend().event_elapsed_time(0, *end, *begin);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_FLOAT_EQ(*back, -*ms);
}

// The device counter starts 100 ticks before its 32-bit kernel-timestamp wrap,
// so the end event's value is below the start event's; one wrap is corrected, and the
// reversed pair is the same time, negative.
TEST_F(QueuesTest, ElapsedTimeAcrossTheCounterWrap) {
  MachineSpec machine = mockdev::load_machine("2xmax1550");
  for (auto& device : machine.devices) {
    device.level_zero.timestamp_start_ticks = (std::uint64_t{1} << 32) - 100;
  }
  start_on(machine, 4);
  const StreamHandle s = stream(0);
  const std::size_t bytes = 64 * kMiB;
  void* a = device_memory(0, bytes);
  EventOptions timing;
  timing.enable_timing = true;
  Result<EventHandle> begin = create_event(0, timing);
  Result<EventHandle> end = create_event(0, timing);
  ASSERT_TRUE(begin.ok() && end.ok());
  ASSERT_TRUE(backend().record_event(0, *begin, s).ok());
  fill(0, s, a, 3, bytes);
  ASSERT_TRUE(backend().record_event(0, *end, s).ok());
  ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
  Result<float> ms = backend().event_elapsed_time(0, *begin, *end);
  ASSERT_TRUE(ms.ok()) << ms.status().message();
  const StreamSettings::Timing timing_model = mockdev::streams::settings().timing;
  const double expected_ns = static_cast<double>(timing_model.launch_latency_ns) +
                             static_cast<double>(bytes) / timing_model.memset_gb_per_s;
  EXPECT_NEAR(*ms, expected_ns / 1e6, 52.083e-6);
  // Reversed across the wrap: still the short way round, negative.
  Result<float> back = backend().event_elapsed_time(0, *end, *begin);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_FLOAT_EQ(*back, -*ms);
}

TEST_F(QueuesTest, ElapsedTimeNeedsTimingEvents) {
  start();
  const StreamHandle s = stream(0);
  Result<EventHandle> plain = create_event(0, EventOptions{});
  EventOptions timing;
  timing.enable_timing = true;
  Result<EventHandle> timed = create_event(0, timing);
  ASSERT_TRUE(backend().record_event(0, *plain, s).ok());
  ASSERT_TRUE(backend().record_event(0, *timed, s).ok());
  ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
  Result<float> ms = backend().event_elapsed_time(0, *plain, *timed);
  EXPECT_TRUE(fails_with(ms, ErrorKind::kValue,
            "Both events must be created with argument 'enable_timing=True'."));
}

TEST_F(QueuesTest, InterprocessEventsAreRefused) {
  start();
  EventOptions options;
  options.interprocess = true;
  Result<EventHandle> event = create_event(3, options);
  EXPECT_TRUE(fails_with(event, ErrorKind::kUnsupported,
            "create_event: the xpu backend does not support interprocess events (device=3)"));
}

// Note [Event slots]: slots come back once the host saw their work complete, so a long
// run of records on one stream does not grow the pools without bound.
TEST_F(QueuesTest, SlotsAreRecycledAfterObservedCompletion) {
  start();
  const StreamHandle s = stream(0);
  Result<EventHandle> event = create_event(0, EventOptions{});
  ASSERT_TRUE(event.ok());
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(backend().record_event(0, *event, s).ok());
    if (i % 10 == 9) {
      ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
    }
  }
  EXPECT_LE(queues().slots_in_use(), 64u);
}

// On the adversarial schedule nothing completes before a host wait, so no slot may
// be reused while 200 records are pending (the pools grow instead: the mock would report a
// reset of an event whose signal is pending); after the wait they all come back.
TEST_F(QueuesTest, PendingSlotsAreNeverReused) {
  start(StreamSettings::Schedule::kAdversarial);
  const StreamHandle s = stream(0);
  Result<EventHandle> event = create_event(0, EventOptions{});
  ASSERT_TRUE(event.ok());
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(backend().record_event(0, *event, s).ok());
  EXPECT_GE(queues().slots_in_use(), 200u);
  ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(backend().record_event(0, *event, s).ok());
  ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
  EXPECT_LE(queues().slots_in_use(), 256u);  // the first run's pools served the second
}

TEST_F(QueuesTest, StreamsSpreadOverTheComputeEngines) {
  start();
  // Five streams on a group of 4 engines: the fifth shares the first's engine; all work.
  std::vector<StreamHandle> streams;
  for (int i = 0; i < 5; ++i) streams.push_back(stream(3, i % 3 - 1));
  for (StreamHandle s : streams) {
    Result<bool> idle = backend().query_stream(3, s);
    ASSERT_TRUE(idle.ok());
    EXPECT_TRUE(*idle);
  }
  ASSERT_TRUE(backend().destroy_stream(3, streams.back()).ok());
}

// Driver failures name the operation and the entry point, with the driver's code.
TEST_F(QueuesTest, AFailedHostWaitNamesTheCall) {
  start(StreamSettings::Schedule::kAdversarial);
  const StreamHandle s = stream(0);
  void* a = device_memory(0, 256);
  fill(0, s, a, 1, 256);
  mockdev::control::fail_call("zeEventHostSynchronize", 1, ZE_RESULT_ERROR_DEVICE_LOST);
  Status status = backend().synchronize_stream(0, s);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), ErrorKind::kDriver);
  EXPECT_EQ(status.message(),
            "synchronize_stream: zeEventHostSynchronize: Level Zero error "
            "ZE_RESULT_ERROR_DEVICE_LOST (0x70000001) (device=0)");
  // The next wait works: nothing was marked complete by the failure.
  ASSERT_TRUE(backend().synchronize_stream(0, s).ok());
}

// No quiet fallback when Sysman cannot answer.
TEST_F(QueuesTest, MemoryInfoFailsWhenSysmanFails) {
  start();
  mockdev::control::fail_call("zesMemoryGetState", 1, ZE_RESULT_ERROR_DEVICE_LOST);
  Result<MemoryInfo> info = backend().memory_info(0);
  EXPECT_TRUE(fails_with(info, ErrorKind::kDriver,
            "memory_info: zesMemoryGetState: Level Zero error ZE_RESULT_ERROR_DEVICE_LOST "
            "(0x70000001) (device=0)"));
}

// More physical memory than the card has (the mock accounts physical memory per card).
TEST_F(QueuesTest, PhysicalMemoryBeyondTheCardIsOutOfMemory) {
  start();
  Result<PhysicalMemoryHandle> memory = backend().create_physical_memory(0, 200 * kGiB);
  EXPECT_TRUE(fails_with(memory, ErrorKind::kOutOfMemory,
            "create_physical_memory: zePhysicalMemCreate: Level Zero error "
            "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY (0x70000003) (device=0)"));
}

TEST_F(QueuesTest, ElapsedTimeOfEventsOfTwoDevicesIsAValueError) {
  start();
  EventOptions timing;
  timing.enable_timing = true;
  Result<EventHandle> first = create_event(0, timing);
  Result<EventHandle> second = create_event(1, timing);
  ASSERT_TRUE(backend().record_event(0, *first, StreamHandle{}).ok());
  ASSERT_TRUE(backend().record_event(1, *second, StreamHandle{}).ok());
  ASSERT_TRUE(backend().synchronize_device(0).ok());
  ASSERT_TRUE(backend().synchronize_device(1).ok());
  Result<float> ms = backend().event_elapsed_time(0, *first, *second);
  EXPECT_TRUE(fails_with(ms, ErrorKind::kValue,
            "event_elapsed_time: the events belong to devices 0 and 1; timestamps of two "
            "devices cannot be compared"));
}

// Four threads, each with its own stream and buffer, fill, record, wait and copy out
// concurrently on the adversarial schedule; every thread sees its own bytes.
TEST_F(QueuesTest, StreamsOfSeveralThreads) {
  start(StreamSettings::Schedule::kAdversarial);
  constexpr int kThreads = 4;
  constexpr std::size_t kBytes = 4096;
  std::vector<StreamHandle> streams;
  std::vector<void*> buffers;
  std::vector<std::uint8_t*> hosts;
  for (int t = 0; t < kThreads; ++t) {
    streams.push_back(stream(0));
    buffers.push_back(device_memory(0, kBytes));
    hosts.push_back(host_memory(kBytes));
  }
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Result<EventHandle> event = backend().create_event(0, EventOptions{});
      for (int round = 0; round < 50 && failures[t].empty(); ++round) {
        const auto value = static_cast<std::uint8_t>(t * 50 + round);
        auto append = [&](auto&& command) {
          Status status = queues().append(0, streams[t], "thread", command);
          if (!status.ok()) failures[t] = status.message();
        };
        append([&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t n,
                   ze_event_handle_t* waits) {
          return ze().zeCommandListAppendMemoryFill(list, buffers[t], &value, 1, kBytes, signal,
                                                    n, waits);
        });
        if (!backend().record_event(0, *event, streams[t]).ok()) failures[t] = "record";
        append([&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t n,
                   ze_event_handle_t* waits) {
          return ze().zeCommandListAppendMemoryCopy(list, hosts[t], buffers[t], kBytes, signal,
                                                    n, waits);
        });
        if (!backend().synchronize_event(0, *event).ok()) failures[t] = "synchronize_event";
        if (!backend().synchronize_stream(0, streams[t]).ok()) failures[t] = "synchronize";
        if (hosts[t][0] != value || hosts[t][kBytes - 1] != value) {
          failures[t] = "round " + std::to_string(round) + " saw " + std::to_string(hosts[t][0]);
        }
      }
      (void)backend().destroy_event(0, *event);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

// ---- peers -------------------------------------------------------------------------------

// The peer matrix for a topology: FLAT devices 0,1 are card 0's tiles, 2,3 card 1's.
void expect_peers(Backend& backend, const bool (&expected)[4][4]) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      Result<bool> answer = backend.can_access_peer(i, j);
      ASSERT_TRUE(answer.ok()) << answer.status().message();
      EXPECT_EQ(*answer, expected[i][j]) << i << "->" << j;
    }
  }
}

// No topology section: every pair of cards is a PCIe peer; never a device with itself.
TEST_F(QueuesTest, PeersOnTheDefaultTopology) {
  start();
  const bool expected[4][4] = {{false, true, true, true},
                               {true, false, true, true},
                               {true, true, false, true},
                               {true, true, true, false}};
  expect_peers(backend(), expected);
}

// Cards without a link: only the tiles of one card reach each other.
TEST_F(QueuesTest, PeersWithoutALinkAreTheTilesOfOneCard) {
  MachineSpec machine = mockdev::load_machine("2xmax1550");
  machine.topology.default_link = mockdev::PeerLink::kNone;
  start_on(machine, 4);
  const bool expected[4][4] = {{false, true, false, false},
                               {true, false, false, false},
                               {false, false, false, true},
                               {false, false, true, false}};
  expect_peers(backend(), expected);
}

}  // namespace
}  // namespace accel::detail::level_zero
