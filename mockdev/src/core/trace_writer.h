#pragma once
// The timeline trace: MOCKDEV_TRACE=file.json writes the simulated run as Chrome trace-event
// JSON (Perfetto, chrome://tracing).
//
// Note [Timeline trace]
// Layout: one process per device of each installed machine ("dev0: NVIDIA H100 80GB HBM3
// (4xh100)"), one thread (track) per queue named by its label, every completed operation a
// complete ("X") slice in virtual microseconds (ns precision) with its op id and call site
// in args, every event record -> wait a flow arrow ("s" at the record, "f" binding to the
// enclosing wait slice, one id per arrow), every race an instant event ("i", thread scope)
// on both operations' tracks at their start, its report in args. An operation that never
// completed has no slice (a race mark on it sits at the machine's last completion time).
// When: the file is created with an empty trace when tracing starts (so a bad path is found
// at once: one stderr line naming the path and the reason, then tracing is off for the
// process, never a crash), and rewritten whole at every flush(): when the machine is
// replaced, at process exit (an atexit hook, below), and before an abort on a race. The
// file keeps every machine the process installed (each machine's devices are new
// processes), so a test suite that resets the machine loses nothing.
// Exit: the writer of the installed machine registers itself for a process-wide atexit
// hook, which takes the engine lock and flushes it. The engine is leaky (Note [Leaky
// state] in core/engine.h), so the writer is still alive at exit; a writer destroyed
// with its machine unregisters first. The hook cannot deadlock on the engine lock: user
// code (which might call exit()) never runs with the lock held, because any driver call
// it made would deadlock already.
// Fork: a forked child never writes the file (it would overwrite the parent's trace with a
// copy of the parent's past, and its driver is unusable after fork anyway): writes happen
// only in the process that started tracing.
// Thread safety: called with the engine lock held, like every observer.

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/op_observer.h"
#include "core/race_detector.h"

namespace mockdev::core {

inline constexpr const char* kTraceVariable = "MOCKDEV_TRACE";

// The output file and everything flushed to it so far.
class TraceFile {
 public:
  // Creates or truncates `path` with an empty trace. On failure prints one line to
  // `diagnostics` ("mockdev: MOCKDEV_TRACE: cannot write the trace to '<path>': <reason>;
  // tracing is off") and returns nullptr.
  static std::unique_ptr<TraceFile> open(std::string path, std::FILE* diagnostics = stderr);

  const std::string& path() const { return path_; }
  bool failed() const { return failed_; }
  // Appends rendered events (JSON objects separated by commas) and rewrites the file; on
  // failure prints one line and turns the file off. A no-op outside the process that
  // opened it (fork): the one place that decides whether a process writes.
  void append(std::string_view events);
  int next_process_id() { return ++processes_; }
  std::uint64_t next_flow_id() { return ++flows_; }

 private:
  TraceFile(std::string path, std::FILE* diagnostics);
  bool write();

  std::string path_;
  std::FILE* diagnostics_;
  pid_t owner_;
  std::string events_;
  int processes_ = 0;
  std::uint64_t flows_ = 0;
  bool failed_ = false;
};

// An observer that also marks races.
class TraceObserver : public OpObserver, public RaceListener {};

// The timeline of `machine`'s run into `file` (not owned; must outlive the writer). With
// `flush_at_exit`, the writer is the one the process's exit hook flushes (the latest
// such writer wins; make_observers passes true).
std::unique_ptr<TraceObserver> make_trace_writer(TraceFile& file, const MachineSpec& machine,
                                                 bool flush_at_exit);

}  // namespace mockdev::core
