// accel::memory_snapshot_json: PyTorch's snapshot shape, exact values read back with a JSON
// parser, deterministic key order and bytes, and string escaping edge cases.

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "accel/memory.h"
#include "allocator/snapshot_json.h"

namespace accel {
namespace {

using nlohmann::json;

// The JSON text of `text` as a string value.
std::string escaped(std::string_view text) {
  std::string out;
  detail::alloc::append_json_string(out, text);
  return out;
}

MemorySnapshot sample() {
  MemorySnapshot snapshot;
  SegmentSnapshot segment;
  segment.device = 1;
  segment.address = 0x7f0000200000;
  segment.total_size = 2097152;
  segment.stream = 3;
  segment.segment_type = "small";
  segment.allocated_size = 1024;
  segment.active_size = 1536;
  segment.requested_size = 1500;
  segment.is_expandable = false;
  segment.segment_pool_id = {0, 7};
  BlockSnapshot used{0x7f0000200000, 1024, 1000, "active_allocated",
                     {HostFrame{"train.cpp", 42, "step"}, HostFrame{"main.cpp", 7, "main"}}};
  BlockSnapshot pending{0x7f0000200400, 512, 500, "active_pending_free", {}};
  BlockSnapshot rest{0x7f0000200600, 2097152 - 1536, 0, "inactive", {}};
  segment.blocks = {used, pending, rest};
  snapshot.segments.push_back(segment);

  SegmentSnapshot large;
  large.device = 2;
  large.address = 0xffffffffffe00000;  // above 2^53: must survive exactly
  large.total_size = 20971520;
  large.stream = 0;
  large.segment_type = "large";
  large.is_expandable = true;
  snapshot.segments.push_back(large);

  snapshot.device_traces = {
      {},
      {TraceEntry{"segment_alloc", 0x7f0000200000, 2097152, 3, 1700000000000000, {}},
       TraceEntry{"alloc", 0x7f0000200000, 1024, 3, 1700000000000001,
                  {HostFrame{"train.cpp", 42, "step"}}}},
      {TraceEntry{"oom", 123456, 4096, -1, 5, {}}}};
  return snapshot;
}

TEST(SnapshotJson, AnEmptySnapshotIsEmptyLists) {
  EXPECT_EQ(memory_snapshot_json(MemorySnapshot{}),
            R"({"segments":[],"device_traces":[],"external_annotations":[]})");
}

// Note [One event per line]: every segment and every history entry opens a line, so a reader's
// line numbers name events.
TEST(SnapshotJson, EachSegmentAndEntryIsALineOfItsOwn) {
  const std::string text = memory_snapshot_json(sample());
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  lines.push_back(text.substr(start));
  const auto starts = [](const std::string& line, std::string_view head) {
    return line.rfind(head, 0) == 0;
  };
  const auto ends = [](const std::string& line, std::string_view tail) {
    return line.size() >= tail.size() &&
           line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
  };
  ASSERT_EQ(lines.size(), 6u) << text;  // the header, two segments, three entries
  EXPECT_EQ(lines[0], R"({"segments":[)");
  EXPECT_TRUE(starts(lines[1], R"({"device":1,)") && ends(lines[1], "}]},")) << lines[1];
  EXPECT_TRUE(starts(lines[2], R"({"device":2,)") && ends(lines[2], R"(]}],"device_traces":[[],[)"))
      << lines[2];
  EXPECT_TRUE(starts(lines[3], R"({"action":"segment_alloc",)") && ends(lines[3], "},"))
      << lines[3];
  EXPECT_TRUE(starts(lines[4], R"({"action":"alloc",)") && ends(lines[4], "}],[")) << lines[4];
  EXPECT_TRUE(starts(lines[5], R"({"action":"oom",)") &&
              ends(lines[5], R"(}]],"external_annotations":[]})"))
      << lines[5];
}

TEST(SnapshotJson, ValuesReadBackExactly) {
  const json doc = json::parse(memory_snapshot_json(sample()));
  ASSERT_EQ(doc.size(), 3u);
  EXPECT_EQ(doc.at("external_annotations"), json::array());
  ASSERT_EQ(doc.at("segments").size(), 2u);
  const json& s = doc["segments"][0];
  EXPECT_EQ(s.size(), 12u);
  EXPECT_EQ(s.at("frames"), json::array());
  EXPECT_EQ(s.at("device"), 1);
  EXPECT_EQ(s.at("address").get<std::uint64_t>(), 0x7f0000200000u);
  EXPECT_EQ(s.at("total_size"), 2097152);
  EXPECT_EQ(s.at("allocated_size"), 1024);
  EXPECT_EQ(s.at("active_size"), 1536);
  EXPECT_EQ(s.at("requested_size"), 1500);
  EXPECT_EQ(s.at("stream"), 3);
  EXPECT_EQ(s.at("segment_type"), "small");
  EXPECT_EQ(s.at("segment_pool_id"), json::array({0, 7}));
  EXPECT_EQ(s.at("is_expandable"), false);
  ASSERT_EQ(s.at("blocks").size(), 3u);
  const json& b = s["blocks"][0];
  EXPECT_EQ(b.size(), 5u);
  EXPECT_EQ(b.at("address").get<std::uint64_t>(), 0x7f0000200000u);
  EXPECT_EQ(b.at("size"), 1024);
  EXPECT_EQ(b.at("requested_size"), 1000);
  EXPECT_EQ(b.at("state"), "active_allocated");
  EXPECT_EQ(b.at("frames"), json::parse(R"([{"filename":"train.cpp","line":42,"name":"step"},
                                             {"filename":"main.cpp","line":7,"name":"main"}])"));
  EXPECT_EQ(s["blocks"][1].at("state"), "active_pending_free");
  EXPECT_EQ(s["blocks"][2].at("size"), 2097152 - 1536);
  EXPECT_EQ(s["blocks"][2].at("frames"), json::array());

  const json& l = doc["segments"][1];
  EXPECT_EQ(l.at("address").get<std::uint64_t>(), 0xffffffffffe00000u);
  EXPECT_EQ(l.at("is_expandable"), true);
  EXPECT_EQ(l.at("segment_type"), "large");
  EXPECT_EQ(l.at("blocks"), json::array());

  const json& traces = doc.at("device_traces");
  ASSERT_EQ(traces.size(), 3u);
  EXPECT_EQ(traces[0], json::array());
  ASSERT_EQ(traces[1].size(), 2u);
  const json& e = traces[1][1];
  EXPECT_EQ(e.size(), 8u);
  EXPECT_EQ(e.at("action"), "alloc");
  EXPECT_EQ(e.at("addr").get<std::uint64_t>(), 0x7f0000200000u);
  EXPECT_EQ(e.at("size"), 1024);
  EXPECT_EQ(e.at("stream"), 3);
  EXPECT_EQ(e.at("time_us").get<std::uint64_t>(), 1700000000000001u);
  EXPECT_EQ(e.at("frames")[0].at("line"), 42);
  EXPECT_EQ(traces[1][0].at("action"), "segment_alloc");
  EXPECT_EQ(traces[2][0].at("action"), "oom");
  EXPECT_EQ(traces[2][0].at("device_free"), 123456);
  EXPECT_EQ(traces[2][0].at("stream"), -1);
}

TEST(SnapshotJson, KeysAreWrittenInAFixedOrder) {
  MemorySnapshot snapshot;
  snapshot.segments.push_back(SegmentSnapshot{});
  snapshot.segments[0].segment_type = "large";
  snapshot.segments[0].blocks.push_back(BlockSnapshot{16, 32, 8, "inactive", {{"f", 1, "g"}}});
  snapshot.device_traces = {{TraceEntry{"free_completed", 16, 32, 0, 9, {}}}};
  EXPECT_EQ(memory_snapshot_json(snapshot),
            "{\"segments\":[\n"  // Note [One event per line]
            R"({"device":0,"address":0,"total_size":0,"allocated_size":0,)"
            R"("active_size":0,"requested_size":0,"stream":0,"segment_type":"large",)"
            R"("segment_pool_id":[0,0],"is_expandable":false,"frames":[],"blocks":[{"address":16,)"
            R"("size":32,"requested_size":8,"state":"inactive","frames":[{"filename":"f",)"
            R"("line":1,"name":"g"}]}]}],"device_traces":[[)"
            "\n"
            R"({"action":"free_completed",)"
            R"("addr":16,"size":32,"stream":0,"compile_context":"N/A","user_metadata":"",)"
            R"("time_us":9}]],"external_annotations":[]})");
  EXPECT_EQ(memory_snapshot_json(sample()), memory_snapshot_json(sample()));
}

TEST(SnapshotJson, QuotesBackslashesAndControlCharactersAreEscaped) {
  EXPECT_EQ(escaped(R"(say "hi")"), R"("say \"hi\"")");
  EXPECT_EQ(escaped(R"(C:\dir\f.cpp)"), R"("C:\\dir\\f.cpp")");
  EXPECT_EQ(escaped("a\nb\tc\rd\be\ff"), R"("a\nb\tc\rd\be\ff")");
  EXPECT_EQ(escaped(std::string("\x00\x01\x1f", 3)), R"("\u0000\u0001\u001f")");
  EXPECT_EQ(escaped("\x7f/"), "\"\x7f/\"");  // DEL and '/' need no escape
  EXPECT_EQ(escaped(""), R"("")");
}

TEST(SnapshotJson, ValidUtf8PassesThroughUnchanged) {
  const std::string text = "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80";  // é € 😀
  EXPECT_EQ(escaped(text), "\"" + text + "\"");
}

TEST(SnapshotJson, InvalidUtf8BytesBecomeReplacementCharacters) {
  EXPECT_EQ(escaped("a\xff" "b"), R"("a\ufffdb")");           // never valid
  EXPECT_EQ(escaped("\x80"), R"("\ufffd")");                  // stray continuation
  EXPECT_EQ(escaped("\xc3"), R"("\ufffd")");                  // truncated
  EXPECT_EQ(escaped("\xc0\xaf"), R"("\ufffd\ufffd")");        // overlong '/'
  EXPECT_EQ(escaped("\xe0\x80\xaf"), R"("\ufffd\ufffd\ufffd")");  // overlong
  EXPECT_EQ(escaped("\xed\xa0\x80"), R"("\ufffd\ufffd\ufffd")");  // surrogate U+D800
  EXPECT_EQ(escaped("\xf4\x90\x80\x80"), R"("\ufffd\ufffd\ufffd\ufffd")");  // > U+10FFFF
  EXPECT_EQ(escaped("\xe2\x82" "x"), R"("\ufffd\ufffdx")");   // cut short by ASCII
}

TEST(SnapshotJson, EveryByteStringGivesParsableJsonThatRoundTripsValidText) {
  MemorySnapshot snapshot;
  snapshot.device_traces.resize(1);
  std::string all_bytes;
  for (int c = 0; c < 256; ++c) all_bytes += static_cast<char>(c);
  const std::string valid = "x\"\\\n\x01 caf\xc3\xa9";
  snapshot.device_traces[0].push_back(TraceEntry{"alloc", 1, 2, 0, 3, {{all_bytes, 1, valid}}});
  const json doc = json::parse(memory_snapshot_json(snapshot));
  const json& frame = doc["device_traces"][0][0]["frames"][0];
  EXPECT_EQ(frame.at("name").get<std::string>(), valid);
  const std::string read = frame.at("filename").get<std::string>();
  EXPECT_EQ(read.substr(0, 128), all_bytes.substr(0, 128));  // ASCII exactly
  // 128 invalid single bytes, each U+FFFD (3 bytes of UTF-8).
  std::string replacements;
  for (int i = 0; i < 128; ++i) replacements += "\xef\xbf\xbd";
  EXPECT_EQ(read.substr(128), replacements);
}

}  // namespace
}  // namespace accel
