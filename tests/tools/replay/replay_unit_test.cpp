// Unit tests of accel replay's pieces: the readers' address resolution and line numbers,
// the simulated device's accounting, stream mapping in the replay, sizes on the command line.
#include <gtest/gtest.h>

#include <string>

#include "replay.h"
#include "report.h"
#include "simulated_device.h"
#include "trace.h"

namespace accel::replay {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;

std::string snapshot_of(const std::string& entries) {
  return "{\"device_traces\": [[\n" + entries + "\n]]}\n";
}

TEST(SnapshotReader, EntriesSpanningLinesReportTheLineOfTheirOpeningBrace) {
  const Trace trace = read_snapshot_text(
      snapshot_of("{\"action\": \"alloc\", \"addr\": 4096, \"size\": 100, \"stream\": 0},\n"
                  "\n"
                  "{\n  \"action\": \"free_requested\",\n  \"addr\": 4096}"),
      "t.json", 0);
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[0].line, 2u);
  EXPECT_EQ(trace.events[1].line, 4u);
  EXPECT_EQ(trace.events[1].kind, TraceEvent::Kind::kFree);
  EXPECT_EQ(trace.events[1].bytes, 100u);
}

// A free_requested and its free_completed are one free; a completion alone frees too; a
// completion of an address the window never saw is one block from before the window.
TEST(SnapshotReader, FreeCompletedFreesOnlyWhenNoFreeRequestedCameFirst) {
  const Trace trace = read_snapshot_text(
      snapshot_of(R"({"action": "alloc", "addr": 1, "size": 10, "stream": 0},
{"action": "alloc", "addr": 2, "size": 20, "stream": 0},
{"action": "free_requested", "addr": 1},
{"action": "free_completed", "addr": 1},
{"action": "free_completed", "addr": 2},
{"action": "free_completed", "addr": 3})"),
      "t.json", 0);
  ASSERT_EQ(trace.events.size(), 4u);  // 2 allocations, 2 frees
  EXPECT_EQ(trace.frees, 2u);
  EXPECT_EQ(trace.events[3].id, 1u);   // the free_completed of addr 2
  EXPECT_EQ(trace.events[3].line, 6u);
  EXPECT_EQ(trace.unmatched_frees, 1u);  // addr 3
}

TEST(SnapshotReader, StreamsAreDenseWithTheDefaultStreamFirst) {
  const Trace trace = read_snapshot_text(
      snapshot_of(R"({"action": "alloc", "addr": 1, "size": 10, "stream": 777},
{"action": "alloc", "addr": 2, "size": 10, "stream": 0},
{"action": "alloc", "addr": 3, "size": 10, "stream": 555})"),
      "t.json", 0);
  EXPECT_EQ(trace.streams, (std::vector<std::int64_t>{0, 777, 555}));
  EXPECT_EQ(trace.events[0].stream, 1u);
  EXPECT_EQ(trace.events[1].stream, 0u);
  EXPECT_EQ(trace.events[2].stream, 2u);
}

TEST(RmmReader, ColumnsAreFoundByNameAndFailuresAreCounted) {
  const Trace trace = read_rmm_text(
      "Stream,Size,Pointer,Action\n0x5,1024,0x10,allocate\n0x5,99,0x0,allocate failure\n"
      "0x5,1024,0x10,free\n",
      "t.csv");
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.failed_allocations, 1u);
  EXPECT_EQ(trace.unmatched_frees, 0u);
  EXPECT_EQ(trace.streams, (std::vector<std::int64_t>{0, 5}));
  EXPECT_EQ(trace.events[1].line, 4u);
}

TEST(RmmReader, SizeMustBeDecimal) {
  try {
    (void)read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n1,t,allocate,0x10,0x40,0x0\n",
                        "t.csv");
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "t.csv:2: Size: expected a non-negative integer, got '0x40'");
  }
}

TEST(SimulatedDevice, RoundsToTheGranularityAndFailsAtCapacity) {
  SimulatedDevice device(6 * kMiB);
  const auto a = device.allocate(1);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(device.used_bytes(), 2 * kMiB);
  const auto b = device.allocate(2 * kMiB + 1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(device.used_bytes(), 6 * kMiB);
  const auto c = device.allocate(1);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().kind(), ErrorKind::kOutOfMemory);
  EXPECT_EQ(c.status().message(),
            "simulated device: out of memory allocating 1 bytes (6291456 of 6291456 in use)");
  EXPECT_EQ(device.memory_info()->free_bytes, 0u);
  ASSERT_TRUE(device.deallocate(*a).ok());
  EXPECT_EQ(device.used_bytes(), 4 * kMiB);
  EXPECT_EQ(device.peak_used_bytes(), 6 * kMiB);
  EXPECT_EQ(device.deallocate(*a).kind(), ErrorKind::kValue);
}

TEST(SimulatedDevice, PhysicalMemoryCountsWhenCreatedAddressRangesDoNot) {
  SimulatedDevice device(4 * kMiB);
  const auto range = device.reserve_address_range(64 * kMiB);
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(device.used_bytes(), 0u);
  const auto physical = device.create_physical(3 * kMiB);
  ASSERT_TRUE(physical.ok());
  EXPECT_EQ(device.used_bytes(), 4 * kMiB);
  EXPECT_FALSE(device.create_physical(1).ok());
  ASSERT_TRUE(device.release_physical(*physical).ok());
  EXPECT_EQ(device.used_bytes(), 0u);
}

// Distinct trace streams are distinct allocator streams: a block freed on one stream is not
// reused by an allocation on another, so two segments are made; on one stream, one.
TEST(Replay, DistinctTraceStreamsAreDistinctAllocatorStreams) {
  auto two_allocations = [](std::int64_t second_stream) {
    return read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n"
                         "1,t,allocate,0x10,4194304,0x0\n1,t,free,0x10,4194304,0x0\n"
                         "1,t,allocate,0x10,4194304," + std::to_string(second_stream) + "\n",
                         "t.csv");
  };
  ReplayOptions options;
  options.capacity = 1024 * kMiB;
  EXPECT_EQ(run_replay(two_allocations(0), options).device_allocations, 1);
  EXPECT_EQ(run_replay(two_allocations(7), options).device_allocations, 2);
}

TEST(Replay, StopsAtTheFirstOutOfMemoryWithItsEvent) {
  const Trace trace = read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,t,allocate,0x10,16777216,0x0\n"
                                    "1,t,allocate,0x20,16777216,0x0\n"
                                    "1,t,free,0x10,16777216,0x0\n",
                                    "t.csv");
  ReplayOptions options;
  options.capacity = 30 * kMiB;
  const ReplayResult result = run_replay(trace, options);
  ASSERT_TRUE(result.oom.has_value());
  EXPECT_EQ(result.oom->event_index, 1u);
  EXPECT_EQ(result.oom->line, 3u);
  EXPECT_EQ(result.events_replayed, 1u);
  EXPECT_EQ(result.peak_allocated, 16 * static_cast<std::int64_t>(kMiB));
}

// The state at the peak is taken after the first event that reaches the peak of allocated
// bytes: here event 0 (4 MiB), reached again by event 2 after a free.
TEST(Replay, StateAtThePeakIsTheFirstEventReachingIt) {
  const Trace trace = read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,t,allocate,0x10,4194304,0x0\n"
                                    "1,t,free,0x10,4194304,0x0\n"
                                    "1,t,allocate,0x20,4194304,0x0\n",
                                    "t.csv");
  ReplayOptions options;
  options.capacity = 1024 * kMiB;
  const ReplayResult result = run_replay(trace, options);
  EXPECT_EQ(result.peak_event_index, 0u);
  EXPECT_EQ(result.allocated_at_peak, 4 * static_cast<std::int64_t>(kMiB));
  EXPECT_EQ(result.reserved_at_peak, 20 * static_cast<std::int64_t>(kMiB));  // one 20 MiB segment
  EXPECT_EQ(result.largest_free_block_at_peak, 16 * kMiB);
}

// A peak beyond the largest capacity searched is refused at once, in bytes and binary units,
// and sizes that sum past 2^64 do not wrap around (a wrapped peak once read "no capacity up
// to 0 bytes").
TEST(MinCapacity, APeakBeyondTheSearchIsNamedInTheUsersTerms) {
  auto trace_of = [](const std::string& rows) {
    return read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n" + rows, "t.csv");
  };
  ReplayOptions options;
  const Trace huge = trace_of("1,t,allocate,0x10,9223372036854775808,0x0\n");
  try {
    (void)find_min_capacity(huge, options);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(),
                 "t.csv: --find-min-capacity: the trace holds 9223372036854775808 bytes (8.00 EiB) "
                 "live at once (its peak of live requested bytes), more than the largest capacity "
                 "searched, 281474976710656 bytes (256.00 TiB)");
  }
  const Trace wraps = trace_of("1,t,allocate,0x10,18446744073709551615,0x0\n"
                               "1,t,allocate,0x20,18446744073709551615,0x0\n"
                               "1,t,free,0x10,0,0x0\n1,t,free,0x20,0,0x0\n");
  EXPECT_EQ(peak_live_requested(wraps), UINT64_MAX);
  // 2^63 twice is 2^64: a 64-bit sum would read 0 there and keep 2^63 as the peak.
  EXPECT_EQ(peak_live_requested(trace_of("1,t,allocate,0x10,9223372036854775808,0x0\n"
                                         "1,t,allocate,0x20,9223372036854775808,0x0\n")),
            UINT64_MAX);
  try {
    (void)find_min_capacity(wraps, options);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(),
                 "t.csv: --find-min-capacity: the trace holds 18446744073709551615 bytes "
                 "(16.00 EiB) live at once (its peak of live requested bytes), more than the "
                 "largest capacity searched, 281474976710656 bytes (256.00 TiB)");
  }
}

TEST(MinCapacity, TheLimitItselfIsSearched) {
  const Trace trace = read_rmm_text(
      "Thread,Time,Action,Pointer,Size,Stream\n1,t,allocate,0x10,281474976710656,0x0\n", "t.csv");
  const MinCapacity found = find_min_capacity(trace, ReplayOptions{});
  EXPECT_EQ(found.capacity, kMaxSearchedCapacity);
  EXPECT_EQ(found.bisection, kMaxSearchedCapacity);
  EXPECT_EQ(found.replays, 1u);
}

// Live requested bytes within the limit, but two streams' segments need 2 MiB more than it.
TEST(MinCapacity, NoCapacityUpToTheLimitIsNamedInTheUsersTerms) {
  const Trace trace = read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n"
                                    "1,t,allocate,0x10,1,0x0\n"
                                    "1,t,allocate,0x20,281474975662080,0x1\n",
                                    "t.csv");
  try {
    (void)find_min_capacity(trace, ReplayOptions{});
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(),
                 "t.csv: --find-min-capacity: no capacity up to 281474976710656 bytes (256.00 TiB) "
                 "replays the trace without out of memory");
  }
}

TEST(ParseSize, UnitsAndErrors) {
  EXPECT_EQ(parse_size("1073741824"), 1073741824u);
  EXPECT_EQ(parse_size("16GiB"), 16ull << 30);
  EXPECT_EQ(parse_size("512 MiB"), 512ull << 20);
  EXPECT_EQ(parse_size("1.5KiB"), 1536u);
  EXPECT_EQ(parse_size("2GB"), 2000000000u);
  EXPECT_EQ(parse_size("12XB"), std::nullopt);
  EXPECT_EQ(parse_size("0.3B"), std::nullopt);
  EXPECT_EQ(parse_size("GiB"), std::nullopt);
  EXPECT_EQ(parse_size("1.2.3"), std::nullopt);
  EXPECT_EQ(parse_size("-5"), std::nullopt);
  EXPECT_EQ(parse_size("99999999TiB"), std::nullopt);
}

}  // namespace
}  // namespace accel::replay
