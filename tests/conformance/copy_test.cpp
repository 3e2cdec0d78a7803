// Conformance: copies and fills through the runtime (accel/copy.h, Note [Copy ordering])
// on every backend: the bytes that arrive, when the host may touch host memory (the CUDA
// Driver API's "API synchronization behavior"; the Level Zero specification's appends), the
// ordering of one stream and the races of two, and the exact errors. Device memory comes
// from raw_alloc, pinned host memory from raw_host_alloc; both are given back (the
// live-object promise of the suite: no allocation left behind).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "accel/accel.h"
#include "conformance_test.h"
#include "error_check.h"
#include "mockdev/control.h"
#include "mockdev/races.h"
#include "runtime_work.h"

namespace accel::test {
namespace {

using Copies = ConformanceTest;

std::string hex(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(pointer)));
  return text;
}

Bytes pattern(std::size_t bytes) {
  Bytes out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(i * 7 + 3);
  return out;
}

// Pinned host memory, filled with `initial`; given back at scope exit.
struct PinnedMemory {
  unsigned char* ptr;
  std::size_t bytes;
  PinnedMemory(std::size_t n, unsigned char initial)
      : ptr(static_cast<unsigned char*>(raw_host_alloc(n))), bytes(n) {
    std::memset(ptr, initial, n);
  }
  ~PinnedMemory() {
    raw_host_delete(ptr);
    empty_host_cache();
  }
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  Bytes bytes_now() const { return Bytes(ptr, ptr + bytes); }
};

TEST_P(Copies, PageableRoundTripThroughTwoDeviceBuffers) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream s(0);
    const Bytes source = pattern(4096);
    DeviceMemory a(4096, s), b(4096, s);
    copy_async(a.ptr, source.data(), 4096, s);
    copy_async(b.ptr, a.ptr, 4096, s);  // device to device, same stream: after the first
    fill_async(static_cast<unsigned char*>(b.ptr) + 100, 0x5A, 28, s);
    Bytes expected = source;
    std::memset(expected.data() + 100, 0x5A, 28);
    EXPECT_EQ(read_back(b.ptr, 4096, s), expected);
    EXPECT_EQ(read_back(a.ptr, 4096, s), source) << "the fill touched only b";
  });
}

TEST_P(Copies, PinnedRoundTripIsExactAfterSynchronize) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream s(0);
    PinnedMemory in(1000, 0), out(1000, 0xEE);
    const Bytes source = pattern(1000);
    std::memcpy(in.ptr, source.data(), 1000);
    DeviceMemory d(1000, s);
    copy_async(d.ptr, in.ptr, 1000, s);
    copy_async(out.ptr, d.ptr, 1000, s);
    s.synchronize();
    EXPECT_EQ(out.bytes_now(), source);
  });
}

// Pinned memory is written when the copy runs: read before the stream got there, it holds
// the old bytes (the adversarial schedule completes nothing until the host waits).
TEST_P(Copies, AsyncCopyIntoPinnedMemoryIsStaleUntilTheStreamIsSynchronized) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the stream's work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        DeviceMemory d(64, s);
        PinnedMemory out(64, 0xEE);
        fill_async(d.ptr, 9, 64, s);
        copy_async(out.ptr, d.ptr, 64, s);
        EXPECT_EQ(out.bytes_now(), Bytes(64, 0xEE)) << "a stale read: the copy has not run";
        EXPECT_FALSE(s.query());
        s.synchronize();
        EXPECT_EQ(out.bytes_now(), Bytes(64, 9));
      },
      kAdversarial);
}

// Pageable memory is finished with when the call returns, on every backend: a destination
// holds the bytes, a source may be overwritten at once.
TEST_P(Copies, PageableDestinationHoldsTheBytesWhenTheCallReturns) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the stream's work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        DeviceMemory d(256, s);
        fill_async(d.ptr, 0x42, 256, s);
        Bytes out(256, 0xEE);
        copy_async(out.data(), d.ptr, 256, s);
        EXPECT_EQ(out, Bytes(256, 0x42));
      },
      kAdversarial);
}

TEST_P(Copies, PageableSourceMayBeReusedWhenTheCallReturns) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the stream's work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        DeviceMemory d(256, s);
        Bytes source = pattern(256);
        const Bytes sent = source;
        copy_async(d.ptr, source.data(), 256, s);
        std::memset(source.data(), 0, 256);  // the caller's buffer, reused at once
        EXPECT_EQ(read_back(d.ptr, 256, s), sent);
      },
      kAdversarial);
}

// The blocking forms return once the stream has finished (ATen's memcpy_and_sync).
TEST_P(Copies, BlockingFormsWaitForTheStream) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("holds the stream's work back with the adversarial schedule");
  run_isolated(
      [&p] {
        require_physical_devices(p, 1);
        schedule_from_environment(p);
        const Stream s(0);
        DeviceMemory d(128, s);
        PinnedMemory out(128, 0xEE);
        fill(d.ptr, 3, 128, s);
        EXPECT_TRUE(s.query());
        copy(out.ptr, d.ptr, 128, s);
        EXPECT_EQ(out.bytes_now(), Bytes(128, 3));
        // No stream: the current stream of the current device.
        fill(d.ptr, 4, 128);
        copy(out.ptr, d.ptr, 128);
        EXPECT_EQ(out.bytes_now(), Bytes(128, 4));
      },
      kAdversarial);
}

// A fill on one stream and a copy of the same bytes on another, nothing between them: the
// race detector reports the pair; wait_stream orders them and the report stays empty.
TEST_P(Copies, TwoStreamsRaceUnlessOrdered) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("reads the simulated hardware's race detector");
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream a(0), b(0);
    ASSERT_NE(a, b);
    DeviceMemory src(512, a), dst(512, a);
    mockdev::control::clear_races();
    fill_async(src.ptr, 1, 512, a);
    copy_async(dst.ptr, src.ptr, 512, b);
    const std::vector<mockdev::control::Race> races = mockdev::control::races();
    ASSERT_EQ(races.size(), 1u);
    EXPECT_EQ(races[0].kind, mockdev::control::RaceKind::kDataRace);
    EXPECT_TRUE(races[0].first.writes);
    EXPECT_FALSE(races[0].second.writes);
    EXPECT_EQ(races[0].begin, reinterpret_cast<std::uintptr_t>(src.ptr));
    EXPECT_EQ(races[0].bytes, 512u);
    synchronize(0);
    mockdev::control::clear_races();
    fill_async(src.ptr, 2, 512, a);
    b.wait_stream(a);
    copy_async(dst.ptr, src.ptr, 512, b);
    EXPECT_EQ(mockdev::control::race_count(), 0u);
    EXPECT_EQ(read_back(dst.ptr, 512, b), Bytes(512, 2));
  });
}

TEST_P(Copies, ZeroBytesDoesNothingAtAll) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream nowhere = Stream::unchecked(99, 12345);
    copy_async(nullptr, nullptr, 0, nowhere);
    fill_async(nullptr, 1, 0, nowhere);
    copy(nullptr, nullptr, 0);
    fill(nullptr, 1, 0);
    EXPECT_FALSE(is_initialized());
  });
}

TEST_P(Copies, BadArgumentsAreValueErrorsNamingTheValues) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream s = Stream::unchecked(0, 0);
    unsigned char buffer[64];
    const std::string b = hex(buffer);
    EXPECT_TRUE(is_error(catch_error([&] { copy_async(nullptr, buffer, 16, s); }),
                         ErrorKind::kValue,
                         "copy_async: dst is a null pointer (dst=0x0, src=" + b + ", bytes=16)"));
    EXPECT_TRUE(is_error(catch_error([&] { copy_async(buffer, nullptr, 16, s); }),
                         ErrorKind::kValue,
                         "copy_async: src is a null pointer (dst=" + b + ", src=0x0, bytes=16)"));
    EXPECT_TRUE(
        is_error(catch_error([&] { copy_async(buffer + 8, buffer, 16, s); }), ErrorKind::kValue,
                 "copy_async: the source and destination ranges overlap (dst=" + hex(buffer + 8) +
                     ", src=" + b + ", bytes=16)"));
    void* top = reinterpret_cast<void*>(~std::uintptr_t{0} - 7);
    EXPECT_TRUE(is_error(catch_error([&] { copy_async(top, buffer, 16, s); }), ErrorKind::kValue,
                         "copy_async: the dst range wraps around the address space (dst=" +
                             hex(top) + ", src=" + b + ", bytes=16)"));
    EXPECT_TRUE(is_error(catch_error([&] { fill_async(nullptr, 7, 16, s); }), ErrorKind::kValue,
                         "fill_async: ptr is a null pointer (ptr=0x0, value=7, bytes=16)"));
    EXPECT_TRUE(is_error(catch_error([&] { copy(nullptr, buffer, 16); }), ErrorKind::kValue,
                         "copy: dst is a null pointer (dst=0x0, src=" + b + ", bytes=16)"));
    EXPECT_TRUE(is_error(catch_error([&] { fill(nullptr, 255, 1); }), ErrorKind::kValue,
                         "fill: ptr is a null pointer (ptr=0x0, value=255, bytes=1)"));
    EXPECT_FALSE(is_initialized()) << "refused before anything was initialised";
  });
}

TEST_P(Copies, StreamsTheRuntimeDidNotMakeAreRefused) {
  const BackendProfile& p = profile();
  run_isolated([&p] {
    require_physical_devices(p, 1);
    unsigned char host[16] = {};
    const int count = device_count();
    EXPECT_TRUE(
        is_error(catch_error([&] { copy_async(host + 8, host, 8, Stream::unchecked(count, 0)); }),
                 ErrorKind::kIndex,
                 "Device index value " + std::to_string(count) + " is out of index range [0, " +
                     std::to_string(count) + ")"));
    EXPECT_TRUE(is_error(catch_error([&] { fill_async(host, 1, 8, Stream::unchecked(0, 12345)); }),
                         ErrorKind::kValue,
                         "stream: no stream with id 12345 exists on device 0 (stream_id=12345)"));
  });
}

// The driver knows its allocations: a copy that runs past the end of one is its error,
// with the call's values. A 10 MiB request is its own driver allocation of exactly 10 MiB
// (PyTorch's sizes: 10 MiB and up round to 2 MiB), so its last 16 bytes end it.
TEST_P(Copies, PastTheEndOfADeviceAllocationIsTheDriversErrorWithTheValues) {
  const BackendProfile& p = profile();
  ACCEL_REQUIRE_MOCK("the simulated driver checks every range; a real one may fault later");
  run_isolated([&p] {
    require_physical_devices(p, 1);
    const Stream s(0);
    constexpr std::size_t kTen = std::size_t{10} << 20;
    DeviceMemory d(kTen, s);
    unsigned char* tail = static_cast<unsigned char*>(d.ptr) + kTen - 16;
    unsigned char host[32] = {};
    const std::string driver =
        p.device_type == DeviceType::kCUDA
            ? "copy_async: cuMemcpyAsync: CUDA error: invalid argument (device=0, "
              "driver=CUDA_ERROR_INVALID_VALUE)"
            : "copy_async: zeCommandListAppendMemoryCopy: Level Zero error "
              "ZE_RESULT_ERROR_INVALID_ARGUMENT (0x78000004) (device=0)";
    const std::string values = "(dst=" + hex(tail) + ", src=" + hex(host) +
                               ", bytes=32, device=0, stream_id=" + std::to_string(s.id()) + ")";
    EXPECT_TRUE(is_error(catch_error([&] { copy_async(tail, host, 32, s); }), ErrorKind::kDriver,
                         driver + " " + values));
    // 16 bytes fit: the same call succeeds.
    copy_async(tail, host, 16, s);
    s.synchronize();
  });
}

ACCEL_INSTANTIATE_CONFORMANCE(Copies);

}  // namespace
}  // namespace accel::test
