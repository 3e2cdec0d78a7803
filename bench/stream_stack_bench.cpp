// Simulated operations per second through the whole stack: runtime (accel::Stream,
// accel::Event) -> CUDA backend -> driver facade -> mock engine, on the simulated machine
// (or a real driver when ACCEL_CUDA_DRIVER is set). Each benchmark reports "ops/s", the
// driver-level operations it queued or asked (records, waits, queries, syncs) per second.
// The engine alone is measured by accel_engine_bench. Reports only.
#include <accel/accelerator.h>
#include <accel/event.h>
#include <accel/stream.h>
#include <benchmark/benchmark.h>

namespace {

bool prepare(benchmark::State& state) {
  if (accel::device_count() < 1) {
    state.SkipWithError("needs a visible accelerator device");
    return false;
  }
  accel::set_device_index(0);
  return true;
}

void report_ops(benchmark::State& state, double ops_per_iteration) {
  state.counters["ops/s"] = benchmark::Counter(
      ops_per_iteration * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// record_event on one stream + wait_event on another: two stream operations per iteration.
void BM_Stack_RecordAndWaitEvent(benchmark::State& state) {
  if (!prepare(state)) return;
  const accel::Stream producer(0);
  const accel::Stream consumer(0, -1);
  accel::Event event;
  for (auto _ : state) {
    event.record(producer);
    consumer.wait_event(event);
  }
  consumer.synchronize();
  report_ops(state, 2);
}
BENCHMARK(BM_Stack_RecordAndWaitEvent);

// Event query after a record: one operation queued, one asked.
void BM_Stack_RecordAndQueryEvent(benchmark::State& state) {
  if (!prepare(state)) return;
  const accel::Stream stream(0);
  accel::Event event;
  for (auto _ : state) {
    event.record(stream);
    benchmark::DoNotOptimize(event.query());
  }
  stream.synchronize();
  report_ops(state, 2);
}
BENCHMARK(BM_Stack_RecordAndQueryEvent);

// Stream query on an idle stream.
void BM_Stack_StreamQuery(benchmark::State& state) {
  if (!prepare(state)) return;
  const accel::Stream stream(0);
  for (auto _ : state) {
    benchmark::DoNotOptimize(stream.query());
  }
  report_ops(state, 1);
}
BENCHMARK(BM_Stack_StreamQuery);

// record + synchronize: the host waits for each operation.
void BM_Stack_RecordAndSynchronize(benchmark::State& state) {
  if (!prepare(state)) return;
  const accel::Stream stream(0);
  accel::Event event;
  for (auto _ : state) {
    event.record(stream);
    event.synchronize();
  }
  report_ops(state, 2);
}
BENCHMARK(BM_Stack_RecordAndSynchronize);

}  // namespace
