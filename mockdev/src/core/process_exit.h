#pragma once
// The exit status of a process under the race policy `fail` (MOCKDEV_RACES=fail, or a
// machine file's `streams.races: fail`).
//
// Note [Failing on races]
// Under `fail`, a race is reported as under `report` (a stderr block, control::races()) and
// the program runs on to its end. When the process exits, if races were found under `fail`,
// the simulated hardware prints one last line on stderr
//   mockdev: 3 races reported (MOCKDEV_RACES=fail): exit status 86
// ("(streams.races: fail)" when the machine file chose the policy) and the process exits with
// control::kRaceFailureExitStatus (86), whatever status the program itself exited with: what
// compute-sanitizer's --error-exitcode and ThreadSanitizer's exitcode do for their users.
// 86 is none of the statuses programs and tools commonly use: not 0-3 (success, failure,
// usage errors, the scenario runner's crashed step), not sysexits' 64-78, not
// ThreadSanitizer's 66 or LeakSanitizer's 23, not the shell's 124-127 or 128 + a signal.
// How: a destructor function of libmockdev.so (.fini_array). The C library runs those from
// _dl_fini, after the program's atexit handlers and static destructors (its own exit work,
// the trace's exit hook included) and before it flushes stdio; the function flushes stdio
// itself, then calls _exit. libmockdev is linked -z nodelete, so the function runs at exit
// only, never at a dlclose. An atexit handler would not do: one registered when the mock is
// first used (after main started) would run before the destructors of objects made earlier,
// and its _exit would skip them (a std::ofstream opened first would lose its last writes).
// Not covered: a process that leaves with _exit() or dies of a signal does no exit work.
// Such a process (a forked child of a test, the scenario runner's scenario process) calls
// control::finish_process(status) (mockdev/exit.h) before its _exit. A forked child does not
// inherit its parent's count (core/race_log.h).
// Thread safety: lock-free (the counts are atomics), so exiting while another thread holds
// the engine lock cannot deadlock.

#include <string>

#include "core/race_log.h"

namespace mockdev::core {

// "mockdev: 3 races reported (MOCKDEV_RACES=fail): exit status 86"; "1 race" for one.
std::string failing_races_line(const FailingRaces& races);

// After control::finish_process: the exit hook does nothing more in this process.
void disarm_race_exit_hook() noexcept;

}  // namespace mockdev::core
