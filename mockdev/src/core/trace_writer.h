#pragma once
// The timeline trace: MOCKDEV_TRACE=file.json writes the simulated run as Chrome trace-event
// JSON (Perfetto, chrome://tracing).
//
// Note [Timeline trace]
// Layout: one process per device of each installed machine ("dev0: NVIDIA H100 80GB HBM3
// (4xh100)"), one thread (track) per queue that ran an operation (a queue nothing ran on has
// none, nor has a device none of whose queues did), named as the program names it, then its label
// ("CUstream 0x55d0c0a1b2c0: dev0/stream 1 (non-blocking)"; the label alone for a queue
// without a handle), every completed operation a complete ("X") slice in virtual
// microseconds (ns precision) with its op id and call site in args (symbolised from the
// operation's caller, Note [Call sites of operations] in core/race_call_site.h), every event record
// -> wait a flow arrow ("s" at the record, "f" binding to the enclosing wait slice, one id per
// arrow), every race an instant event ("i", thread scope) on both operations' tracks at their
// start, its report in args. Each device's process also holds a counter ("C") "driver memory
// in use", the device's allocated and reserved bytes (core/memory.h) at each change, on the
// host's virtual clock. A "host" process holds one track per host thread that enqueued work,
// each call an instant event (Note [Host calls in the trace] in trace_writer.cpp). What the
// runtime tells through its tool interface (Note [Runtime names] in core/runtime_tool.h): a
// queue it named leads its track's name with it ("cuda:0 stream id=3 (priority 0) = CUstream
// 0x55d0c0a1b2c0: dev0/stream 1 (non-blocking)"; a track written already gets a second
// thread_name event), and an "accel runtime: caching allocator" process holds one counter per
// runtime device ("cuda:0") with its allocated_bytes and reserved_bytes, on the host's virtual
// clock. An operation that never completed has no slice (a race mark on it sits
// at the machine's last completion time). Opening: the path is opened once, when the engine starts,
// through accel::common::open_for_writing (Note [Bounded readers]), which never blocks. A FIFO
// nobody reads, a directory or a socket is a setting that does not work, so the simulated
// hardware does not start (a configuration error, as for a misspelt MOCKDEV_SCHEDULE: one
// stderr line "mockdev: cannot start the simulated hardware: MOCKDEV_TRACE '/tmp/f': is a
// FIFO (named pipe) that nobody reads", then cuInit, nvmlInit and zeInit fail), never a
// crash, a hang or a run without the trace asked for. A write error later (a full disk) is
// one stderr line ("mockdev: MOCKDEV_TRACE '<path>': cannot write: ...; tracing is off"),
// after which tracing is off; control::trace_error() keeps the text, and the scenario
// runner fails the scenario with it.
// When: events are rendered as the run goes and written at every flush(): when the machine
// is replaced, at process exit (an atexit hook, below), before an abort on a race, and at
// control::finish_process() (a process that leaves with _exit()). A regular file holds a
// complete trace after every flush (each flush writes its events and the closing bracket,
// which the next flush overwrites), so even a crash leaves a file that parses. A FIFO or a
// character device (`MOCKDEV_TRACE=/dev/stdout ... | jq`) cannot be rewritten: it gets the
// header at once, the events in order, and the closing bracket when the trace is closed (at
// exit, before an abort, at finish_process), so its reader sees one document. The file keeps
// every machine the process installed (each machine's devices are new processes), so a test
// suite that resets the machine loses nothing. A closed trace writes nothing more.
// Exit: the writer of the installed machine registers itself for a process-wide atexit
// hook, which takes the engine lock, flushes it and closes the file. The engine is leaky
// (Note [Leaky state] in core/engine.h), so the writer is still alive at exit; a writer
// destroyed with its machine unregisters first. The hook cannot deadlock on the engine lock:
// user code (which might call exit()) never runs with the lock held, because any driver call
// it made would deadlock already.
// Fork: a forked child never writes the file (it would overwrite the parent's trace with a
// copy of the parent's past, and its driver is unusable after fork anyway): writes happen
// only in the process that started tracing.
// Thread safety: called with the engine lock held, like every observer.

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "accel_common/bounded_file.h"
#include "core/engine_lock.h"
#include "core/op_observer.h"
#include "core/race_detector.h"

namespace mockdev::core {

inline constexpr const char* kTraceVariable = "MOCKDEV_TRACE";

// The output file: an open descriptor, and how far the events written reach.
class TraceFile {
 public:
  // Opens `path` (open_for_writing: never blocks) and writes an empty trace. On failure
  // stores "MOCKDEV_TRACE '<path>': <problem>" in `*error` when given, prints one line to
  // `diagnostics` ("mockdev: MOCKDEV_TRACE '<path>': <problem>; tracing is off") unless
  // `report_open_error` is false (the caller reports it), and returns nullptr. Later write
  // errors go to `diagnostics` always.
  static std::unique_ptr<TraceFile> open(std::string path, std::FILE* diagnostics = stderr,
                                         std::string* error = nullptr,
                                         bool report_open_error = true);

  const std::string& path() const { return path_; }
  bool failed() const { return failed_; }
  // "MOCKDEV_TRACE '<path>': cannot write: <reason>" once a write failed, else "".
  const std::string& error() const { return error_; }
  // Writes rendered events (JSON objects separated by commas) after those already written;
  // on failure prints one line and turns the file off. A no-op outside the process that
  // opened it (fork), and once closed: the one place that decides whether a process writes.
  void append(std::string_view events);
  // Ends the trace (a FIFO or device gets its closing bracket); nothing is written after.
  void close();
  int next_process_id() { return ++processes_; }
  std::uint64_t next_flow_id() { return ++flows_; }

 private:
  TraceFile(std::string path, std::FILE* diagnostics, accel::common::UniqueFd fd, bool stream);
  bool write_at_end(std::string_view text, bool then_tail);
  void fail(int error);

  std::string path_;
  std::FILE* diagnostics_;
  accel::common::UniqueFd fd_;
  bool stream_;  // a FIFO or a character device: written in order, never rewritten
  pid_t owner_;
  std::uint64_t end_ = 0;    // a regular file: where the next events go (the tail's offset)
  bool has_events_ = false;  // an event was written (the next one needs a comma)
  int processes_ = 0;
  std::uint64_t flows_ = 0;
  bool failed_ = false;
  bool closed_ = false;
  std::string error_;
};

// The process's trace file: opened at the first call that sees MOCKDEV_TRACE set
// (non-empty), then kept for the life of the process (Note [Leaky state] in core/engine.h)
// so every later machine appends to it; nullptr when tracing is off or the file failed.
TraceFile* process_trace_file() MOCKDEV_REQUIRES(g_engine_mutex);
// Why the trace MOCKDEV_TRACE asked for is not being written ("MOCKDEV_TRACE '<path>':
// <problem>"); nullopt when no trace was asked for or every write so far worked.
std::optional<std::string> process_trace_error() MOCKDEV_REQUIRES(g_engine_mutex);
// Flushes the installed machine's writer (the exit hook's) and closes the process's trace:
// the exit hook, and control::finish_process() for a process that leaves with _exit().
void finish_process_trace() MOCKDEV_REQUIRES(g_engine_mutex);

// An observer that also marks races.
class TraceObserver : public OpObserver, public RaceListener {};

// The timeline of `machine`'s run into `file` (not owned; must outlive the writer). With
// `flush_at_exit`, the writer is the one the process's exit hook flushes (the latest
// such writer wins; make_observers passes true).
std::unique_ptr<TraceObserver> make_trace_writer(TraceFile& file, const MachineSpec& machine,
                                                 bool flush_at_exit);

}  // namespace mockdev::core
