#pragma once
// An allocation trace, as `accel replay` replays it: the user's allocate and free calls in
// order, read from a PyTorch memory snapshot (JSON, device_traces) or an RMM allocation log
// (CSV, logging_resource_adaptor's columns). docs/REPLAY.md describes both formats and what
// the readers keep.
//
// The readers resolve addresses while reading: every allocation gets a dense id, and a
// free names the id it frees, so the replay needs no address map. A free that matches no
// live allocation is judged by the rules of Note [Frees of unknown addresses]
// (trace_builder.h): a double free is an error; in a PyTorch snapshot, whose history is a
// window, a free of a block allocated before the window is dropped and counted here; in an
// RMM log, which holds every allocation from its start, it is an error.
// Streams are renumbered densely in order of first appearance, the trace's stream 0 (the
// default stream in both formats) staying 0: distinct trace streams stay distinct.
//
// Reading streams: the file is read once, in chunks, through accel_common's bounded reader
// (kMaxTraceFileBytes; a FIFO, a device or a directory is refused before any byte is read),
// and only the events are kept, so memory is the events, whatever the file's size.
//
// Errors: TraceError, whose what() is "<file>:<line>: <what is wrong>" (the line of the
// offending row or entry, 1-based), or "<file>: <what is wrong>" for the file as a whole,
// or the bounded reader's "trace '<file>': <what it is>".
// Values only; reading is pure and thread-safe.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace accel::replay {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TraceFormat { kPyTorchSnapshot, kRmmLog };
std::string_view format_name(TraceFormat format);  // "PyTorch snapshot", "RMM log"

struct TraceEvent {
  enum class Kind : std::uint8_t { kAllocate, kFree };
  Kind kind = Kind::kAllocate;
  std::uint32_t stream = 0;  // dense: 0 = the trace's stream 0, then order of appearance
  std::uint64_t line = 0;    // 1-based line of the row / entry in the file
  std::uint64_t id = 0;      // allocation id: the allocation's index among allocations
  std::uint64_t bytes = 0;   // allocate: bytes asked for; free: the allocation's
};

struct Trace {
  std::string file;  // as given (error messages and reports name it)
  TraceFormat format = TraceFormat::kPyTorchSnapshot;
  int device = 0;    // snapshot: the device_traces entry read
  std::vector<TraceEvent> events;
  std::uint64_t allocations = 0;        // allocate events (= ids handed out)
  std::uint64_t frees = 0;              // free events
  std::uint64_t unmatched_frees = 0;    // snapshot: frees of blocks allocated before the window
  std::uint64_t failed_allocations = 0;  // RMM "allocate failure" rows: skipped
  std::uint64_t ignored_entries = 0;    // snapshot: segment_*, snapshot, oom entries
  std::vector<std::int64_t> streams;    // the trace's stream values, by dense index
};

// Reads `path`, detecting the format by content: a JSON object is a PyTorch snapshot
// (`device` picks the device_traces entry), text whose first line is a CSV header with
// Action, Pointer, Size and Stream columns is an RMM log. Throws TraceError. Linear in the
// file's size.
Trace read_trace(const std::string& path, int device = 0);

// The same from text already in memory; `file` names it in errors.
Trace read_snapshot_text(std::string_view text, const std::string& file, int device);
Trace read_rmm_text(std::string_view text, const std::string& file);

}  // namespace accel::replay
