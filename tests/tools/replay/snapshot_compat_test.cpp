// The replay's snapshot reader reads both writers of the format: the runtime's
// (accel::memory_snapshot_json, every action of Note [Snapshot trace entries]) and PyTorch's
// (torch.cuda.memory._snapshot() as tools/convert_memory_snapshot.py turns it into JSON:
// compile_context, user_metadata, device_free, entries without frames, allocator_settings,
// external_annotations).
#include <gtest/gtest.h>

#include <string>

#include "accel/memory.h"
#include "trace.h"

namespace accel::replay {
namespace {

TEST(SnapshotCompat, ReadsWhatTheRuntimeWrites) {
  const std::vector<HostFrame> site = {HostFrame{"train.cpp", 3, "step"}};
  MemorySnapshot snapshot;
  SegmentSnapshot segment;
  segment.segment_type = "large";
  segment.blocks.push_back(BlockSnapshot{0x1000, 4096, 4000, "active_allocated", site});
  snapshot.segments.push_back(segment);
  snapshot.device_traces = {
      {TraceEntry{"segment_alloc", 0x1000, 2097152, 0, 1, site},
       TraceEntry{"alloc", 0x1000, 4000, 0, 2, site},
       TraceEntry{"segment_map", 0x200000, 2097152, 7, 3, site},
       TraceEntry{"alloc", 0x200000, 512, 7, 4, site},
       TraceEntry{"free_requested", 0x200000, 512, 7, 5, site},
       TraceEntry{"free_completed", 0x200000, 512, 7, 6, site},
       TraceEntry{"segment_unmap", 0x200000, 2097152, 7, 7, {}},
       TraceEntry{"oom", 1234, 1 << 30, 0, 8, {}},
       TraceEntry{"snapshot", 0, 4096, 0, 9, {}},
       TraceEntry{"segment_free", 0x9000, 2097152, 0, 10, {}}}};
  const Trace trace = read_snapshot_text(memory_snapshot_json(snapshot), "accel.json", 0);
  EXPECT_EQ(trace.allocations, 2u);
  EXPECT_EQ(trace.frees, 1u);
  EXPECT_EQ(trace.ignored_entries, 6u);
  EXPECT_EQ(trace.unmatched_frees, 0u);
  EXPECT_EQ(trace.streams, (std::vector<std::int64_t>{0, 7}));
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0].bytes, 4000u);
  EXPECT_EQ(trace.events[1].stream, 1u);
  EXPECT_EQ(trace.events[2].kind, TraceEvent::Kind::kFree);
  EXPECT_EQ(trace.events[2].id, 1u);
  // One event per line (Note [One event per line]): line 1 opens the segments, line 2 is the
  // segment, the entries start on line 3, so each event names its entry's own line.
  EXPECT_EQ(trace.events[0].line, 4u);
  EXPECT_EQ(trace.events[1].line, 6u);
  EXPECT_EQ(trace.events[2].line, 7u);  // the free_requested
}

// A snapshot in the shape PyTorch's writer gives it (keys in its order, one entry per line
// as the converter writes them), device 1 of two.
TEST(SnapshotCompat, ReadsWhatPyTorchWrites) {
  const std::string text = R"({"segments": [{"device": 1, "address": 139800000000000,
 "total_size": 20971520, "allocated_size": 1024, "active_size": 1024, "requested_size": 1000,
 "stream": 0, "segment_type": "large", "segment_pool_id": [0, 0], "is_expandable": false,
 "frames": [], "blocks": [{"address": 139800000000000, "size": 1024, "requested_size": 1000,
 "state": "active_allocated", "frames": [{"name": "forward", "filename": "model.py", "line": 9}]}]}],
"device_traces": [[],
[
{"action": "segment_alloc", "addr": 139800000000000, "size": 20971520, "stream": 0, "compile_context": "N/A", "user_metadata": "", "time_us": 1700000000000000},
{"action": "alloc", "addr": 139800000000000, "size": 1000, "stream": 0, "compile_context": "N/A", "user_metadata": "", "time_us": 1700000000000001, "frames": [{"name": "forward", "filename": "model.py", "line": 9}]},
{"action": "alloc", "addr": 139800000001024, "size": 5000, "stream": 94001172512768, "compile_context": "Torch-Compiled Region: 0/0", "user_metadata": "step 3", "time_us": 1700000000000002},
{"action": "free_requested", "addr": 139800000001024, "size": 5000, "stream": 94001172512768, "compile_context": "N/A", "user_metadata": "", "time_us": 1700000000000003},
{"action": "oom", "device_free": 4096, "size": 85899345920, "stream": 0, "compile_context": "N/A", "user_metadata": "", "time_us": 1700000000000004},
{"action": "free_completed", "addr": 139800000001024, "size": 5000, "stream": 94001172512768, "compile_context": "N/A", "user_metadata": "", "time_us": 1700000000000005},
{"action": "snapshot", "addr": 0, "size": 1024, "stream": 0, "compile_context": "N/A", "user_metadata": "", "time_us": 1700000000000006}
]],
"allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": null, "max_split_size": -1,
 "garbage_collection_threshold": 0.0, "expandable_segments": false,
 "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": false,
 "pinned_use_cuda_host_register": false, "graph_capture_record_stream_reuse": false,
 "roundup_power2_divisions": {"1": 0, "2": 0}},
"external_annotations": [{"stage": "START", "name": "forward", "device": 1, "time_us": 17}]}
)";
  const Trace trace = read_snapshot_text(text, "torch.json", 1);
  EXPECT_EQ(trace.allocations, 2u);
  EXPECT_EQ(trace.frees, 1u);
  EXPECT_EQ(trace.ignored_entries, 3u);
  EXPECT_EQ(trace.streams, (std::vector<std::int64_t>{0, 94001172512768}));
  ASSERT_EQ(trace.events.size(), 3u);
  EXPECT_EQ(trace.events[0].line, 9u);
  EXPECT_EQ(trace.events[1].line, 10u);
  EXPECT_EQ(trace.events[2].line, 11u);  // the free_requested; its free_completed is the same free
  EXPECT_EQ(trace.events[2].bytes, 5000u);
}

}  // namespace
}  // namespace accel::replay
