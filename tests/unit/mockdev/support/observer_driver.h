#pragma once
// Drives an OpObserver (core/op_observer.h) the way the stream engine does, so the race
// detector and the trace writer are tested over the observer interface alone: queues,
// operations with program order and explicit deps, host waits with a growing host epoch,
// completions in virtual time. Every enqueue carries the queue's previous operation as a
// dep (program order), as the engine's contract says. Not thread-safe.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/op_observer.h"

namespace mockdev::testing {

using core::AccessRange;
using core::OpId;
using core::OpKind;

// A device range [begin, begin + bytes) on device `device` (Note [Device addresses]).
inline AccessRange dev_range(int device, std::uint64_t offset, std::uint64_t bytes) {
  return AccessRange{(static_cast<std::uint64_t>(device) + 1) << 44 | offset, bytes, false};
}
inline AccessRange host_range(std::uint64_t begin, std::uint64_t bytes) {
  return AccessRange{begin, bytes, true};
}

class ObserverDriver {
 public:
  explicit ObserverDriver(core::OpObserver& observer) : observer_(observer) {}

  std::uint64_t queue(int device, std::string label, std::string handle = {}) {
    const std::uint64_t id = ++queues_;
    observer_.on_queue_created(core::QueueInfo{id, device, std::move(label), std::move(handle)});
    return id;
  }
  // The return address later operations carry as their caller (OpRecord::caller).
  void set_caller(const void* caller) { caller_ = caller; }

  struct Op {
    Op(OpKind kind_, std::string name_, std::vector<AccessRange> reads_ = {},
       std::vector<AccessRange> writes_ = {}, std::vector<OpId> deps_ = {}, bool unknown_ = false,
       std::string call_site_ = {})
        : kind(kind_),
          name(std::move(name_)),
          reads(std::move(reads_)),
          writes(std::move(writes_)),
          deps(std::move(deps_)),
          unknown(unknown_),
          call_site(std::move(call_site_)) {}
    OpKind kind = OpKind::kKernel;
    std::string name = "kernel k";
    std::vector<AccessRange> reads;
    std::vector<AccessRange> writes;
    std::vector<OpId> deps;
    bool unknown = false;
    std::string call_site;
  };

  OpId enqueue(std::uint64_t queue, Op op) {
    core::OpRecord record;
    record.id = ++ops_;
    record.queue = queue;
    record.kind = op.kind;
    record.name = std::move(op.name);
    record.reads = std::move(op.reads);
    record.writes = std::move(op.writes);
    record.unknown_accesses = op.unknown;
    if (OpId previous = last_[queue]; previous != 0) record.deps.push_back(previous);
    for (OpId dep : op.deps) record.deps.push_back(dep);
    record.host_epoch = epoch_;
    record.call_site = std::move(op.call_site);
    record.caller = caller_;
    last_[queue] = record.id;
    observer_.on_enqueue(record);
    return record.id;
  }

  // CSAN's "kernel launch" with read-only and written buffers.
  OpId kernel(std::uint64_t queue, std::vector<AccessRange> reads,
              std::vector<AccessRange> writes) {
    return enqueue(queue, Op{OpKind::kKernel, "kernel k", std::move(reads), std::move(writes)});
  }
  OpId record(std::uint64_t queue) {
    return enqueue(queue, Op{OpKind::kEventRecord, "cuEventRecord"});
  }
  // A wait on the event snapshot `record` (0: an event never recorded, no edge).
  OpId wait(std::uint64_t queue, OpId record) {
    Op op{OpKind::kEventWait, "cuStreamWaitEvent"};
    if (record != 0) op.deps.push_back(record);
    const OpId id = enqueue(queue, std::move(op));
    if (record != 0) observer_.on_event_flow(record, id);
    return id;
  }
  void host_wait(OpId op) { observer_.on_host_wait(op, ++epoch_); }
  // cuStreamSynchronize: the host waits for the queue's last operation.
  void synchronize(std::uint64_t queue) {
    if (OpId last = last_[queue]; last != 0) host_wait(last);
  }
  // cuCtxSynchronize over every queue.
  void synchronize_all() {
    for (const auto& [queue, last] : last_) {
      if (last != 0) host_wait(last);
    }
  }
  OpId last(std::uint64_t queue) { return last_[queue]; }

 private:
  core::OpObserver& observer_;
  std::uint64_t queues_ = 0;
  OpId ops_ = 0;
  std::uint64_t epoch_ = 0;
  const void* caller_ = nullptr;
  std::map<std::uint64_t, OpId> last_;
};

}  // namespace mockdev::testing
