// The snapshot's trace entries in PyTorch's shape, action by action (Note [Snapshot trace
// entries] in allocator/snapshot_json.h): each test lists the exact keys, in the order
// written, with the JSON type of each value, as PyTorch's writer
// (torch/csrc/cuda/memory_snapshot.cpp) produces them, and checks the values.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "accel/memory.h"
#include "allocator/snapshot_json.h"

namespace accel {
namespace {

using nlohmann::ordered_json;  // keeps the order keys were written in

// "key:type" for each key of `object`, in order; numbers are "integer" or "float".
std::vector<std::string> shape(const ordered_json& object) {
  std::vector<std::string> out;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const ordered_json& v = it.value();
    const std::string type = v.is_number_integer() ? "integer"
                             : v.is_number()       ? "float"
                                                   : std::string(v.type_name());
    out.push_back(it.key() + ":" + type);
  }
  return out;
}

// The one entry `entry` as the writer writes it, parsed back.
ordered_json written(const TraceEntry& entry) {
  MemorySnapshot snapshot;
  snapshot.device_traces = {{entry}};
  const ordered_json doc = ordered_json::parse(memory_snapshot_json(snapshot));
  return doc.at("device_traces").at(0).at(0);
}

const std::vector<HostFrame> kSite = {HostFrame{"train.cpp", 42, "step"}};

// The keys of every action with a call site.
const std::vector<std::string> kWithFrames = {
    "action:string", "addr:integer",   "size:integer",    "stream:integer",
    "compile_context:string", "user_metadata:string", "time_us:integer", "frames:array"};
// ... and without one (PyTorch: an entry without a context has no "frames" key).
const std::vector<std::string> kWithoutFrames = {
    "action:string", "addr:integer",   "size:integer",    "stream:integer",
    "compile_context:string", "user_metadata:string", "time_us:integer"};

void expect_common_values(const ordered_json& e, const TraceEntry& entry) {
  EXPECT_EQ(e.at("action"), entry.action);
  EXPECT_EQ(e.at("size").get<std::uint64_t>(), entry.size);
  EXPECT_EQ(e.at("stream").get<std::int64_t>(), entry.stream);
  EXPECT_EQ(e.at("compile_context"), "N/A");
  EXPECT_EQ(e.at("user_metadata"), "");
  EXPECT_EQ(e.at("time_us").get<std::uint64_t>(), entry.time_us);
}

TEST(SnapshotTraceEntryShape, Alloc) {
  const TraceEntry entry{"alloc", 0x7f0000200000, 1024, 3, 1700000000000001, kSite};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000200000u);
  EXPECT_EQ(shape(e.at("frames").at(0)),
            (std::vector<std::string>{"filename:string", "line:integer", "name:string"}));
  EXPECT_EQ(e.at("frames").at(0).at("filename"), "train.cpp");
  EXPECT_EQ(e.at("frames").at(0).at("line"), 42);
  EXPECT_EQ(e.at("frames").at(0).at("name"), "step");
}

TEST(SnapshotTraceEntryShape, FreeRequested) {
  const TraceEntry entry{"free_requested", 0x7f0000200000, 1024, 3, 7, kSite};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000200000u);
}

TEST(SnapshotTraceEntryShape, FreeCompleted) {
  const TraceEntry entry{"free_completed", 0x7f0000200000, 1024, 0, 8, kSite};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000200000u);
}

TEST(SnapshotTraceEntryShape, SegmentAlloc) {
  const TraceEntry entry{"segment_alloc", 0x7f0000000000, 20971520, 0, 9, kSite};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000000000u);
}

TEST(SnapshotTraceEntryShape, SegmentFreeWithoutACallSiteHasNoFrames) {
  const TraceEntry entry{"segment_free", 0x7f0000000000, 20971520, 5, 10, {}};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithoutFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000000000u);
}

TEST(SnapshotTraceEntryShape, SegmentMap) {
  const TraceEntry entry{"segment_map", 0x7f0000400000, 2097152, 0, 11, kSite};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000400000u);
}

TEST(SnapshotTraceEntryShape, SegmentUnmap) {
  const TraceEntry entry{"segment_unmap", 0x7f0000400000, 2097152, 0, 12, {}};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithoutFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000400000u);
}

// PyTorch records a snapshot entry with addr 0 (unused) and the active bytes as its size.
TEST(SnapshotTraceEntryShape, Snapshot) {
  const TraceEntry entry{"snapshot", 0, 4096, 0, 13, {}};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), kWithoutFrames);
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("addr"), 0);
}

// The one action whose number is not an address: PyTorch names it device_free, and
// torch/cuda/_memory_viz.py's trace() reads e['device_free'] for it.
TEST(SnapshotTraceEntryShape, OomNamesTheFreeMemoryDeviceFree) {
  const TraceEntry entry{"oom", 123456789, 2097152, 0, 14, {}};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), (std::vector<std::string>{"action:string", "device_free:integer",
                                                "size:integer", "stream:integer",
                                                "compile_context:string",
                                                "user_metadata:string", "time_us:integer"}));
  expect_common_values(e, entry);
  EXPECT_EQ(e.at("device_free"), 123456789);
  EXPECT_FALSE(e.contains("addr"));
}

TEST(SnapshotTraceEntryShape, OomWithACallSiteKeepsItsFrames) {
  const TraceEntry entry{"oom", 5, 2097152, 0, 15, kSite};
  const ordered_json e = written(entry);
  EXPECT_EQ(shape(e), (std::vector<std::string>{"action:string", "device_free:integer",
                                                "size:integer", "stream:integer",
                                                "compile_context:string",
                                                "user_metadata:string", "time_us:integer",
                                                "frames:array"}));
}

TEST(SnapshotShape, TopLevelSegmentsAndBlocks) {
  MemorySnapshot snapshot;
  SegmentSnapshot segment;
  segment.segment_type = "small";
  segment.blocks.push_back(BlockSnapshot{16, 32, 8, "active_allocated", kSite});
  snapshot.segments.push_back(segment);
  snapshot.device_traces = {{}};
  const ordered_json doc = ordered_json::parse(memory_snapshot_json(snapshot));
  EXPECT_EQ(shape(doc), (std::vector<std::string>{"segments:array", "device_traces:array",
                                                  "external_annotations:array"}));
  const ordered_json& s = doc.at("segments").at(0);
  EXPECT_EQ(shape(s),
            (std::vector<std::string>{"device:integer", "address:integer", "total_size:integer",
                                      "allocated_size:integer", "active_size:integer",
                                      "requested_size:integer", "stream:integer",
                                      "segment_type:string", "segment_pool_id:array",
                                      "is_expandable:boolean", "frames:array", "blocks:array"}));
  EXPECT_EQ(s.at("frames"), ordered_json::array());
  EXPECT_EQ(shape(s.at("blocks").at(0)),
            (std::vector<std::string>{"address:integer", "size:integer",
                                      "requested_size:integer", "state:string", "frames:array"}));
  EXPECT_EQ(s.at("segment_pool_id"), ordered_json::array({0, 0}));
}

}  // namespace
}  // namespace accel
