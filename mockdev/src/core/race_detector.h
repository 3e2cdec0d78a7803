#pragma once
// The race detector: an OpObserver (core/op_observer.h) that finds conflicting accesses of
// different queues with no happens-before between them (Note [Happens-before] there).
//
// Note [Race detection]
// Clocks: every queue has a vector clock (core/vector_clock.h) over queues; the host has one
// more. An operation B on queue q starts from q's clock (program order), joins the clock of
// every dep and the host clock, and sets its own entry to B's id. A host wait on A joins A's
// clock into the host clock, which every later operation joins. Clocks are not stored per
// operation: a queue's clock only changes in other queues' entries at a join, so each queue
// keeps a snapshot per join ("segments") and the clock of any of its operations is the
// segment before it with the own entry set to the operation's id. A dep already covered
// (clock[p] >= dep) is skipped: whatever made it covered brought the dep's whole clock.
// Shadow memory: two interval maps (device addresses, host addresses: the host flag of an
// AccessRange keeps them apart) of the last write and the latest read per queue
// (core/shadow_memory.h). A read is checked against the last write; a write against the last
// write and every read since it. Accesses of the same queue never race (program order);
// read-read never races. Each conflicting pair of operations is reported once per contiguous
// overlapping range. Because only the latest access per queue and location is kept, a race
// with an older access that a later one hides is not reported, but a program with a race
// always gets at least one report for it.
// Unknown accesses: an operation with unknown_accesses (an unregistered kernel) reads and
// writes every byte of its device's address window (Note [Device addresses] in
// core/memory.h), so it conflicts with every unordered access to that device's memory;
// such a race has kind kUnknownAccesses ("unknown accesses" in the report) and follows
// the same policy as any other race (the program cannot be shown race-free).
// Call sites: OpRecord::call_site when the engine gave text; otherwise OpRecord::caller, the
// return address the driver entry point captured (Note [Call sites of operations] in
// core/race_call_site.h), kept per operation and symbolised only when a race is reported
// ("app.cpp:42 main" with debug info). An operation with neither (Level Zero's, which the
// loader dispatches) gets, when its enqueue reveals the race, the first frame of the
// current stack outside mockdev, unwound then; an earlier one without a caller stays
// "call site unknown".
// Queues are named as the program names them (QueueInfo::handle, "CUstream 0x55d0c0a1b2c0")
// with the simulation's label beside: `on CUstream 0x55d0c0a1b2c0 (queue "dev0/stream 1
// (non-blocking)")`; a queue without a handle keeps `on queue "<label>"`. A queue the runtime
// named (on_queue_named, Note [Runtime names] in core/runtime_tool.h) has that name after
// its handle: `on CUstream 0x55d0c0a1b2c0 = "cuda:0 stream id=3 (priority 0)" (queue
// "dev0/stream 1 (non-blocking)")`.
// Cost per simple operation (one queue, no deps beyond program order): one map lookup per
// range and O(1) clock work; memory 16 bytes per operation (the caller an index into a table
// of the program's call sites) plus one clock per join.

#include <cstdio>
#include <memory>
#include <vector>

#include "core/op_observer.h"
#include "mockdev/races.h"

namespace mockdev::core {

// Told about every race the detector finds (the control API's log, the trace writer).
class RaceListener {
 public:
  virtual ~RaceListener() = default;
  virtual void on_race(const control::Race& race) = 0;
  // The detector is about to abort() (RacePolicy::kAbort): write out what must survive.
  virtual void before_abort() {}
};

struct RaceDetectorOptions {
  RacePolicy policy = RacePolicy::kReport;  // kOff: not created (make_observers)
  std::FILE* out = stderr;                  // where each race block is printed
  std::vector<RaceListener*> listeners;     // not owned; must outlive the detector
};

std::unique_ptr<OpObserver> make_race_detector(RaceDetectorOptions options);

}  // namespace mockdev::core
