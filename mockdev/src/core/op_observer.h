#pragma once
// What the virtual-time stream engine tells its observers (the race detector and the
// timeline trace): every operation as it is enqueued, with the ranges it reads and writes
// and its direct happens-before predecessors; every completion with its virtual times; every
// point where a host thread learns that an operation has finished. Observers never see
// CUDA: the CUDA adapter describes its work to the engine in these terms, and so will a
// Level Zero adapter.
//
// Who calls what: the engine (core/timeline.*) owns the observers and calls them with the
// engine lock held, in the order things happen in the simulation; an observer must not
// call back into the engine or any driver entry point. Observers are installed at machine
// installation (install_observers below) and dropped at the next one.
//
// Note [Happens-before]
// An operation B is ordered after A when A is reachable from B through `deps` (program
// order in a queue, the legacy default stream's implicit barriers, event waits, graph
// launch order) or through the host: every operation enqueued after a host wait on A (a
// synchronize, a query that answered "complete", a copy that returned only once complete,
// the start of a host function) is ordered after A. The host is one clock for the whole
// process, not one per thread: the engine cannot see how host threads synchronise with
// each other (mutexes, joins), so treating every host thread as ordered after every host
// wait that happened before its enqueue (in engine-lock order) is the choice that never
// reports a race in a correctly synchronised program; the price is that a race between
// two host threads that do not synchronise is missed. Priority, implicit serialisation
// (allocation, memset: the Programming Guide's "Implicit Synchronization") and NOT_READY queries
// are never edges.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine_lock.h"
#include "mockdev/machine.h"

namespace mockdev::core {

using OpId = std::uint64_t;  // 1, 2, ... in enqueue order since the machine was installed; 0 = none

// A queue (a CUDA stream, a Level Zero command list): unique for the machine's life, never
// reused, even after the queue is destroyed.
struct QueueInfo {
  std::uint64_t id = 0;
  int device = 0;     // physical device
  std::string label;  // for people: "dev0/legacy", "dev1/stream 7 (prio -1, non-blocking)"
  // How the program holds it: "CUstream 0x55d0c0a1b2c0", "ze_command_list_handle_t 0x..."
  // ("" for a queue of the engine's own). Reports and the trace name the queue by it.
  std::string handle = {};
};

enum class OpKind {
  kCopy,          // reads its source range, writes its destination range
  kMemset,        // writes its range
  kKernel,        // a registered kernel: its declared ranges; unregistered: unknown accesses
  kHostFunction,  // a host callback: its declared ranges, if any
  kEventRecord,   // no accesses: the point an event snapshot stands for
  kEventWait,     // no accesses: the point after which a queue waits for an event
  kGraphLaunch,   // a whole graph launched as one operation of its queue
  kBarrier,       // an implicit legacy-stream barrier, or any other ordering-only node
};

// A byte range [begin, begin + bytes). Device addresses and host addresses live in one
// space: the engine's device addresses (Note [Device addresses] in core/memory.h) never
// collide with a host pointer of this process, so ranges of both kinds can be compared.
struct AccessRange {
  std::uint64_t begin = 0;
  std::uint64_t bytes = 0;
  bool host = false;  // a host range (the host side of a copy, a host function's data)
};

struct OpRecord {
  OpId id = 0;
  std::uint64_t queue = 0;  // QueueInfo::id
  OpKind kind = OpKind::kBarrier;
  std::string name;  // "cuMemcpyHtoDAsync_v2", "kernel saxpy", "host function"
  std::vector<AccessRange> reads;
  std::vector<AccessRange> writes;
  bool unknown_accesses = false;  // a kernel launched but never registered
  std::vector<OpId> deps;         // direct predecessors (Note [Happens-before])
  std::uint64_t host_epoch = 0;   // the host clock when it was enqueued (see on_host_wait)
  std::string call_site;          // where the host enqueued it ("" when unknown)
  // The return address of the driver entry point that enqueued it, in the program (null
  // when unknown): Note [Call sites of operations] in core/race_call_site.h.
  const void* caller = nullptr;
  std::uint64_t host_ns = 0;      // the host's virtual clock when it was enqueued
  std::uint64_t host_thread = 0;  // the enqueuing thread's id (gettid); 0 when not known
};

// A data race: two operations of different queues, at least one writing, overlapping ranges,
// neither ordered before the other.
struct RaceReport {
  OpId first = 0;           // the earlier enqueued
  OpId second = 0;          // the one whose enqueue revealed the race
  std::uint64_t begin = 0;  // the overlapping range
  std::uint64_t bytes = 0;
  std::string text;  // the whole report, as printed on stderr
};

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void on_queue_created(const QueueInfo& queue) = 0;
  virtual void on_queue_destroyed(std::uint64_t queue) = 0;
  // In enqueue order; every id in record.deps was enqueued before.
  virtual void on_enqueue(const OpRecord& record) = 0;
  // Virtual nanoseconds since the machine was installed; end >= start.
  virtual void on_complete(OpId op, std::uint64_t start_ns, std::uint64_t end_ns) = 0;
  // The host now knows `op` has completed: the host clock advances to `host_epoch`, and
  // every later OpRecord carries at least this epoch (Note [Happens-before]).
  virtual void on_host_wait(OpId op, std::uint64_t host_epoch) = 0;
  // An event recorded by `record` was waited on by `wait` (a flow arrow in the trace).
  virtual void on_event_flow(OpId record, OpId wait) = 0;
  // The device memory in use on physical `device` changed to `used_bytes` (allocations and
  // context reserves: core/memory.h) at host virtual time `host_ns`. Most observers ignore it.
  virtual void on_memory(int device, std::uint64_t used_bytes, std::uint64_t host_ns) {
    (void)device;
    (void)used_bytes;
    (void)host_ns;
  }
  // The runtime named `queue` through its tool interface (Note [Runtime names] in
  // core/runtime_tool.h): "cuda:0 stream id=3 (priority 0)". Usually once, right after the
  // queue was created and before its first operation; a later name replaces an earlier one.
  virtual void on_queue_named(std::uint64_t queue, const std::string& name) {
    (void)queue;
    (void)name;
  }
  // The runtime's caching allocator on runtime device `device` ("cuda:0") now holds
  // `allocated_bytes` in live blocks and `reserved_bytes` from the driver, at host virtual time
  // `host_ns` (Note [Runtime names]). Most observers ignore it.
  virtual void on_runtime_memory(const std::string& device, std::int64_t allocated_bytes,
                                 std::int64_t reserved_bytes, std::uint64_t host_ns) {
    (void)device;
    (void)allocated_bytes;
    (void)reserved_bytes;
    (void)host_ns;
  }
  // Called once when the machine is replaced or the process is about to exit.
  virtual void flush() = 0;
};

// Installs the observers the machine and the environment ask for (MOCKDEV_RACES and the
// machine file's race policy: the race detector; MOCKDEV_TRACE: the trace writer) and
// returns them; called by the engine at every machine installation.
std::vector<std::unique_ptr<OpObserver>> make_observers(const MachineSpec& machine)
    MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
