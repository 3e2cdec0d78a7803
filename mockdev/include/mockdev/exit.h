#pragma once
// The end of a process on the simulated hardware, for programs that leave with _exit().
//
// At a normal exit (return from main, exit()) the simulated hardware finishes by itself: the
// trace (MOCKDEV_TRACE) is flushed and closed, and under the race policy `fail` a process
// that had races prints one last line and exits with kRaceFailureExitStatus (Note [Failing on
// races] in mockdev/src/core/process_exit.h). _exit() skips all of that, so a process that
// leaves with it (a forked child of a test, the scenario runner's scenario process) calls
// finish_process() first.
//
// Thread-safe; never throws except std::bad_alloc.

#include <optional>
#include <string>

#include "mockdev/races.h"

namespace mockdev::control {

// Does now what the process exit would: flushes and closes the trace, and, when races were
// found under the race policy `fail`, prints "mockdev: N race(s) reported (...): exit status
// 86" on stderr and returns kRaceFailureExitStatus; otherwise returns `status`. Call it last:
// the trace writes nothing afterwards, and the exit hook does nothing more in this process.
int finish_process(int status);

// Why the trace that MOCKDEV_TRACE asks for is not being written, as
// "MOCKDEV_TRACE '<path>': <problem>" (the path could not be opened, or a write failed);
// nullopt when no trace is asked for or every write so far worked.
std::optional<std::string> trace_error();

}  // namespace mockdev::control
