// `accel replay` throughput in events per second (bench/README.md): the test snapshot from
// tests/data (476 events: reading excluded, replay only) and a synthetic trace of 200,000
// events on two streams with the fragmenting pattern of the test traces (live set of up to
// 256 blocks, sizes from the published mix), each replayed from a fresh allocator per
// iteration, without (Arg 0) and with (Arg 1) the second pass for the state at the peak.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "allocator_bench_mix.h"
#include "replay.h"
#include "trace.h"

namespace {

using accel::replay::ReplayOptions;
using accel::replay::Trace;
using accel::replay::TraceEvent;

Trace synthetic_trace(std::size_t events) {
  Trace trace;
  trace.file = "synthetic";
  trace.streams = {0, 1};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> live;  // (id, bytes)
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  while (trace.events.size() < events) {
    const bool allocate = live.size() < 16 || (live.size() < 256 && next() % 2 == 0);
    if (allocate) {
      const std::uint64_t bytes = accel::bench::kSizeMix[next() % accel::bench::kSizeMix.size()];
      const std::uint64_t id = trace.allocations++;
      live.emplace_back(id, bytes);
      trace.events.push_back(TraceEvent{TraceEvent::Kind::kAllocate,
                                        static_cast<std::uint32_t>(id % 2), 0, id, bytes});
    } else {
      const std::size_t victim = next() % live.size();
      const auto [id, bytes] = live[victim];
      live[victim] = live.back();
      live.pop_back();
      ++trace.frees;
      trace.events.push_back(TraceEvent{TraceEvent::Kind::kFree,
                                        static_cast<std::uint32_t>(id % 2), 0, id, bytes});
    }
  }
  return trace;
}

void run(benchmark::State& state, const Trace& trace) {
  ReplayOptions options;
  options.capacity = std::uint64_t{80} << 30;
  options.fragmentation = state.range(0) == 1;
  for (auto _ : state) {
    const auto result = accel::replay::run_replay(trace, options);
    benchmark::DoNotOptimize(result.peak_reserved);
    if (result.oom) state.SkipWithError("the replay ran out of memory");
  }
  state.counters["events_per_second"] = benchmark::Counter(
      static_cast<double>(trace.events.size() * state.iterations()), benchmark::Counter::kIsRate);
}

void BM_ReplaySnapshot(benchmark::State& state) {
  static const Trace trace = accel::replay::read_trace(ACCEL_BENCH_SNAPSHOT_TRACE);
  run(state, trace);
}
BENCHMARK(BM_ReplaySnapshot)->Arg(0)->Arg(1);

void BM_ReplaySynthetic(benchmark::State& state) {
  static const Trace trace = synthetic_trace(200000);
  run(state, trace);
}
BENCHMARK(BM_ReplaySynthetic)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
