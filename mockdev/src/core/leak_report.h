#pragma once
// What the simulated hardware says at exit about the driver objects a program left behind:
// MOCKDEV_LEAKS=report|fail.
//
// Note [Leak report]
// A program that forgets a cuStreamDestroy or a zeMemFree runs fine on one GPU and then
// leaks a stream per test in a long CI job; compute-sanitizer's --leak-check and
// LeakSanitizer catch that class of bug for their users. With MOCKDEV_LEAKS=report the
// process prints, at exit on stderr, every driver object it made and did not destroy,
// grouped by kind, device and the call site that made it (most first, at most
// kLeakReportGroups lines):
//   ===================== mockdev: leak report =====================
//   3 driver objects live at exit (MOCKDEV_LEAKS=report), by kind and call site:
//        2  CUDA device memory on device 0, 8192 bytes: app.cpp:12 main
//        1  CUDA stream on device 0: app.cpp:14 main
//   ================================================================
// and, when nothing is live, one line saying so (a check that ran says that it ran). A
// process that initialised no API itself (a tool that only reads machine files, a forked
// child of a driver user, a parent that left the driver to its children) prints nothing:
// it made no driver object to report on.
// MOCKDEV_LEAKS=fail prints the same, then, when something was live,
//   mockdev: 3 driver objects live at exit (MOCKDEV_LEAKS=fail): exit status 87
// and the process exits with control::kLeakFailureExitStatus (87) whatever status the
// program exited with, as LeakSanitizer's exitcode does; races under the race policy `fail`
// take precedence (86), their line printed last. Unset, empty or `off`: nothing. Any other
// value is a configuration error, as a malformed MOCKDEV_RACES is.
// What counts as a driver object: each API's row lists its own (the `live_objects` hook of
// core/vendor_registry.h), in the process that initialised that API (a forked child does not
// report its parent's objects). CUDA: device memory (cuMemAlloc, cuMemAllocPitch, managed
// memory is host-side and listed as such), page-locked host memory the driver allocated or
// registered, contexts made by cuCtxCreate, created streams and events. The primary contexts
// are not listed: the driver owns them, and retaining one for the life of the process is what
// the CUDA runtime itself does. Level Zero: each live context, command list and queue, event
// pool and event, fence, module, kernel, build log and physical memory object, and each
// allocation of a live context. A caching allocator's reserved segments and a runtime's
// stream pool are live at exit by design, and are listed: the report says what the driver
// holds, and a program that wants a clean report empties its caches first.
// Call sites: a CUDA object carries its creating call's return address (Note [Call sites of
// operations] in core/race_call_site.h: free, it is captured for every driver call). A Level
// Zero call reaches the mock through the loader, whose frame would be the return address,
// so while a leak policy is in force the Level Zero adapter unwinds the creating call's
// stack (a few microseconds, creations only) and keeps the first frame outside the mock and
// the loader; otherwise "(call site unknown)".
// When: from the exit hook (Note [Failing on races] in core/process_exit.h), after the
// program's own exit work, or from control::finish_process in a process that leaves with
// _exit(); once per process. The report needs the engine lock: when another thread holds it
// for a whole second at exit, the report says it was skipped (and, under `fail`, fails).

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "core/engine_lock.h"
#include "core/live_object.h"

namespace mockdev::core {

inline constexpr const char* kLeaksVariable = "MOCKDEV_LEAKS";
inline constexpr std::size_t kLeakReportGroups = 30;

enum class LeakPolicy { kOff, kReport, kFail };

// "report", "fail", "off" (and "" for off); nullopt for anything else.
std::optional<LeakPolicy> parse_leak_policy(std::string_view text);
// The policy MOCKDEV_LEAKS asks for (kOff when unset or malformed). Read once per process
// and cached: the variable is the process's setting, not the machine's.
LeakPolicy leak_policy();
// "MOCKDEV_LEAKS='x': expected report, fail or off" when the variable is set and malformed.
std::optional<std::string> leak_policy_environment_error();

// The report's text for `objects` under `policy` (not kOff): the block above, or the one
// line for none. Pure (symbolises call sites).
std::string leak_report_text(const LiveObjects& objects, LeakPolicy policy);
// "mockdev: 3 driver objects live at exit (MOCKDEV_LEAKS=fail): exit status 87".
std::string failing_leaks_line(std::uint64_t count);

// Whether this process initialised any API itself (cuInit, zeInit, ...): only such a process
// has objects of its own to report (engine lock held).
bool driver_used_here() MOCKDEV_REQUIRES(g_engine_mutex);
// The driver objects live in this process, every API's (engine lock held).
LiveObjects live_objects() MOCKDEV_REQUIRES(g_engine_mutex);

// The exit work: under a leak policy, prints the report on `out` (once per process) and
// returns the number of live objects that make the process fail (0 under `report`, when
// nothing is live, or when it ran already). Takes the engine lock itself (bounded wait).
std::uint64_t report_leaks_once(std::FILE* out) noexcept;

}  // namespace mockdev::core
