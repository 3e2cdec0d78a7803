// What the trace readers refuse, exactly: files that are not regular files (Note [Bounded
// readers]), duplicate keys and columns, frees that match no live allocation (Note [Frees
// of unknown addresses]); and that streaming from a file (chunk by chunk) gives what reading
// the same text in memory gives, lines included.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "trace.h"
#include "trace_source.h"

namespace accel::replay {
namespace {

// A fresh directory for one test, removed with everything in it afterwards.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "accel-replay-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string path = (path_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The TraceError message of `read`, or "no error".
template <typename Read>
std::string error_of(Read read) {
  try {
    (void)read();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

std::string snapshot_error(const std::string& entries) {
  return error_of([&] {
    return read_snapshot_text("{\"device_traces\": [[\n" + entries + "\n]]}\n", "t.json", 0);
  });
}

std::string rmm_error(const std::string& rows) {
  return error_of(
      [&] { return read_rmm_text("Thread,Time,Action,Pointer,Size,Stream\n" + rows, "t.csv"); });
}

// ---- files that are not traces: refused before a byte is read ----

TEST(TraceFile, AFifoIsRefusedWithoutWaitingForAWriter) {
  TempDir dir;
  const std::string fifo = dir.path("trace.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { return read_trace(fifo); }),
            "trace '" + fifo + "': is a FIFO (named pipe), not a regular file");
}

TEST(TraceFile, ACharacterDeviceIsRefused) {
  EXPECT_EQ(error_of([] { return read_trace("/dev/zero"); }),
            "trace '/dev/zero': is a character device, not a regular file");
}

TEST(TraceFile, ADirectoryIsRefused) {
  TempDir dir;
  const std::string d = dir.path("traces");
  ASSERT_EQ(::mkdir(d.c_str(), 0700), 0);
  EXPECT_EQ(error_of([&] { return read_trace(d); }),
            "trace '" + d + "': is a directory, not a regular file");
}

TEST(TraceFile, MissingEmptyAndBlankFiles) {
  TempDir dir;
  const std::string missing = dir.path("none.json");
  EXPECT_EQ(error_of([&] { return read_trace(missing); }),
            "trace '" + missing + "': cannot open: No such file or directory");
  const std::string empty = dir.file("empty.json", "");
  EXPECT_EQ(error_of([&] { return read_trace(empty); }), empty + ": empty file");
  const std::string blank = dir.file("blank.csv", " \n\n\t\r\n");
  EXPECT_EQ(error_of([&] { return read_trace(blank); }), blank + ": empty file");
}

TEST(TraceFile, AFirstLineLongerThanAnyHeaderIsNotATrace) {
  TempDir dir;
  const std::string path = dir.file("binary.bin", std::string(3 << 20, 'x'));
  EXPECT_EQ(error_of([&] { return read_trace(path); }),
            path + ":1: not a trace: expected a PyTorch snapshot (a JSON object with "
                   "device_traces) or an RMM log (CSV with the header "
                   "Thread,Time,Action,Pointer,Size,Stream)");
}

TEST(TraceFile, ARowLongerThanAMebibyteIsNamed) {
  TempDir dir;
  const std::string path = dir.file(
      "long.csv", "Thread,Time,Action,Pointer,Size,Stream\n1,t,allocate,0x10,1," +
                      std::string(2 << 20, '0') + "\n");
  EXPECT_EQ(error_of([&] { return read_trace(path); }),
            path + ":2: line longer than 1048576 bytes (an RMM log row is a few dozen)");
}

// The size is checked when the file is opened; a file that grows past the limit while it
// is read is refused at the limit rather than read without end.
TEST(TraceFile, AFileThatGrowsPastTheLimitWhileReadIsRefused) {
  TempDir dir;
  const std::string path = dir.file("growing.csv", "Thread");
  TraceSource source = TraceSource::open_file(path, 10);
  std::ofstream(path, std::ios::app) << ",Time,Action,Pointer,Size,Stream\n";
  EXPECT_EQ(error_of([&] {
              while (!source.at_end()) source.advance();
              return 0;
            }),
            "trace '" + path + "': grew past the limit of 10 bytes while being read");
}

TEST(TraceFile, AFileLargerThanTheLimitIsRefusedWhenOpened) {
  TempDir dir;
  const std::string path = dir.file("big.csv", std::string(11, 'x'));
  EXPECT_EQ(error_of([&] { return TraceSource::open_file(path, 10); }),
            "trace '" + path + "': is 11 bytes, over the limit of 10 bytes");
}

// ---- streaming: a file of several chunks reads as its text does ----

std::string many_entries(std::size_t count) {
  std::string text = "\n\n{\"segments\": [], \"device_traces\": [[\n";
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t addr = 4096 * (i % 64 + 1);
    text += "{\"action\": \"alloc\", \"addr\": " + std::to_string(addr) +
            ", \"size\": 512, \"stream\": 0, \"frames\": [{\"filename\": \"train.py\", "
            "\"line\": 7, \"name\": \"step\"}]},\n{\"action\": \"free_requested\", \"addr\": " +
            std::to_string(addr) + "}" + (i + 1 == count ? "" : ",") + "\n";
  }
  return text + "]]}\n";
}

TEST(TraceFile, StreamingFromAFileOfManyChunksGivesTheEventsOfTheText) {
  TempDir dir;
  const std::string text = many_entries(40000);  // ~5 MiB: five chunks and more
  ASSERT_GT(text.size(), 4 * TraceSource::kChunkBytes);
  const std::string path = dir.file("big.json", text);
  const Trace from_file = read_trace(path);
  const Trace from_text = read_snapshot_text(text, path, 0);
  ASSERT_EQ(from_file.events.size(), 80000u);
  ASSERT_EQ(from_text.events.size(), 80000u);
  for (std::size_t i = 0; i < from_file.events.size(); ++i) {
    ASSERT_EQ(from_file.events[i].line, from_text.events[i].line) << i;
    ASSERT_EQ(from_file.events[i].id, from_text.events[i].id) << i;
  }
  // Two blank lines, the opening line, then one entry per line.
  EXPECT_EQ(from_file.events.front().line, 4u);
  EXPECT_EQ(from_file.events.back().line, 4u + 79999u);
}

TEST(TraceFile, CsvRowsAcrossChunkBoundariesKeepTheirLines) {
  TempDir dir;
  std::string text = "Thread,Time,Action,Pointer,Size,Stream\n";
  std::size_t rows = 0;
  while (text.size() < 3 * TraceSource::kChunkBytes) {
    text += "140229,14:35:11.000013,allocate,0x7f4a2c000000,274331,0x7f00aa001230\n"
            "140229,14:35:11.000026,free,0x7f4a2c000000,274331,0x7f00aa001230\n";
    rows += 2;
  }
  const std::string path = dir.file("big.csv", text + "1,t,allocate,0x10,abc,0x0\n");
  EXPECT_EQ(error_of([&] { return read_trace(path); }),
            path + ":" + std::to_string(rows + 2) + ": Size: expected a non-negative integer, got "
                   "'abc'");
  const Trace trace = read_trace(dir.file("good.csv", text));
  EXPECT_EQ(trace.events.size(), rows);
  EXPECT_EQ(trace.events.back().line, rows + 1);
}

TEST(TraceFile, JsonErrorsCountBytesFromTheStartOfTheFile) {
  TempDir dir;
  const std::string path = dir.file("ws.json", "\n\n  {\"device_traces\": [[}\n");
  EXPECT_EQ(error_of([&] { return read_trace(path); }),
            path + ":3: malformed JSON at byte 25: unexpected '}'; expected a value");
}

// ---- duplicates are refused, never "the last one wins" ----

TEST(SnapshotChecks, ADuplicateKeyInAnEntryIsNamed) {
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 1, \"size\": 10, \"stream\": 0},\n"
                           "{\"action\": \"free_requested\", \"addr\": 1, \"addr\": 2}"),
            "t.json:3: device_traces[0][1].addr: duplicate key (an entry names each key once)");
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"action\": \"free\", \"addr\": 1}"),
            "t.json:2: device_traces[0][0].action: duplicate key (an entry names each key once)");
  // Keys the reader does not use are named once too.
  EXPECT_EQ(snapshot_error("{\"action\": \"oom\", \"note\": 1,\n \"note\": 2}"),
            "t.json:3: device_traces[0][0].note: duplicate key (an entry names each key once)");
}

TEST(SnapshotChecks, ADuplicateKeyOfTheSnapshotIsNamed) {
  EXPECT_EQ(error_of([] {
              return read_snapshot_text("{\"device_traces\": [[]],\n\"device_traces\": [[]]}",
                                        "t.json", 0);
            }),
            "t.json:2: device_traces: duplicate key (the snapshot names each key once)");
  EXPECT_EQ(error_of([] {
              return read_snapshot_text("{\"segments\": [], \"segments\": [], \"device_traces\": []}",
                                        "t.json", 0);
            }),
            "t.json:1: segments: duplicate key (the snapshot names each key once)");
}

TEST(SnapshotChecks, AnEntryThatIsNoObjectIsNamedAtItsLine) {
  EXPECT_EQ(snapshot_error("{\"action\": \"oom\"},\n\n[1, 2]"),
            "t.json:4: device_traces[0][1]: expected an object, got '[...]'");
  EXPECT_EQ(snapshot_error("\"alloc\""),
            "t.json:2: device_traces[0][0]: expected an object, got '\"alloc\"'");
}

TEST(SnapshotChecks, FieldsOfTheWrongTypeAreShown) {
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": -4, \"size\": 1, \"stream\": 0}"),
            "t.json:2: device_traces[0][0].addr: expected a non-negative integer, got '-4'");
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 1e3, \"size\": 1, \"stream\": 0}"),
            "t.json:2: device_traces[0][0].addr: expected a non-negative integer, got '1000.0'");
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 1, \"size\": {\"a\": 1}, "
                           "\"stream\": 0}"),
            "t.json:2: device_traces[0][0].size: expected a non-negative integer, got '{...}'");
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 1, \"size\": 1, \"stream\": true}"),
            "t.json:2: device_traces[0][0].stream: expected an integer, got 'true'");
  EXPECT_EQ(snapshot_error("{\"action\": 7}"),
            "t.json:2: device_traces[0][0].action: expected a string, got '7'");
}

TEST(RmmChecks, ADuplicateColumnIsNamed) {
  EXPECT_EQ(error_of([] {
              return read_rmm_text("Thread,Time,Action,Pointer,Size,Stream,Size\n", "t.csv");
            }),
            "t.csv:1: header: duplicate column 'Size' (columns 5 and 7) in "
            "'Thread,Time,Action,Pointer,Size,Stream,Size'");
  EXPECT_EQ(error_of([] {
              return read_rmm_text("\nThread,Thread,Action,Pointer,Size,Stream\n", "t.csv");
            }),
            "t.csv:2: header: duplicate column 'Thread' (columns 1 and 2) in "
            "'Thread,Thread,Action,Pointer,Size,Stream'");
}

// ---- frees that match no live allocation ----

TEST(SnapshotChecks, AFreeOfAnAddressFreedBeforeIsADoubleFree) {
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 4096, \"size\": 10, \"stream\": 0},\n"
                           "{\"action\": \"free_requested\", \"addr\": 4096},\n"
                           "{\"action\": \"free_completed\", \"addr\": 4096},\n"
                           "{\"action\": \"free_requested\", \"addr\": 4096}"),
            "t.json:5: free_requested of address 0x1000, which is not live (freed at line 4 and "
            "not allocated again since)");
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 4096, \"size\": 10, \"stream\": 0},\n"
                           "{\"action\": \"free_requested\", \"addr\": 4096},\n"
                           "{\"action\": \"free\", \"addr\": 4096}"),
            "t.json:4: free of address 0x1000, which is not live (free requested at line 3 and "
            "not allocated again since)");
}

TEST(SnapshotChecks, ASecondCompletionIsAnError) {
  EXPECT_EQ(snapshot_error("{\"action\": \"alloc\", \"addr\": 4096, \"size\": 10, \"stream\": 0},\n"
                           "{\"action\": \"free_completed\", \"addr\": 4096},\n"
                           "{\"action\": \"free_completed\", \"addr\": 4096}"),
            "t.json:4: free_completed of address 0x1000, whose free completed at line 3 (not "
            "allocated again since)");
}

// A snapshot that skipped a free_completed: the block allocated next at the address stays
// live through the old block's late completion, and its own free is its own.
TEST(SnapshotChecks, AnAllocationWhileAFreeIsPendingOwesTheOldCompletion) {
  const Trace trace = read_snapshot_text(
      "{\"device_traces\": [[\n"
      "{\"action\": \"alloc\", \"addr\": 4096, \"size\": 10, \"stream\": 0},\n"
      "{\"action\": \"free_requested\", \"addr\": 4096},\n"
      "{\"action\": \"alloc\", \"addr\": 4096, \"size\": 20, \"stream\": 0},\n"
      "{\"action\": \"free_completed\", \"addr\": 4096},\n"
      "{\"action\": \"free_requested\", \"addr\": 4096},\n"
      "{\"action\": \"free_completed\", \"addr\": 4096}\n]]}",
      "t.json", 0);
  ASSERT_EQ(trace.events.size(), 4u);
  EXPECT_EQ(trace.events[2].kind, TraceEvent::Kind::kAllocate);
  EXPECT_EQ(trace.events[3].kind, TraceEvent::Kind::kFree);
  EXPECT_EQ(trace.events[3].id, 1u);
  EXPECT_EQ(trace.events[3].line, 6u);
  EXPECT_EQ(trace.unmatched_frees, 0u);
}

// The window: frees of blocks from before it are one each, and the address is reusable.
TEST(SnapshotChecks, BlocksFromBeforeTheWindowAreCountedOnceAndMayBeReused) {
  const Trace trace = read_snapshot_text(
      "{\"device_traces\": [[\n"
      "{\"action\": \"free_requested\", \"addr\": 4096},\n"
      "{\"action\": \"free_completed\", \"addr\": 4096},\n"
      "{\"action\": \"free\", \"addr\": 8192},\n"
      "{\"action\": \"free_completed\", \"addr\": 12288},\n"
      "{\"action\": \"alloc\", \"addr\": 4096, \"size\": 10, \"stream\": 0},\n"
      "{\"action\": \"free_requested\", \"addr\": 4096}\n]]}",
      "t.json", 0);
  EXPECT_EQ(trace.unmatched_frees, 3u);
  EXPECT_EQ(trace.allocations, 1u);
  EXPECT_EQ(trace.frees, 1u);
  ASSERT_EQ(trace.events.size(), 2u);
  EXPECT_EQ(trace.events[1].line, 7u);
}

TEST(RmmChecks, AFreeOfAPointerTheLogNeverAllocatedIsAnError) {
  EXPECT_EQ(rmm_error("1,t,allocate,0x10,64,0x0\n1,t,free,0x20,64,0x0\n"),
            "t.csv:3: free of address 0x20, which the log never allocated (an RMM log holds "
            "every allocation from its start: is it complete?)");
}

TEST(RmmChecks, ADoubleFreeIsAnError) {
  EXPECT_EQ(rmm_error("1,t,allocate,0x10,64,0x0\n1,t,free,0x10,64,0x0\n1,t,free,0x10,64,0x0\n"),
            "t.csv:4: free of address 0x10, which is not live (freed at line 3 and not allocated "
            "again since)");
  // Freed, then allocated again: a second life, not an error.
  const Trace trace = read_rmm_text(
      "Thread,Time,Action,Pointer,Size,Stream\n1,t,allocate,0x10,64,0x0\n"
      "1,t,free,0x10,64,0x0\n1,t,allocate,0x10,32,0x0\n1,t,free,0x10,32,0x0\n",
      "t.csv");
  EXPECT_EQ(trace.frees, 2u);
  EXPECT_EQ(trace.events[3].bytes, 32u);
}

}  // namespace
}  // namespace accel::replay
