// accel memory-summary's statistics (Note [What a snapshot says of the statistics],
// tools/replay/snapshot_summary.h), checked against the live allocator they describe: the
// caching allocator runs a program on the replay's simulated device with memory history on
// from the start, its snapshot is dumped as JSON and summarised, and every statistic the
// note says the snapshot determines must equal memory_stats()'s.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "accel/memory.h"
#include "allocator/device_caching_allocator.h"
#include "allocator/device_stats.h"
#include "simulated_device.h"
#include "snapshot_summary.h"
#include "trace.h"
#include "trace_source.h"

namespace accel::replay {
namespace {

using detail::alloc::DeviceCachingAllocator;

constexpr std::uint64_t kMiB = 1 << 20;

struct Program {
  std::unique_ptr<DeviceCachingAllocator> allocator;
  explicit Program(const std::string& config = "") {
    auto parsed = detail::alloc::parse_allocator_config(config, "test");
    allocator = std::make_unique<DeviceCachingAllocator>(
        std::make_unique<SimulatedDevice>(std::uint64_t{4} << 30), std::move(parsed).value());
    allocator->record_history(true, 100000);
  }
  std::string snapshot_json() const {
    MemorySnapshot snapshot;
    snapshot.segments = allocator->snapshot();
    snapshot.device_traces = {allocator->trace()};
    return memory_snapshot_json(snapshot);
  }
  SnapshotSummary summary() const {
    const std::string text = snapshot_json();
    TraceSource source(text, "program.json");
    return summarize_snapshot(source, 0);
  }
};

// Small and large blocks, a split segment with a cached remainder, a freed segment
// (empty_cache), a block whose free waits for another stream's use, and a peak passed long
// before the snapshot.
void run_program(DeviceCachingAllocator& a) {
  const HostFrame site{"program.cpp", 1, "main"};
  const std::uint64_t big = a.allocate(30 * kMiB, 0, site);
  const std::uint64_t mid = a.allocate(3 * kMiB, 0, site);
  const std::uint64_t small1 = a.allocate(1000, 0, site);
  const std::uint64_t small2 = a.allocate(600 * 1024, 0, site);
  a.free(big, site);
  a.empty_cache();  // the 30 MiB segment goes back: peaks stay above the current values
  (void)a.allocate(5 * kMiB, 0, site);
  a.free(mid, site);
  a.record_stream(small2, 7);
  a.free(small2, site);  // pending until the next allocation: active, no longer allocated
  (void)small1;
}

TEST(SnapshotSummary, EqualsTheLiveStatisticsItDetermines) {
  Program p;
  run_program(*p.allocator);
  const MemoryStats live = detail::alloc::flatten(p.allocator->stats());
  const SnapshotSummary s = p.summary();
  EXPECT_TRUE(s.has_traces);
  EXPECT_EQ(s.segments, p.allocator->snapshot().size());
  EXPECT_EQ(s.stats.size(), live.size());  // the 122 keys of memory_stats()
  // From the trace: every field; from the segments alone: the current values.
  for (const char* stat : {"allocated_bytes", "active_bytes", "reserved_bytes", "allocation",
                           "active", "segment"}) {
    for (const char* pool : {"all", "small_pool", "large_pool"}) {
      for (const char* field : {"current", "peak", "allocated", "freed"}) {
        const std::string key = std::string(stat) + "." + pool + "." + field;
        EXPECT_EQ(s.stats.at(key), live.at(key)) << key;
      }
    }
  }
  for (const char* stat : {"requested_bytes", "inactive_split", "inactive_split_bytes"}) {
    for (const char* pool : {"all", "small_pool", "large_pool"}) {
      const std::string key = std::string(stat) + "." + pool + ".current";
      EXPECT_EQ(s.stats.at(key), live.at(key)) << key;
    }
  }
  for (const char* key : {"num_device_alloc", "num_device_free", "num_ooms"}) {
    EXPECT_EQ(s.stats.at(key), live.at(key)) << key;
  }
  // The program really has peaks above its current values, and a pending free.
  EXPECT_GT(live.at("reserved_bytes.all.peak"), live.at("reserved_bytes.all.current"));
  EXPECT_GT(live.at("active_bytes.small_pool.current"),
            live.at("allocated_bytes.small_pool.current"));
}

TEST(SnapshotSummary, ExpandableSegmentsCountMappedPages) {
  Program p("expandable_segments:True");
  run_program(*p.allocator);
  const MemoryStats live = detail::alloc::flatten(p.allocator->stats());
  const SnapshotSummary s = p.summary();
  for (const char* field : {"current", "peak", "allocated", "freed"}) {
    const std::string key = std::string("reserved_bytes.all.") + field;
    EXPECT_EQ(s.stats.at(key), live.at(key)) << key;
  }
}

TEST(SnapshotSummary, TheTableAndWhatItsColumnsCover) {
  Program p;
  const HostFrame site{"program.cpp", 1, "main"};
  (void)p.allocator->allocate(1000, 0, site);
  const SnapshotSummary s = p.summary();
  const std::string text = render_snapshot_summary(s, "program.json", 0, true);
  EXPECT_EQ(text, format_memory_summary(s.stats, 0, true) +
                      "snapshot: program.json, device 0: Cur Usage from its 1 segment\n"
                      "Peak Usage, Tot Alloc, Tot Freed and CUDA OOMs: over the 2 entries of "
                      "device_traces[0] (the recorded window; events before it are not in the "
                      "snapshot)\n"
                      "not in a snapshot's trace: Requested memory, Non-releasable memory and "
                      "allocs, the Oversize rows and cudaMalloc retries show Cur Usage only\n");
  EXPECT_NE(text.find("| Allocated memory      |   1024 B   |   1024 B   |   1024 B   |      0 B   |"),
            std::string::npos)
      << text;
}

// A window that starts after the program did: the state before it is inferred, and the
// peak is never below the current value.
TEST(SnapshotSummary, AWindowStartingLate) {
  const std::string text =
      R"({"segments": [{"device": 0, "address": 4096, "total_size": 2097152, "segment_type": "small",)"
      R"( "blocks": [{"address": 4096, "size": 1024, "requested_size": 1000, "state": "active_allocated"},)"
      R"( {"address": 5120, "size": 2096128, "requested_size": 0, "state": "inactive"}]}],)"
      "\n"
      R"("device_traces": [[{"action": "free_requested", "addr": 9000, "size": 512, "stream": 0},)"
      "\n"
      R"({"action": "free_completed", "addr": 9000, "size": 512, "stream": 0}]]})";
  TraceSource source(text, "late.json");
  const SnapshotSummary s = summarize_snapshot(source, 0);
  EXPECT_EQ(s.entries, 2u);
  EXPECT_EQ(s.stats.at("allocated_bytes.all.current"), 1024);
  EXPECT_EQ(s.stats.at("allocated_bytes.all.peak"), 1536);  // the freed 512 was live before
  EXPECT_EQ(s.stats.at("allocated_bytes.small_pool.freed"), 512);
  EXPECT_EQ(s.stats.at("inactive_split_bytes.all.current"), 2096128);
  EXPECT_EQ(s.stats.at("requested_bytes.all.current"), 1000);
  EXPECT_EQ(s.stats.at("segment.small_pool.current"), 1);
}

TEST(SnapshotSummary, WithoutTracesPeakIsCurrent) {
  const std::string text =
      R"({"segments": [{"device": 1, "address": 4096, "total_size": 2097152, "segment_type": "small",)"
      R"( "blocks": [{"address": 4096, "size": 2097152, "state": "active_allocated"}]}]})";
  TraceSource source(text, "no_traces.json");
  const SnapshotSummary s = summarize_snapshot(source, 1);
  EXPECT_FALSE(s.has_traces);
  EXPECT_EQ(s.stats.at("allocated_bytes.all.peak"), 2097152);
  EXPECT_EQ(s.stats.at("allocated_bytes.all.allocated"), 0);
  EXPECT_NE(render_snapshot_summary(s, "no_traces.json", 1, true)
                .find("Peak Usage is Cur Usage and the totals are 0: the snapshot has no "
                      "device_traces[1] (record it with memory history on)\n"),
            std::string::npos);
}

void expect_error(const std::string& text, const std::string& message) {
  TraceSource source(text, "bad.json");
  try {
    (void)summarize_snapshot(source, 0);
    ADD_FAILURE() << "no error; expected " << message;
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST(SnapshotSummary, MalformedSnapshotsNameTheLineAndPath) {
  expect_error(R"({"segments": {}})", "bad.json:1: segments: expected an array, got '{...}'");
  expect_error("{\"segments\": [\n{\"device\": 0, \"address\": 1, \"total_size\": -2}]}",
               "bad.json:2: segments[0].total_size: expected a non-negative integer, got '-2'");
  expect_error("{\"segments\": [{\"device\": 0, \"address\": 1, \"total_size\": 2, "
               "\"segment_type\": \"tiny\", \"blocks\": []}]}",
               "bad.json:1: segments[0].segment_type: expected \"small\" or \"large\", got "
               "'tiny'");
  expect_error("{\"device_traces\": [[\n{\"action\": \"realloc\", \"size\": 1}]]}",
               "bad.json:2: device_traces[0][0].action: unknown action 'realloc' (expected "
               "alloc, free_requested, free_completed, free, segment_alloc, segment_free, "
               "segment_map, segment_unmap, snapshot or oom)");
  expect_error("[1]", "bad.json: expected a JSON object, got '[...]'");
  TraceSource source(std::string_view(R"({"device_traces": [[]]})"), "one.json");
  try {
    (void)summarize_snapshot(source, 1);
    ADD_FAILURE() << "no error for a device the snapshot does not have";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "one.json: --device 1: the snapshot has device_traces for 1 device");
  }
}

}  // namespace
}  // namespace accel::replay
