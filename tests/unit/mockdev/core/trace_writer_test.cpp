// The timeline trace (Note [Timeline trace] in core/trace_writer.h): the exact Chrome
// trace-event structure, read back with nlohmann-json; bad paths, FIFOs with and without a
// reader, write errors; several machines in one file; no write from a forked child; the exit
// hook and control::finish_process.

#include "core/trace_writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/engine_lock.h"
#include "mockdev/exit.h"
#include "observer_driver.h"

namespace mockdev::testing {
namespace {

using nlohmann::json;

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "mockdev_trace_" + std::to_string(getpid()) + "_" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

json read_trace(const std::string& path) { return json::parse(read_file(path)); }

MachineSpec twin() {
  MachineSpec machine;
  machine.name = "twin";
  machine.devices.resize(2);
  machine.devices[0].name = "GPU A";
  machine.devices[1].name = "GPU B";
  return machine;
}

json process_name(int pid, const std::string& name) {
  return {{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}};
}
json sort_index(int pid) {
  return {
      {"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", pid}}}};
}
json thread_name(int pid, int tid, const std::string& name) {
  return {
      {"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

TEST(TraceWriter, WritesProcessesTracksSlicesFlowsAndRaceMarks) {
  const std::string path = temp_path("structure.json");
  auto file = core::TraceFile::open(path);
  ASSERT_NE(file, nullptr);
  EXPECT_EQ(
      read_trace(path),
      json::parse(
          R"({"displayTimeUnit":"ns","otherData":{"generator":"mockdev"},"traceEvents":[]})"));

  auto writer = core::make_trace_writer(*file, twin(), false);
  ObserverDriver d(*writer);
  const auto legacy = d.queue(0, "dev0/legacy");
  const auto s1 = d.queue(0, "dev0/stream 1");
  const auto s2 = d.queue(1, "dev1/stream 2");
  const OpId k = d.kernel(legacy, {}, {dev_range(0, 0, 8)});
  const OpId rec = d.record(legacy);
  const OpId wait = d.wait(s1, rec);
  const OpId set = d.enqueue(
      s2, {OpKind::kMemset, "cuMemsetD8Async", {}, {dev_range(1, 0, 8)}, {}, false, "t.cpp:7"});
  const OpId never = d.kernel(s2, {}, {});
  writer->on_complete(k, 1000, 2500);
  writer->on_complete(rec, 2500, 2500);
  writer->on_complete(wait, 2500, 2500);
  writer->on_complete(set, 0, 1234);
  control::Race race;
  race.first.op = k;
  race.second.op = set;
  race.text = "the report";
  writer->on_race(race);
  control::Race pending;
  pending.kind = control::RaceKind::kUnknownAccesses;
  pending.first.op = set;
  pending.second.op = never;  // never completes: marked at the latest completion (2.5 us)
  pending.text = "unknown";
  writer->on_race(pending);
  writer->flush();

  const json expected_events = json::array({
      process_name(1, "dev0: GPU A (twin)"),
      sort_index(1),
      thread_name(1, 1, "dev0/legacy"),
      thread_name(1, 2, "dev0/stream 1"),
      process_name(2, "dev1: GPU B (twin)"),
      sort_index(2),
      thread_name(2, 3, "dev1/stream 2"),
      {{"name", "kernel k"},
       {"cat", "kernel"},
       {"ph", "X"},
       {"pid", 1},
       {"tid", 1},
       {"ts", 1.0},
       {"dur", 1.5},
       {"args", {{"op", 1}}}},
      {{"name", "cuEventRecord"},
       {"cat", "event record"},
       {"ph", "X"},
       {"pid", 1},
       {"tid", 1},
       {"ts", 2.5},
       {"dur", 0.0},
       {"args", {{"op", 2}}}},
      {{"name", "cuStreamWaitEvent"},
       {"cat", "event wait"},
       {"ph", "X"},
       {"pid", 1},
       {"tid", 2},
       {"ts", 2.5},
       {"dur", 0.0},
       {"args", {{"op", 3}}}},
      {{"name", "cuMemsetD8Async"},
       {"cat", "memset"},
       {"ph", "X"},
       {"pid", 2},
       {"tid", 3},
       {"ts", 0.0},
       {"dur", 1.234},
       {"args", {{"op", 4}, {"call_site", "t.cpp:7"}}}},
      {{"name", "event"},
       {"cat", "event"},
       {"ph", "s"},
       {"id", 1},
       {"pid", 1},
       {"tid", 1},
       {"ts", 2.5}},
      {{"name", "event"},
       {"cat", "event"},
       {"ph", "f"},
       {"bp", "e"},
       {"id", 1},
       {"pid", 1},
       {"tid", 2},
       {"ts", 2.5}},
      {{"name", "data race"},
       {"cat", "race"},
       {"ph", "i"},
       {"s", "t"},
       {"pid", 1},
       {"tid", 1},
       {"ts", 1.0},
       {"args", {{"op", 1}, {"other_op", 4}, {"report", "the report"}}}},
      {{"name", "data race"},
       {"cat", "race"},
       {"ph", "i"},
       {"s", "t"},
       {"pid", 2},
       {"tid", 3},
       {"ts", 0.0},
       {"args", {{"op", 4}, {"other_op", 1}, {"report", "the report"}}}},
      {{"name", "unknown accesses"},
       {"cat", "race"},
       {"ph", "i"},
       {"s", "t"},
       {"pid", 2},
       {"tid", 3},
       {"ts", 0.0},
       {"args", {{"op", 4}, {"other_op", 5}, {"report", "unknown"}}}},
      {{"name", "unknown accesses"},
       {"cat", "race"},
       {"ph", "i"},
       {"s", "t"},
       {"pid", 2},
       {"tid", 3},
       {"ts", 2.5},
       {"args", {{"op", 5}, {"other_op", 4}, {"report", "unknown"}}}},
  });
  const json trace = read_trace(path);
  EXPECT_EQ(trace["displayTimeUnit"], "ns");
  EXPECT_EQ(trace["otherData"], json({{"generator", "mockdev"}}));
  EXPECT_EQ(trace["traceEvents"], expected_events) << trace["traceEvents"].dump(1);
  EXPECT_EQ(never, 5u);
  std::remove(path.c_str());
}

std::string read_all(std::FILE* out) {
  std::rewind(out);
  std::string text;
  char buffer[1024];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, out)) > 0;) text.append(buffer, n);
  return text;
}

// Queues nothing ran on (the runtime's pool streams, mostly) are left out: no track, and no
// process for a device none of whose queues ran anything (Note [Timeline trace]).
TEST(TraceWriter, QueuesNothingRanOnHaveNoTrack) {
  const std::string path = temp_path("idle.json");
  auto file = core::TraceFile::open(path);
  ASSERT_NE(file, nullptr);
  auto writer = core::make_trace_writer(*file, twin(), false);
  ObserverDriver d(*writer);
  d.queue(0, "dev0/idle 1");
  const auto used = d.queue(0, "dev0/used");
  d.queue(0, "dev0/idle 2");
  d.queue(1, "dev1/idle");
  writer->on_complete(d.kernel(used, {}, {}), 0, 10);
  writer->flush();
  const json events = read_trace(path)["traceEvents"];
  ASSERT_EQ(events.size(), 4u) << events.dump(1);
  EXPECT_EQ(events[0], process_name(1, "dev0: GPU A (twin)"));
  EXPECT_EQ(events[1], sort_index(1));
  EXPECT_EQ(events[2], thread_name(1, 2, "dev0/used"));
  EXPECT_EQ(events[3]["ph"], "X");
  EXPECT_EQ(events[3]["tid"], 2);
  std::remove(path.c_str());
}

// The runtime's names and its allocator's bytes (Note [Runtime names] in
// core/runtime_tool.h): a queue named before its first operation has its track named so at
// once; one named after it gets a second thread_name event; the allocator's counters sit in a
// process of their own, one counter per runtime device holding both values, an unchanged
// pair written once.
TEST(TraceWriter, RuntimeNamesNameTracksAndTheAllocatorHasCounters) {
  const std::string path = temp_path("runtime.json");
  auto file = core::TraceFile::open(path);
  ASSERT_NE(file, nullptr);
  auto writer = core::make_trace_writer(*file, twin(), false);
  ObserverDriver d(*writer);
  const auto early = d.queue(0, "dev0/stream 1 (non-blocking)", "CUstream 0x5a1");
  const auto late = d.queue(0, "dev0/stream 2 (non-blocking)", "CUstream 0x5b2");
  const auto plain = d.queue(0, "dev0/legacy", "CUstream 0 (the legacy default stream)");
  writer->on_queue_named(early, "cuda:0 stream id=3 (priority 0)");
  writer->on_queue_named(99, "cuda:0 stream id=9 (priority 0)");  // no such queue: ignored
  writer->on_complete(d.kernel(early, {}, {}), 0, 10);
  writer->on_complete(d.kernel(late, {}, {}), 0, 10);
  writer->on_queue_named(late, "cuda:0 stream id=4 (priority -1)");
  writer->on_queue_named(late, "cuda:0 stream id=4 (priority -1)");  // the same: no event
  writer->on_complete(d.kernel(plain, {}, {}), 0, 10);
  writer->on_runtime_memory("cuda:0", 512, 2097152, 1500);
  writer->on_runtime_memory("cuda:0", 512, 2097152, 1600);  // unchanged: not written
  writer->on_runtime_memory("cuda:1", 0, 0, 1700);
  writer->on_runtime_memory("cuda:0", 0, 2097152, 2000);
  writer->flush();
  const json events = read_trace(path)["traceEvents"];
  std::vector<json> kept;  // all but the slices
  for (const json& event : events) {
    if (event["ph"] != "X") kept.push_back(event);
  }
  const auto counter = [](const std::string& device, double ts, long long allocated,
                          long long reserved) {
    return json{{"name", device},
                {"cat", "memory"},
                {"ph", "C"},
                {"pid", 2},
                {"ts", ts},
                {"args", {{"allocated_bytes", allocated}, {"reserved_bytes", reserved}}}};
  };
  const std::vector<json> expected = {
      process_name(1, "dev0: GPU A (twin)"),
      sort_index(1),
      thread_name(1, 1,
                  "cuda:0 stream id=3 (priority 0) = CUstream 0x5a1: dev0/stream 1 "
                  "(non-blocking)"),
      thread_name(1, 2, "CUstream 0x5b2: dev0/stream 2 (non-blocking)"),
      thread_name(1, 2,
                  "cuda:0 stream id=4 (priority -1) = CUstream 0x5b2: dev0/stream 2 "
                  "(non-blocking)"),
      thread_name(1, 3, "CUstream 0 (the legacy default stream): dev0/legacy"),
      process_name(2, "accel runtime: caching allocator (twin)"),
      sort_index(2),
      counter("cuda:0", 1.5, 512, 2097152),
      counter("cuda:1", 1.7, 0, 0),
      counter("cuda:0", 2.0, 0, 2097152),
  };
  EXPECT_EQ(json(kept), json(expected)) << json(kept).dump(1);
  std::remove(path.c_str());
}

TEST(TraceWriter, ABadPathIsOneLineNamingItAndTracingIsOff) {
  std::FILE* out = std::tmpfile();
  const std::string missing = "/nonexistent-mockdev-dir/trace.json";
  std::string error;
  EXPECT_EQ(core::TraceFile::open(missing, out, &error), nullptr);
  EXPECT_EQ(error, "MOCKDEV_TRACE '" + missing +
                       "': cannot open for writing: No such file or directory");
  const std::string directory = ::testing::TempDir();
  EXPECT_EQ(core::TraceFile::open(directory, out), nullptr);
  EXPECT_EQ(read_all(out), "mockdev: MOCKDEV_TRACE '" + missing +
                               "': cannot open for writing: No such file or directory; "
                               "tracing is off\n"
                               "mockdev: MOCKDEV_TRACE '" +
                               directory + "': is a directory, not a regular file; tracing is off\n");
  std::fclose(out);
}

// Opening never waits for a reader (Note [Bounded readers]): a FIFO nobody reads is refused
// at once instead of hanging the traced program.
TEST(TraceWriter, AFifoNobodyReadsIsRefusedWithoutWaiting) {
  const std::string fifo = temp_path("unread.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::FILE* out = std::tmpfile();
  EXPECT_EQ(core::TraceFile::open(fifo, out), nullptr);
  EXPECT_EQ(read_all(out), "mockdev: MOCKDEV_TRACE '" + fifo +
                               "': is a FIFO (named pipe) that nobody reads; tracing is off\n");
  std::fclose(out);
  std::remove(fifo.c_str());
}

// A FIFO with a reader cannot be rewritten: it gets one document, written in order, and its
// closing bracket when the trace is closed.
TEST(TraceWriter, AFifoWithAReaderGetsOneDocument) {
  const std::string fifo = temp_path("read.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  {
    auto file = core::TraceFile::open(fifo);
    ASSERT_NE(file, nullptr);
    auto writer = core::make_trace_writer(*file, twin(), false);
    ObserverDriver d(*writer);
    const auto q = d.queue(0, "q");
    writer->on_complete(d.kernel(q, {}, {}), 0, 1);
    writer->flush();  // a machine replacement
    writer->on_complete(d.kernel(q, {}, {}), 1, 2);
    writer->flush();
    file->close();
    file->append("{\"name\":\"too late\"}");  // nothing after the end
  }
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  ::close(reader);
  std::remove(fifo.c_str());
  const json trace = json::parse(text);  // one document, not one per flush
  ASSERT_EQ(trace["traceEvents"].size(), 5u) << text;
  EXPECT_EQ(trace["traceEvents"][3]["ts"], 0.0);
  EXPECT_EQ(trace["traceEvents"][4]["ts"], 0.001);
}

// A write that fails later is one line too, and the traced program lives on: a reader that
// went away is EPIPE, never a SIGPIPE that kills it; /dev/full is a disk that is full.
TEST(TraceWriter, WriteErrorsAreOneLineAndNeverASignal) {
  std::FILE* out = std::tmpfile();
  std::string error;
  EXPECT_EQ(core::TraceFile::open("/dev/full", out, &error), nullptr);
  EXPECT_EQ(error, "MOCKDEV_TRACE '/dev/full': cannot write: No space left on device");
  const std::string fifo = temp_path("gone.fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  auto file = core::TraceFile::open(fifo, out);
  ASSERT_NE(file, nullptr);
  ::close(reader);
  file->append("{}");
  EXPECT_TRUE(file->failed());
  EXPECT_EQ(file->error(), "MOCKDEV_TRACE '" + fifo + "': cannot write: Broken pipe");
  EXPECT_EQ(read_all(out), "mockdev: MOCKDEV_TRACE '/dev/full': cannot write: No space left on "
                           "device; tracing is off\nmockdev: MOCKDEV_TRACE '" +
                               fifo + "': cannot write: Broken pipe; tracing is off\n");
  std::fclose(out);
  std::remove(fifo.c_str());
}

// Needs a process that has not opened a trace file yet (ctest runs each test alone).
// make_observers leaves the report of a path that cannot be opened to the engine, which
// makes it its configuration error (mockdev_config_error_trace_* ctests); here no trace is
// written and the error is kept.
TEST(TraceWriter, MakeObserversRunsWithoutTraceAndKeepsTheOpenError) {
  setenv("MOCKDEV_TRACE", "/nonexistent-mockdev-dir/trace.json", 1);
  unsetenv("MOCKDEV_RACES");
  ::testing::internal::CaptureStderr();
  std::size_t first = 0, second = 0;
  {
    core::EngineLock lock;
    first = core::make_observers(twin()).size();
    second = core::make_observers(twin()).size();
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(first, 1u);  // the race detector only
  EXPECT_EQ(second, 1u);
  EXPECT_EQ(control::trace_error(),
            "MOCKDEV_TRACE '/nonexistent-mockdev-dir/trace.json': cannot open for writing: No "
            "such file or directory");
  unsetenv("MOCKDEV_TRACE");
}

TEST(TraceWriter, EveryMachineOfTheProcessStaysInTheFile) {
  const std::string path = temp_path("machines.json");
  auto file = core::TraceFile::open(path);
  ASSERT_NE(file, nullptr);
  {
    auto first = core::make_trace_writer(*file, twin(), false);
    ObserverDriver d(*first);
    first->on_complete(d.kernel(d.queue(1, "dev1/a"), {}, {}), 0, 10);
    first->flush();
  }
  MachineSpec other = twin();
  other.name = "other";
  auto second = core::make_trace_writer(*file, other, false);
  ObserverDriver d(*second);
  second->on_complete(d.kernel(d.queue(0, "dev0/b"), {}, {}), 0, 20);
  second->flush();
  const json events = read_trace(path)["traceEvents"];
  ASSERT_EQ(events.size(), 8u);
  EXPECT_EQ(events[0], process_name(1, "dev1: GPU B (twin)"));
  EXPECT_EQ(events[2], thread_name(1, 1, "dev1/a"));
  EXPECT_EQ(events[3]["ph"], "X");
  EXPECT_EQ(events[3]["pid"], 1);
  EXPECT_EQ(events[4], process_name(2, "dev0: GPU A (other)"));
  EXPECT_EQ(events[6], thread_name(2, 1, "dev0/b"));
  EXPECT_EQ(events[7]["pid"], 2);
  EXPECT_EQ(events[7]["dur"], 0.02);
  std::remove(path.c_str());
}

TEST(TraceWriter, InvalidUtf8AndControlCharactersStillParse) {
  const std::string path = temp_path("utf8.json");
  auto file = core::TraceFile::open(path);
  ASSERT_NE(file, nullptr);
  auto writer = core::make_trace_writer(*file, twin(), false);
  ObserverDriver d(*writer);
  const auto q = d.queue(0, std::string("bad \xff\xc3 \"q\"\n\t\xe2\x82\xac"));
  writer->on_complete(d.enqueue(q, {OpKind::kKernel, "kernel \x01"}), 0, 1);
  writer->flush();
  const json events = read_trace(path)["traceEvents"];
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2]["args"]["name"], "bad \xef\xbf\xbd\xef\xbf\xbd \"q\"\n\t\xe2\x82\xac");
  EXPECT_EQ(events[3]["name"], "kernel \x01");
  std::remove(path.c_str());
}

TEST(TraceWriter, AForkedChildNeverWritesTheFile) {
  const std::string path = temp_path("fork.json");
  auto file = core::TraceFile::open(path);
  ASSERT_NE(file, nullptr);
  auto writer = core::make_trace_writer(*file, twin(), false);
  ObserverDriver d(*writer);
  writer->on_complete(d.kernel(d.queue(0, "q"), {}, {}), 0, 1);
  const std::string before = read_file(path);
  const pid_t child = fork();
  ASSERT_NE(child, -1);
  if (child == 0) {
    writer->flush();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(read_file(path), before);  // untouched by the child
  writer->flush();
  EXPECT_EQ(read_trace(path)["traceEvents"].size(), 4u);
  std::remove(path.c_str());
}

// Needs a process that has not opened a trace file yet (ctest runs each test alone; the
// trace file is chosen once per process).
TEST(TraceWriter, TheExitHookWritesTheInstalledMachinesTrace) {
  const std::string path = temp_path("exit.json");
  std::remove(path.c_str());
  EXPECT_EXIT(
      {
        setenv("MOCKDEV_TRACE", path.c_str(), 1);
        unsetenv("MOCKDEV_RACES");
        {
          core::EngineLock lock;
          auto* observers =  // leaked, as the engine leaks its observers
              new std::vector<std::unique_ptr<core::OpObserver>>(core::make_observers(twin()));
          ObserverDriver d(*observers->front());
          observers->front()->on_complete(d.kernel(d.queue(0, "dev0/q"), {}, {}), 5000, 6000);
        }
        std::exit(3);
      },
      ::testing::ExitedWithCode(3), "");
  const json events = read_trace(path)["traceEvents"];
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[3]["name"], "kernel k");
  EXPECT_EQ(events[3]["ts"], 5.0);
  EXPECT_EQ(events[3]["dur"], 1.0);
  std::remove(path.c_str());
}

// _exit() skips the exit hook: control::finish_process() writes the trace first (the
// scenario runner's scenario processes leave this way).
TEST(TraceWriter, FinishProcessWritesTheTraceBeforeAnExit) {
  const std::string path = temp_path("finish.json");
  std::remove(path.c_str());
  EXPECT_EXIT(
      {
        setenv("MOCKDEV_TRACE", path.c_str(), 1);
        unsetenv("MOCKDEV_RACES");
        {
          core::EngineLock lock;
          auto* observers =  // leaked, as the engine leaks its observers
              new std::vector<std::unique_ptr<core::OpObserver>>(core::make_observers(twin()));
          ObserverDriver d(*observers->front());
          observers->front()->on_complete(d.kernel(d.queue(0, "dev0/q"), {}, {}), 0, 1000);
        }
        _exit(control::finish_process(4));
      },
      ::testing::ExitedWithCode(4), "");
  const json events = read_trace(path)["traceEvents"];
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[3]["dur"], 1.0);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mockdev::testing
