#pragma once
// The races the simulated hardware found, for tests in the same process (control API).
//
// mockdev's race detector (docs/decisions/051-race-detector-vector-clocks.md) watches every
// operation the simulated streams run: the byte ranges it reads and writes and what it is ordered
// after (stream order, event waits, the legacy stream's barriers, graph launches, host
// synchronisation). Two accesses of different streams that overlap, where at least one
// writes and neither is ordered before the other, are a race: printed on stderr as one block,
// kept here, and, under RacePolicy::kAbort, followed by abort(); under RacePolicy::kFail the
// program runs on and its process exits with kRaceFailureExitStatus (Note [Failing on races]
// in mockdev/src/core/process_exit.h; mockdev/exit.h for a process that leaves with
// _exit()). An operation whose accesses
// are unknown (a kernel launched but never registered) is taken to read and write all of its
// device's memory; a conflict it takes part in is a race of kind kUnknownAccesses.
//
// Thread-safe; never throws except std::bad_alloc.

#include <cstdint>
#include <string>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::control {

enum class RaceKind {
  kDataRace,         // two known accesses conflict
  kUnknownAccesses,  // one side (or both) is an operation with unknown accesses
};

// One side of a race.
struct RaceAccess {
  std::uint64_t op = 0;  // the engine's operation id (1, 2, ... since the machine was installed)
  std::string name;      // "cuMemcpyHtoDAsync_v2", "kernel saxpy"
  std::string queue;     // the stream's label, e.g. "dev0/stream 7 (prio -1, non-blocking)"
  std::string handle;    // as the program names it: "CUstream 0x55d0c0a1b2c0" ("" unknown)
  // The runtime's name for the stream, when the runtime told it through its tool interface
  // (ACCEL_TOOL_LIBRARY naming libmockdev.so): "cuda:0 stream id=3 (priority 0)"; else "".
  std::string runtime_name;
  int device = 0;        // physical device of the stream
  // Where the host enqueued it: "app.cpp:42 enqueue_pair()" with debug info and addr2line,
  // else "enqueue_pair()+0x1a (app)" or "app+0x1234"; "" when unknown.
  std::string call_site;
  bool writes = false;   // its access to the overlapping range is a write
  bool unknown = false;  // it has unknown accesses
};

struct Race {
  RaceKind kind = RaceKind::kDataRace;
  RaceAccess first;         // enqueued earlier
  RaceAccess second;        // the one whose enqueue revealed the race
  std::uint64_t begin = 0;  // the overlapping bytes [begin, begin + bytes)
  std::uint64_t bytes = 0;
  bool host = false;  // a host range (pinned or pageable host memory), not device memory
  std::string text;   // the block printed on stderr
};

// At most this many races are printed and kept per machine installation; later ones are
// only counted (race_count), so a race inside a long loop cannot flood a log.
inline constexpr std::size_t kMaxKeptRaces = 1000;

// The races found since the machine was installed (reset) or clear_races(), in the order
// found, at most kMaxKeptRaces.
std::vector<Race> races();
// How many were found, including those not kept.
std::uint64_t race_count();
void clear_races();

// The policy in force for the installed machine: MOCKDEV_RACES when set and well formed,
// else the machine file's streams.races.
RacePolicy race_policy();

// The exit status of a process whose races were found under RacePolicy::kFail, replacing
// the one the program exited with. Distinct from the statuses tools commonly use (0-3,
// sysexits' 64-78, ThreadSanitizer's 66, LeakSanitizer's 23, the shell's 124-127 and 128 + a
// signal), so a CI log tells it apart.
inline constexpr int kRaceFailureExitStatus = 86;

// How many races this process found under RacePolicy::kFail, over every machine it
// installed: reset() and clear_races() do not forget them (each was printed, and the process
// will fail). 0 in a forked child until it finds races of its own.
std::uint64_t failing_race_count();

}  // namespace mockdev::control
