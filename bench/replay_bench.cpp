// `accel replay` throughput in events per second (bench/README.md, "Allocator benchmarks").
//
//   BM_ReplaySnapshot/a, BM_ReplaySynthetic/a   the replay alone, on the test snapshot of
//       tests/data (476 events) and a synthetic 200,000-event trace; a = 1 adds the second
//       pass for the state at the peak. Reading is not timed.
//   BM_ReadTrace/json/N, BM_ReadTrace/csv/N     read_trace() of a file of N events, the same
//       events as a PyTorch snapshot (JSON, one entry per line, two frames each, a free as
//       free_requested + free_completed) and as an RMM log (CSV).
//   BM_ReadAndReplay/json/N, .../csv/N          what `accel replay FILE` does: read, replay,
//       the state at the peak.
//
// The synthetic events: two streams, the fragmenting pattern of the test traces (a live set
// of up to 256 blocks, sizes from the published mix), addresses reused as blocks are freed,
// as a real program's are. N: ACCEL_REPLAY_BENCH_EVENTS, a comma list (default
// 100000,1000000). The files are written once per N into ACCEL_REPLAY_BENCH_DIR (kept, so
// that another build's accel-replay can be timed on the same files) or else a temporary
// directory removed at exit. Rates are per second of the process's CPU time (the CI
// machine is shared: wall time there measures the neighbours).
#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "allocator_bench_mix.h"
#include "replay.h"
#include "trace.h"

namespace {

using accel::replay::ReplayOptions;
using accel::replay::Trace;
using accel::replay::TraceEvent;

// The synthetic program: (allocate?, block id, bytes, stream) in order, `events` of them.
struct Step {
  bool allocate;
  std::uint64_t id;
  std::uint64_t bytes;
  std::uint32_t stream;
};
std::vector<Step> synthetic_steps(std::size_t events) {
  std::vector<Step> steps;
  steps.reserve(events);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> live;  // (id, bytes)
  std::uint64_t allocations = 0;
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  while (steps.size() < events) {
    const bool allocate = live.size() < 16 || (live.size() < 256 && next() % 2 == 0);
    if (allocate) {
      const std::uint64_t bytes = accel::bench::kSizeMix[next() % accel::bench::kSizeMix.size()];
      const std::uint64_t id = allocations++;
      live.emplace_back(id, bytes);
      steps.push_back(Step{true, id, bytes, static_cast<std::uint32_t>(id % 2)});
    } else {
      const std::size_t victim = next() % live.size();
      const auto [id, bytes] = live[victim];
      live[victim] = live.back();
      live.pop_back();
      steps.push_back(Step{false, id, bytes, static_cast<std::uint32_t>(id % 2)});
    }
  }
  return steps;
}

Trace synthetic_trace(std::size_t events) {
  Trace trace;
  trace.file = "synthetic";
  trace.streams = {0, 1};
  for (const Step& s : synthetic_steps(events)) {
    const auto kind = s.allocate ? TraceEvent::Kind::kAllocate : TraceEvent::Kind::kFree;
    (s.allocate ? trace.allocations : trace.frees) += 1;
    trace.events.push_back(TraceEvent{kind, s.stream, 0, s.id, s.bytes});
  }
  return trace;
}

// The directory the trace files go to (Note at the top: kept or temporary).
class TraceDirectory {
 public:
  TraceDirectory() {
    if (const char* dir = std::getenv("ACCEL_REPLAY_BENCH_DIR"); dir != nullptr && *dir != '\0') {
      path_ = dir;
      std::filesystem::create_directories(path_);
      return;
    }
    std::string pattern = (std::filesystem::temp_directory_path() / "replay-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
    temporary_ = true;
  }
  ~TraceDirectory() {
    std::error_code ignored;
    if (temporary_) std::filesystem::remove_all(path_, ignored);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
  bool temporary_ = false;
};

TraceDirectory& directory() {
  static TraceDirectory dir;
  return dir;
}

// Addresses: a block takes a free slot (the lowest freed one), as an allocator reuses memory.
std::vector<std::uint64_t> block_addresses(const std::vector<Step>& steps) {
  std::vector<std::uint64_t> address;
  std::vector<std::uint64_t> free_slots;
  std::uint64_t slots = 0;
  std::map<std::uint64_t, std::uint64_t> slot_of;  // live id -> slot
  for (const Step& s : steps) {
    if (s.allocate) {
      std::uint64_t slot = slots;
      if (!free_slots.empty()) {
        slot = free_slots.back();
        free_slots.pop_back();
      } else {
        ++slots;
      }
      slot_of[s.id] = slot;
      if (address.size() <= s.id) address.resize(s.id + 1);
      address[s.id] = 0x7f0000000000 + slot * (std::uint64_t{16} << 20);
    } else {
      free_slots.push_back(slot_of.at(s.id));
      slot_of.erase(s.id);
    }
  }
  return address;
}

void write_json(const std::string& path, const std::vector<Step>& steps) {
  const std::vector<std::uint64_t> address = block_addresses(steps);
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::fputs("{\"segments\": [],\n\"device_traces\": [\n[\n", f);
  std::uint64_t time_us = 1700000000000000;
  const char* frames =
      "[{\"name\": \"forward\", \"filename\": \"model.py\", \"line\": 120}, {\"name\": "
      "\"train_step\", \"filename\": \"train.py\", \"line\": 42}]";
  bool first = true;
  auto entry = [&](const char* action, const Step& s) {
    const std::uint64_t stream = s.stream == 0 ? 0 : 94001172512768;
    fmt::print(f,
               "{}{{\"action\": \"{}\", \"addr\": {}, \"size\": {}, \"stream\": {}, "
               "\"compile_context\": \"N/A\", \"user_metadata\": \"\", \"time_us\": {}, "
               "\"frames\": {}}}",
               first ? "" : ",\n", action, address[s.id], s.bytes, stream, ++time_us, frames);
    first = false;
  };
  for (const Step& s : steps) {
    if (s.allocate) {
      entry("alloc", s);
    } else {
      entry("free_requested", s);
      entry("free_completed", s);
    }
  }
  std::fputs("\n", f);
  std::fputs("]\n]}\n", f);
  std::fclose(f);
}

void write_csv(const std::string& path, const std::vector<Step>& steps) {
  const std::vector<std::uint64_t> address = block_addresses(steps);
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  std::fputs("Thread,Time,Action,Pointer,Size,Stream\n", f);
  std::uint64_t t = 0;
  for (const Step& s : steps) {
    ++t;
    fmt::print(f, "140229,14:{:02}:{:02}.{:06},{},{:#x},{},{}\n", t / 60000000 % 60,
               t / 1000000 % 60, t % 1000000, s.allocate ? "allocate" : "free", address[s.id],
               s.bytes, s.stream == 0 ? "0x0" : "0x557e5a7f0000");
  }
  std::fclose(f);
}

// The file of `events` events in `format` ("json" or "csv"), written on first use.
const std::string& trace_file(const std::string& format, std::size_t events) {
  static std::map<std::pair<std::string, std::size_t>, std::string> files;
  auto [it, inserted] = files.try_emplace({format, events});
  if (inserted) {
    it->second = directory().file(fmt::format("synthetic_{}.{}", events, format));
    const std::vector<Step> steps = synthetic_steps(events);
    if (format == "json") {
      write_json(it->second, steps);
    } else {
      write_csv(it->second, steps);
    }
  }
  return it->second;
}

void count_events(benchmark::State& state, std::size_t events) {
  state.counters["events_per_second"] = benchmark::Counter(
      static_cast<double>(events * state.iterations()), benchmark::Counter::kIsRate);
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
  count_events(state, trace.events.size());
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

void read_trace_file(benchmark::State& state, const std::string& format, std::size_t events) {
  const std::string& path = trace_file(format, events);
  std::uint64_t read = 0;
  for (auto _ : state) {
    const Trace trace = accel::replay::read_trace(path);
    read = trace.events.size();
    benchmark::DoNotOptimize(read);
  }
  if (read != events) state.SkipWithError("the trace file holds another number of events");
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(std::filesystem::file_size(path) * state.iterations()),
      benchmark::Counter::kIsRate);
  count_events(state, events);
}

void read_and_replay(benchmark::State& state, const std::string& format, std::size_t events) {
  const std::string& path = trace_file(format, events);
  ReplayOptions options;
  options.capacity = std::uint64_t{80} << 30;
  for (auto _ : state) {
    const Trace trace = accel::replay::read_trace(path);
    const auto result = accel::replay::run_replay(trace, options);
    benchmark::DoNotOptimize(result.peak_reserved);
    if (result.oom) state.SkipWithError("the replay ran out of memory");
  }
  count_events(state, events);
}

std::vector<std::size_t> sizes() {
  const char* text = std::getenv("ACCEL_REPLAY_BENCH_EVENTS");
  std::string list = text != nullptr && *text != '\0' ? text : "100000,1000000";
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    out.push_back(std::stoull(list.substr(start, comma - start)));
    start = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  for (const std::size_t n : sizes()) {
    for (const std::string format : {"json", "csv"}) {
      benchmark::RegisterBenchmark(fmt::format("BM_ReadTrace/{}/{}", format, n).c_str(),
                                   read_trace_file, format, n)
          ->Unit(benchmark::kMillisecond)
          ->MeasureProcessCPUTime();
    }
    for (const std::string format : {"json", "csv"}) {
      benchmark::RegisterBenchmark(fmt::format("BM_ReadAndReplay/{}/{}", format, n).c_str(),
                                   read_and_replay, format, n)
          ->Unit(benchmark::kMillisecond)
          ->MeasureProcessCPUTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
