#pragma once
// What both trace readers share: turning (address, size, stream) rows into TraceEvents with
// dense allocation ids and dense stream numbers (trace.h says why the readers resolve
// addresses), and the rules for frees that match no live allocation. Internal to the
// readers.
//
// Note [Frees of unknown addresses]
// Every address the trace names is remembered with its state (live, free requested, freed)
// and the line that put it there, so a free that matches no live allocation is judged by
// what the trace says about that address:
//   * freed before and not allocated again since: a double free, an error naming both lines
//     (a free_completed after a free_requested is the same free, not a second one; a second
//     free_completed is an error);
//   * never seen: in a PyTorch snapshot the history is a window (a ring whose oldest
//     entries are dropped, and recording may start after allocations were made), so the
//     block was allocated before the window: the free is skipped and counted, once per block
//     (a free_requested and its free_completed are one free). An RMM log records every
//     allocation of the logged resource from its start, so there it is an error: the log is
//     incomplete or is not one program's.
// A snapshot may omit free_completed entries (PyTorch's history can skip actions), so an
// allocation at an address whose free is still waiting for its completion is accepted; a
// completion that comes after it is the old block's, and leaves the new one live.
// docs/REPLAY.md describes the same rules for users.

#include <cstdint>
#include <string>
#include <unordered_map>

#include "trace.h"

namespace accel::replay::detail {

class TraceBuilder {
 public:
  // kWindow: the trace may start after allocations were made (PyTorch snapshots);
  // kComplete: it holds every allocation from the start (RMM logs).
  enum class History { kWindow, kComplete };

  TraceBuilder(Trace& trace, History history) : trace_(trace), history_(history) {}

  // An allocation of `bytes` at trace address `address`. An address already live in the
  // trace (a free is missing) is an error naming both lines.
  void allocate(std::uint64_t address, std::uint64_t bytes, std::int64_t stream,
                std::uint64_t line);
  // The user's free of `address`: a snapshot's free_requested (`completes` false: its
  // free_completed may follow), its older "free" or an RMM free (`completes` true). `action`
  // names it in errors.
  void free(std::uint64_t address, std::uint64_t line, std::string_view action, bool completes);
  // A snapshot's free_completed: the end of a free_requested, or the whole free when the
  // snapshot logged only the completion.
  void free_completed(std::uint64_t address, std::uint64_t line);

 private:
  enum class State : std::uint8_t { kLive, kFreeRequested, kFreed };
  struct Address {
    std::uint64_t id = 0;
    std::uint64_t bytes = 0;
    std::uint64_t line = 0;  // of the entry that put it in `state`
    std::uint32_t stream = 0;
    State state = State::kLive;
    // Allocated while the previous block here waited for its free_completed: that
    // completion, if it comes, is the previous block's.
    bool completion_owed = false;
  };
  std::uint32_t stream_index(std::int64_t stream);
  void emit_free(Address& slot, std::uint64_t line);
  [[noreturn]] void not_live(std::uint64_t address, const Address& slot, std::uint64_t line,
                             std::string_view action) const;

  Trace& trace_;
  History history_;
  std::unordered_map<std::uint64_t, Address> addresses_;
  std::unordered_map<std::int64_t, std::uint32_t> streams_;
};

// "<file>:<line>: <message>"
[[noreturn]] void fail_at(const std::string& file, std::uint64_t line, const std::string& message);

}  // namespace accel::replay::detail

namespace accel::replay {

class TraceSource;

namespace detail {
// The readers, over a source positioned at the first byte that is not whitespace. The
// snapshot reader reads device_traces[device]; the RMM reader refuses a device other than 0
// once it has seen an RMM header, and a first line that is no RMM header.
Trace read_snapshot(TraceSource& source, int device);
Trace read_rmm(TraceSource& source, int device);
}  // namespace detail

}  // namespace accel::replay
