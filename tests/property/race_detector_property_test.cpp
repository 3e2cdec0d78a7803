// The race detector against a brute-force happens-before model: random
// programs over 2-5 queues on two devices (accesses to overlapping small buffers, device and
// host ranges, event record/wait, host waits, unregistered kernels), run through the
// observer interface. The model computes happens-before by explicit reachability (program
// order, event waits, host waits) and every conflicting unordered pair. Properties: every
// reported pair is one the model calls racy (no false positives), and a program the model
// calls racy gets at least one report (no misses: Note [Race detection]).

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <bitset>
#include <cstdio>
#include <set>
#include <utility>
#include <vector>

#include "core/race_detector.h"

namespace mockdev::core {
namespace {

constexpr std::size_t kMaxOps = 64;

enum class StepKind { kAccess, kRecord, kWait, kHostWait, kUnknown };

struct Step {
  StepKind kind = StepKind::kAccess;
  int queue = 0;
  std::vector<AccessRange> reads;
  std::vector<AccessRange> writes;
  int event = 0;           // kRecord, kWait: the event slot
  std::size_t target = 0;  // kHostWait: index of a step (an earlier operation)
};

struct Program {
  int queues = 2;
  std::vector<Step> steps;
};

std::uint64_t window(int device) { return static_cast<std::uint64_t>(device + 1) << 44; }
int device_of(int queue) { return queue % 2; }

rc::Gen<AccessRange> gen_range() {
  return rc::gen::exec([] {
    const int device = *rc::gen::inRange(0, 2);
    const bool host = *rc::gen::inRange(0, 8) == 0;
    const std::uint64_t buffer = *rc::gen::inRange<std::uint64_t>(0, 3);
    const std::uint64_t offset = *rc::gen::inRange<std::uint64_t>(0, 48);
    const std::uint64_t bytes = *rc::gen::inRange<std::uint64_t>(1, 24);
    const std::uint64_t base = host ? 0x7f0000000000ull : window(device);
    return AccessRange{base + buffer * 64 + offset, bytes, host};
  });
}

rc::Gen<Program> gen_program() {
  return rc::gen::exec([] {
    Program p;
    p.queues = *rc::gen::inRange(2, 6);
    const int n = *rc::gen::inRange(1, static_cast<int>(kMaxOps));
    for (int i = 0; i < n; ++i) {
      Step s;
      const int pick = *rc::gen::inRange(0, 20);
      s.queue = *rc::gen::inRange(0, p.queues);
      s.kind = pick < 12   ? StepKind::kAccess
               : pick < 15 ? StepKind::kRecord
               : pick < 18 ? StepKind::kWait
               : pick < 19 ? StepKind::kHostWait
                           : StepKind::kUnknown;
      if (s.kind == StepKind::kAccess) {
        s.reads =
            *rc::gen::container<std::vector<AccessRange>>(*rc::gen::inRange(0, 3), gen_range());
        s.writes =
            *rc::gen::container<std::vector<AccessRange>>(*rc::gen::inRange(0, 3), gen_range());
      }
      s.event = *rc::gen::inRange(0, 3);
      s.target = static_cast<std::size_t>(*rc::gen::inRange(0, i + 1));
      p.steps.push_back(std::move(s));
    }
    return p;
  });
}

struct Collector final : RaceListener {
  void on_race(const control::Race& race) override { pairs.emplace(race.first.op, race.second.op); }
  std::set<std::pair<OpId, OpId>> pairs;
};

bool overlap(const AccessRange& a, const AccessRange& b) {
  return a.host == b.host && a.begin < b.begin + b.bytes && b.begin < a.begin + a.bytes;
}

// One operation as the model sees it.
struct ModelOp {
  int queue = 0;
  std::vector<AccessRange> reads, writes;
  std::bitset<kMaxOps + 1> before;  // ops that happen before it
};

RC_GTEST_PROP(RaceDetectorModel, ReportsExactlyTheRacyProgramsAndOnlyRacyPairs, ()) {
  const Program program = *gen_program();
  std::FILE* out = std::tmpfile();
  RC_ASSERT(out != nullptr);
  Collector collector;
  RaceDetectorOptions options;
  options.out = out;
  options.listeners.push_back(&collector);
  auto detector = make_race_detector(options);
  for (int q = 0; q < program.queues; ++q) {
    detector->on_queue_created({static_cast<std::uint64_t>(q + 1), device_of(q), "q"});
  }

  std::vector<ModelOp> ops(1);                // by OpId; 0 unused
  std::vector<OpId> tail(program.queues, 0);  // last op per queue
  std::vector<OpId> events(3, 0);             // event slot -> its record op
  std::vector<OpId> step_op;                  // step -> its op (0: a host wait)
  std::bitset<kMaxOps + 1> host;              // ops the host knows completed
  std::uint64_t epoch = 0;
  for (const Step& s : program.steps) {
    if (s.kind == StepKind::kHostWait) {
      const OpId target = step_op.empty() ? 0 : step_op[std::min(s.target, step_op.size() - 1)];
      step_op.push_back(0);
      if (target == 0) continue;
      host |= ops[target].before;
      host.set(target);
      detector->on_host_wait(target, ++epoch);
      continue;
    }
    OpRecord r;
    r.id = ops.size();
    r.queue = static_cast<std::uint64_t>(s.queue + 1);
    r.host_epoch = epoch;
    ModelOp m;
    m.queue = s.queue;
    m.before = host;
    if (tail[s.queue] != 0) r.deps.push_back(tail[s.queue]);
    if (s.kind == StepKind::kWait && events[s.event] != 0) r.deps.push_back(events[s.event]);
    for (OpId d : r.deps) {
      m.before |= ops[d].before;
      m.before.set(d);
    }
    r.kind = s.kind == StepKind::kRecord ? OpKind::kEventRecord
             : s.kind == StepKind::kWait ? OpKind::kEventWait
                                         : OpKind::kKernel;
    r.name = "op";
    r.reads = s.reads;
    r.writes = s.writes;
    m.reads = s.reads;
    m.writes = s.writes;
    if (s.kind == StepKind::kUnknown) {
      r.unknown_accesses = true;
      const AccessRange all{window(device_of(s.queue)), std::uint64_t{1} << 44, false};
      m.reads.push_back(all);
      m.writes.push_back(all);
    }
    if (s.kind == StepKind::kRecord) events[s.event] = r.id;
    tail[s.queue] = r.id;
    step_op.push_back(r.id);
    ops.push_back(m);
    detector->on_enqueue(r);
  }
  std::fclose(out);

  // The model's racy pairs.
  std::set<std::pair<OpId, OpId>> racy;
  for (OpId b = 1; b < ops.size(); ++b) {
    for (OpId a = 1; a < b; ++a) {
      if (ops[a].queue == ops[b].queue || ops[b].before.test(a)) continue;
      bool conflict = false;
      for (const auto& wa : ops[a].writes) {
        for (const auto& x : ops[b].reads) conflict = conflict || overlap(wa, x);
        for (const auto& x : ops[b].writes) conflict = conflict || overlap(wa, x);
      }
      for (const auto& ra : ops[a].reads) {
        for (const auto& x : ops[b].writes) conflict = conflict || overlap(ra, x);
      }
      if (conflict) racy.emplace(a, b);
    }
  }
  for (const auto& pair : collector.pairs) {
    RC_ASSERT(racy.count(pair) == 1u);  // no false positive
  }
  RC_ASSERT(racy.empty() == collector.pairs.empty());  // no missed racy program
  RC_TAG(racy.empty() ? "race-free" : "racy");
}

}  // namespace
}  // namespace mockdev::core
