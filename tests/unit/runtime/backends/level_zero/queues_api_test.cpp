// The Level Zero backend through the public API (ACCEL_BACKEND=xpu) on the mock Level Zero
// driver over 2xmax1550 (FLAT: 4 devices of 64 GiB), on the adversarial schedule
// (MOCKDEV_SCHEDULE=adversarial: nothing runs before a host wait needs it). The one caching
// allocator and the core's streams and events serve xpu unchanged. Each test is its own
// process (ctest).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "accel/accel.h"
#include "backends/level_zero/ze_backend_impl.h"
#include "backends/level_zero/ze_streams.h"
#include "core/runtime.h"
#include "mockdev/control.h"
#include "mockdev/memory.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"

namespace accel {
namespace {

using detail::level_zero::LevelZeroBackend;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kGiB = std::size_t{1} << 30;

// The runtime's xpu backend (initialises the runtime).
LevelZeroBackend& xpu_backend() {
  (void)device_count();
  set_device_index(0);
  detail::Backend* backend = detail::current_state().backend();
  auto* xpu = dynamic_cast<LevelZeroBackend*>(backend);
  if (xpu == nullptr) throw std::runtime_error("the runtime's backend is not xpu");
  return *xpu;
}

// Queues a fill (or a copy) on `stream` in its order (QueueState::append), as code that
// queues work on the runtime's streams must.
void fill(const Stream& stream, void* pointer, std::uint8_t value, std::size_t bytes) {
  LevelZeroBackend& xpu = xpu_backend();
  const detail::level_zero::ZeApi& ze = xpu.api();
  detail::Status status = xpu.queues()->append(
      stream.device_index(), detail::StreamHandle{stream.native_handle()}, "test fill",
      [&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t count,
          ze_event_handle_t* waits) {
        return ze.zeCommandListAppendMemoryFill(list, pointer, &value, 1, bytes, signal, count,
                                                waits);
      });
  ASSERT_TRUE(status.ok()) << status.message();
}
void copy(const Stream& stream, void* to, const void* from, std::size_t bytes) {
  LevelZeroBackend& xpu = xpu_backend();
  const detail::level_zero::ZeApi& ze = xpu.api();
  detail::Status status = xpu.queues()->append(
      stream.device_index(), detail::StreamHandle{stream.native_handle()}, "test copy",
      [&](ze_command_list_handle_t list, ze_event_handle_t signal, std::uint32_t count,
          ze_event_handle_t* waits) {
        return ze.zeCommandListAppendMemoryCopy(list, to, from, bytes, signal, count, waits);
      });
  ASSERT_TRUE(status.ok()) << status.message();
}

// Every test also checks that the mock saw no misuse: no race and no "mockdev: level
// zero:" report (event reuse while a signal is pending, deadlocked waits).
class XpuQueuesApi : public ::testing::Test {
 protected:
  void SetUp() override { ::testing::internal::CaptureStderr(); }
  void TearDown() override {
    const std::string errors = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(errors.find("mockdev: level zero:"), std::string::npos) << errors;
    EXPECT_EQ(mockdev::control::race_count(), 0u) << errors;
  }
};

TEST_F(XpuQueuesApi, TheAcceleratorIsXpuOnTheAdversarialSchedule) {
  ASSERT_EQ(device_count(), 4);
  EXPECT_EQ(current_accelerator()->type(), DeviceType::kXPU);
  EXPECT_EQ(mockdev::streams::settings().schedule, mockdev::StreamSettings::Schedule::kAdversarial);
}

// The caching allocator takes a 2 MiB segment for a small block from zeMemAllocDevice and
// gives it back on empty_cache; the mock's accounting sees both.
TEST_F(XpuQueuesApi, CachingAllocatorSegmentsAreDriverAllocations) {
  set_device_index(1);
  const std::uint64_t before = mockdev::control::memory_usage(0).allocation_bytes;
  {
    DataPtr data = allocate(1024);
    ASSERT_TRUE(data);
    EXPECT_EQ(data.device(), 1);
    EXPECT_EQ(memory_reserved(1), static_cast<std::int64_t>(2 * kMiB));
    EXPECT_EQ(memory_allocated(1), 1024);
    EXPECT_EQ(mockdev::control::memory_usage(0).allocation_bytes, before + 2 * kMiB);
    EXPECT_EQ(mockdev::control::call_count("zeMemAllocDevice"), 1u);
  }
  empty_cache();
  EXPECT_EQ(memory_reserved(1), 0);
  EXPECT_EQ(mockdev::control::memory_usage(0).allocation_bytes, before);
  EXPECT_EQ(mockdev::control::call_count("zeMemFree"), 1u);
}

// An oversized request and the allocator: the driver's UNSUPPORTED_SIZE is "no room", so the caller
// gets PyTorch's OutOfMemoryError with the device's capacity, not a driver error.
TEST_F(XpuQueuesApi, OutOfMemoryErrorFromTheCachingAllocator) {
  set_device_index(0);
  DataPtr existing = allocate(1024);
  const std::size_t huge = 100 * kGiB;
  try {
    DataPtr never = allocate(huge);
    ADD_FAILURE() << "100 GiB were allocated on a 64 GiB tile";
  } catch (const OutOfMemoryError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Tried to allocate 100.00 GiB."), std::string::npos) << what;
    EXPECT_NE(what.find("has a total capacity of 64.00 GiB"), std::string::npos) << what;
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
    EXPECT_EQ(e.report().device, 0);
    EXPECT_EQ(e.report().requested_bytes, huge);
    EXPECT_EQ(e.report().total_bytes, 64 * kGiB);
    EXPECT_EQ(e.report().allocated_bytes, 1024u);
    EXPECT_EQ(e.report().reserved_bytes, 2 * kMiB);
  }
  DataPtr after = allocate(4096);  // the device stays usable
  EXPECT_TRUE(after);
}

// expandable_segments:True over zeVirtualMem*: one reservation, 2 MiB pages of physical
// memory mapped into it, unmapped and destroyed by empty_cache.
TEST_F(XpuQueuesApi, ExpandableSegmentsMapPagesThroughTheVirtualMemoryApi) {
  set_allocator_settings("expandable_segments:True");
  set_device_index(0);
  {
    DataPtr large = allocate(30 * kMiB);
    EXPECT_EQ(memory_reserved(0), static_cast<std::int64_t>(30 * kMiB));
    EXPECT_EQ(mockdev::control::call_count("zeVirtualMemReserve"), 1u);
    EXPECT_EQ(mockdev::control::call_count("zePhysicalMemCreate"), 15u);
    EXPECT_EQ(mockdev::control::call_count("zeVirtualMemMap"), 15u);
    EXPECT_EQ(mockdev::control::call_count("zeMemAllocDevice"), 0u);
    // The mapped pages hold data.
    HostPtr host = allocate_host(64);
    const Stream stream = current_stream();
    fill(stream, static_cast<char*>(large.get()) + 29 * kMiB, 0x6b, 64);
    copy(stream, host.get(), static_cast<char*>(large.get()) + 29 * kMiB, 64);
    stream.synchronize();
    EXPECT_EQ(static_cast<std::uint8_t*>(host.get())[63], 0x6b);
  }
  empty_cache();
  EXPECT_EQ(memory_reserved(0), 0);
  EXPECT_EQ(mockdev::control::call_count("zeVirtualMemUnmap"),
            mockdev::control::call_count("zeVirtualMemMap"));
  EXPECT_EQ(mockdev::control::call_count("zePhysicalMemDestroy"), 15u);
}

// The pinned host allocator over zeMemAllocHost: cached after the free, returned by
// empty_host_cache.
TEST_F(XpuQueuesApi, PinnedHostAllocatorUsesHostAllocations) {
  const std::uint64_t before = mockdev::control::pinned_host_bytes();
  {
    HostPtr host = allocate_host(kMiB);
    ASSERT_TRUE(host);
    EXPECT_EQ(mockdev::control::pinned_host_bytes(), before + kMiB);
    EXPECT_EQ(mockdev::control::call_count("zeMemAllocHost"), 1u);
  }
  EXPECT_EQ(mockdev::control::pinned_host_bytes(), before + kMiB);  // cached
  empty_host_cache();
  EXPECT_EQ(mockdev::control::pinned_host_bytes(), before);
}

TEST_F(XpuQueuesApi, MemoryInfoTotalIsTheTile) {
  const MemoryInfo info = get_memory_info(2);
  EXPECT_EQ(info.total_bytes, 64 * kGiB);
  EXPECT_LE(info.free_bytes, info.total_bytes);
  EXPECT_GT(info.free_bytes, 0u);
}

TEST_F(XpuQueuesApi, StreamPrioritiesArePyTorchXpus) {
  EXPECT_EQ(priority_range(0), (std::pair<int, int>{0, -1}));
  const Stream high(0, -1);
  EXPECT_EQ(high.priority(), -1);
  const Stream normal(0, 0);
  EXPECT_EQ(normal.priority(), 0);
  EXPECT_TRUE(high.query());
}

// Stream order on a pool stream: fill, overwrite, copy out; nothing runs before the wait.
TEST_F(XpuQueuesApi, StreamOrderAndSynchronize) {
  set_device_index(0);
  const Stream stream(0);
  DataPtr data = allocate(4096);
  HostPtr host = allocate_host(4096);
  fill(stream, data.get(), 0x01, 4096);
  fill(stream, data.get(), 0x02, 4096);
  copy(stream, host.get(), data.get(), 4096);
  EXPECT_FALSE(stream.query());
  synchronize(0);  // every stream of the device this backend made
  EXPECT_TRUE(stream.query());
  EXPECT_EQ(static_cast<std::uint8_t*>(host.get())[4095], 0x02);
}

// Cross-stream wait through the public API: the consumer's copy waits for the producer's
// fill through the event; only the consumer is synchronised.
TEST_F(XpuQueuesApi, WaitStreamOrdersTheConsumer) {
  set_device_index(0);
  const Stream producer(0);
  const Stream consumer(0, -1);
  DataPtr data = allocate(2048);
  HostPtr host = allocate_host(2048);
  fill(producer, data.get(), 0x5a, 2048);
  consumer.wait_stream(producer);
  copy(consumer, host.get(), data.get(), 2048);
  consumer.synchronize();
  EXPECT_EQ(static_cast<std::uint8_t*>(host.get())[0], 0x5a);
  EXPECT_EQ(static_cast<std::uint8_t*>(host.get())[2047], 0x5a);
}

// Events: never recorded -> complete; recorded -> pending until a wait; elapsed time of
// the fill between two timing events is its virtual duration: on the
// adversarial schedule the work runs at the host wait, long after its launch latency has
// passed, so only the transfer (bytes at the memset bandwidth) separates the two records;
// exact up to one 52.083 ns tick.
TEST_F(XpuQueuesApi, EventsAndElapsedTime) {
  set_device_index(0);
  const Stream stream(0);
  EventOptions timing;
  timing.enable_timing = true;
  Event begin(timing);
  Event end(timing);
  EXPECT_TRUE(begin.query());
  const std::size_t bytes = 64 * kMiB;
  DataPtr data = allocate(bytes);
  begin.record(stream);
  fill(stream, data.get(), 9, bytes);
  end.record(stream);
  EXPECT_FALSE(end.query());
  end.synchronize();
  EXPECT_TRUE(end.query());
  const mockdev::StreamSettings::Timing model = mockdev::streams::settings().timing;
  const double expected_ns = static_cast<double>(bytes) / model.memset_gb_per_s;
  EXPECT_NEAR(begin.elapsed_time(end), expected_ns / 1e6, 52.083e-6);
}

TEST_F(XpuQueuesApi, GraphsAreUnsupported) {
  set_device_index(0);
  const Stream stream(0);
  detail::Status status = xpu_backend().begin_capture(0, detail::StreamHandle{stream.native_handle()},
                                                     CaptureErrorMode::kDefault);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(status.message(), "begin_capture: the xpu backend does not support graphs");
}

TEST_F(XpuQueuesApi, PeerAccessThroughTheApi) {
  EXPECT_TRUE(can_device_access_peer(0, 1));
  EXPECT_FALSE(can_device_access_peer(2, 2));
}

}  // namespace
}  // namespace accel
