#pragma once
// Where the program enqueued an operation: one return address per operation, captured at
// the driver entry point, symbolised only when a report needs it.
//
// Note [Call sites of operations]
// A race report must say where both operations came from, but the earlier one's stack is
// gone by the time the later one reveals the race, and unwinding at every enqueue would
// cost microseconds on the op path (Note [Op path cost] in core/timeline.h). So each
// exported CUDA entry point (cuda/cuda_facade.cpp) opens a CallerScope with its own return
// address, __builtin_return_address(0): the instruction after the call in whatever called
// the driver (the program, or the runtime's backend when the program went through accel).
// That is one thread-local pointer written and restored per driver call, inline. The timeline
// copies it into OpRecord::caller when (and only when) observers exist, and the race
// detector keeps it per operation as an index into its table of distinct callers (inside
// its 16-byte record; the last caller is checked first, as consecutive operations mostly
// share a call site). The scope restores the previous value, so a
// host function that calls the driver while an outer call is still enqueuing does not
// change the outer call's site.
// Symbolising (describe_call_site) happens when a race is reported or a trace slice is
// written, once per distinct address (cached): dladdr gives the object, the nearest
// exported symbol and the offset; for file:line, `addr2line -f -C -e OBJECT OFFSET` is run
// when it is on PATH (binutils; debug info needed), looking up the call instruction
// (return address - 1). Without debug info or addr2line the text falls back to
// "function+0xoffset (object)" or "object+0xoffset", which `addr2line -e` resolves later.
// Level Zero calls reach the mock through the loader's dispatch tables, so a return address
// there would name the loader, not the program: an enqueuing Level Zero call
// (zeCommandListAppend*, zeCommandQueueExecuteCommandLists) unwinds its stack instead, to the
// first frame outside libmockdev and the libze_* files (address ranges read once), and opens
// the CallerScope with it -- only while observers exist, so a program without the race
// detector or a trace never pays the unwind (level_zero/ze_state.cpp call).
// A program on the accel runtime calls the driver through the runtime, so that return address
// would name the runtime's backend. When the runtime's tool interface is attached
// (ACCEL_TOOL_LIBRARY naming this library), the runtime brackets each of its calls that
// queue work with the program's return address (accel_tool_enter_api/leave_api, exported in
// control/runtime_tool.cpp), kept in a thread-local that every CallerScope opened meanwhile
// prefers to its own address, on both APIs (Level Zero then skips its unwind).
// Thread safety: CallerScope and current_caller touch only the calling thread's state;
// describe_call_site takes a lock of its own around its cache (the detector and the trace
// call it with the engine lock held, tests without).

#include <string>

namespace mockdev::core {

namespace detail {
// The innermost CallerScope's address on this thread. constinit: no dynamic initialisation,
// so the facades reach it with a plain thread-local access, no wrapper call.
extern constinit thread_local const void* t_caller;
// The program's return address while the accel runtime is inside one of its calls that
// queue work (accel_tool_enter_api .. accel_tool_leave_api, Note [The tool interface]):
// null otherwise.
extern constinit thread_local const void* t_api_caller;
}  // namespace detail

// While alive, operations enqueued on this thread carry `return_address` as their caller.
// Inline: the facades' forwarders run it on every driver call.
class CallerScope {
 public:
  // Inside a runtime call that queues work, the driver's return address is the runtime's
  // own line: the program's, given through the tool interface, stands instead.
  explicit CallerScope(const void* return_address) noexcept : saved_(detail::t_caller) {
    detail::t_caller = detail::t_api_caller != nullptr ? detail::t_api_caller : return_address;
  }
  ~CallerScope() { detail::t_caller = saved_; }
  CallerScope(const CallerScope&) = delete;
  CallerScope& operator=(const CallerScope&) = delete;

 private:
  const void* saved_;
};

// The innermost CallerScope's address on this thread (null outside any).
inline const void* current_caller() noexcept { return detail::t_caller; }

// "app.cpp:42 enqueue_pair()" (file:line and function, from debug info), else
// "enqueue_pair()+0x1a (app)" or "app+0x1234"; "" for null or an address in no object.
// Cached per address for the life of the process. `use_addr2line` false: dladdr only.
std::string describe_call_site(const void* return_address, bool use_addr2line = true);

}  // namespace mockdev::core
