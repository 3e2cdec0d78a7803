// The race detector's cost per operation (core/race_detector.h), over the observer interface
// alone: the stream engine's goal is 5 M simple operations per second on one core, so the
// detector, which sees every operation, must stay well under 200 ns each. One OpRecord is
// reused, so only the detector is measured, not the building of records.

#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "core/op_observer.h"
#include "core/race_detector.h"

namespace {

using mockdev::core::AccessRange;
using mockdev::core::OpKind;
using mockdev::core::OpRecord;

AccessRange buffer(std::uint64_t i, std::uint64_t bytes = 4096) {
  return AccessRange{(std::uint64_t{1} << 44) + i * 8192, bytes, false};
}

std::unique_ptr<mockdev::core::OpObserver> detector(int queues) {
  mockdev::core::RaceDetectorOptions options;
  auto d = mockdev::core::make_race_detector(options);
  for (int q = 1; q <= queues; ++q) {
    d->on_queue_created({static_cast<std::uint64_t>(q), 0, "dev0/stream " + std::to_string(q)});
  }
  return d;
}

// A copy on one queue: reads buffer i, writes buffer i + 1 (of 64), program order only.
void BM_RaceDetector_CopiesOneQueue(benchmark::State& state) {
  auto d = detector(1);
  OpRecord r;
  r.queue = 1;
  r.kind = OpKind::kCopy;
  r.name = "cuMemcpyDtoDAsync_v2";
  r.reads.resize(1);
  r.writes.resize(1);
  std::uint64_t id = 0;
  for (auto _ : state) {
    ++id;
    r.id = id;
    r.deps.assign(1, id - 1);
    r.reads[0] = buffer(id % 64);
    r.writes[0] = buffer((id + 1) % 64);
    d->on_enqueue(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RaceDetector_CopiesOneQueue);

// Memsets round-robin over 8 queues, each queue its own buffers; every 16 operations a queue
// records and the next one waits (a join: a clock segment is stored).
void BM_RaceDetector_EightQueuesWithEvents(benchmark::State& state) {
  auto d = detector(8);
  OpRecord r;
  r.kind = OpKind::kMemset;
  r.name = "cuMemsetD32Async";
  r.writes.resize(1);
  std::vector<std::uint64_t> last(9, 0);
  std::uint64_t id = 0;
  for (auto _ : state) {
    ++id;
    const std::uint64_t q = 1 + id % 8;
    r.id = id;
    r.queue = q;
    r.deps.clear();
    if (last[q] != 0) r.deps.push_back(last[q]);
    if (id % 16 == 0) {
      r.kind = OpKind::kEventWait;
      r.writes.clear();
      r.deps.push_back(last[1 + (q % 8)]);  // the next queue's latest operation
    } else {
      r.kind = OpKind::kMemset;
      r.writes.assign(1, buffer(q * 16 + id % 16, 1024));
    }
    last[q] = id;
    d->on_enqueue(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RaceDetector_EightQueuesWithEvents);

// A device-to-host copy followed by a host wait on it (a blocking copy): one host clock join
// per operation.
void BM_RaceDetector_BlockingCopies(benchmark::State& state) {
  auto d = detector(2);
  OpRecord r;
  r.kind = OpKind::kCopy;
  r.name = "cuMemcpyDtoH_v2";
  r.reads.resize(1);
  r.writes.resize(1);
  std::vector<std::uint64_t> last(3, 0);
  std::uint64_t id = 0;
  for (auto _ : state) {
    ++id;
    const std::uint64_t q = 1 + id % 2;
    r.id = id;
    r.queue = q;
    r.deps.assign(1, last[q]);
    r.reads[0] = buffer(id % 32);
    r.writes[0] = AccessRange{0x7f0000000000 + (id % 32) * 8192, 4096, true};
    r.host_epoch = id;
    last[q] = id;
    d->on_enqueue(r);
    d->on_host_wait(id, id);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RaceDetector_BlockingCopies);

}  // namespace

BENCHMARK_MAIN();
