#pragma once
// The end of a process on the simulated hardware, for programs that leave with _exit().
//
// At a normal exit (return from main, exit()) the simulated hardware finishes by itself: the
// trace (MOCKDEV_TRACE) is flushed and closed, MOCKDEV_LEAKS prints its report, and under the
// race policy `fail` a process that had races prints one last line and exits with
// kRaceFailureExitStatus (Note [Failing on
// races] in mockdev/src/core/process_exit.h). _exit() skips all of that, so a process that
// leaves with it (a forked child of a test, the scenario runner's scenario process) calls
// finish_process() first.
//
// Thread-safe; never throws except std::bad_alloc.

#include <optional>
#include <string>

#include "mockdev/races.h"

namespace mockdev::control {

// The exit status of a process that left driver objects live under MOCKDEV_LEAKS=fail (Note
// [Leak report] in mockdev/src/core/leak_report.h): next to the race policy's 86, and none
// of the statuses programs and tools commonly use either.
inline constexpr int kLeakFailureExitStatus = 87;

// Does now what the process exit would: flushes and closes the trace; under MOCKDEV_LEAKS
// prints the leak report; when races were found under the race policy `fail`, prints
// "mockdev: N race(s) reported (...): exit status 86" on stderr and returns
// kRaceFailureExitStatus; else, when MOCKDEV_LEAKS=fail found live objects, prints its line
// and returns kLeakFailureExitStatus; otherwise returns `status`. Call it last:
// the trace writes nothing afterwards, and the exit hook does nothing more in this process.
int finish_process(int status);

// Why the trace that MOCKDEV_TRACE asks for is not being written, as
// "MOCKDEV_TRACE '<path>': <problem>" (the path could not be opened, or a write failed);
// nullopt when no trace is asked for or every write so far worked.
std::optional<std::string> trace_error();

}  // namespace mockdev::control
