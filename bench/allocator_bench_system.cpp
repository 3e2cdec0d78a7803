// The system allocators on the published size mix (allocator_bench_mix.h): malloc + free
// per pair. Built three times, as allocator_bench_glibc, allocator_bench_mimalloc and
// allocator_bench_jemalloc: linking libmimalloc or libjemalloc replaces malloc for the
// whole process, so each allocator gets its own program (bench/README.md).
// ACCEL_BENCH_SYSTEM_ALLOCATOR names the one this program measures; main() checks that the
// library really is the one serving malloc, so a silently unlinked library cannot pass for
// glibc.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "allocator_bench_mix.h"

#ifndef ACCEL_BENCH_SYSTEM_ALLOCATOR
#error "ACCEL_BENCH_SYSTEM_ALLOCATOR must name glibc, mimalloc or jemalloc"
#endif

namespace {

using accel::bench::kSizeMix;

void BM_SystemPairMix(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    void* p = std::malloc(kSizeMix[i]);
    benchmark::DoNotOptimize(p);
    std::free(p);
    i = (i + 1) % kSizeMix.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetLabel(ACCEL_BENCH_SYSTEM_ALLOCATOR);
}
BENCHMARK(BM_SystemPairMix);

// Two threads, each with its own pairs (malloc's per-thread caches at work).
BENCHMARK(BM_SystemPairMix)->Threads(2)->UseRealTime();

// Which library answers malloc: the symbol each replacement exports.
bool serving(const char* allocator) {
  if (std::strcmp(allocator, "mimalloc") == 0) return dlsym(RTLD_DEFAULT, "mi_malloc") != nullptr;
  if (std::strcmp(allocator, "jemalloc") == 0) return dlsym(RTLD_DEFAULT, "mallctl") != nullptr;
  return dlsym(RTLD_DEFAULT, "mi_malloc") == nullptr && dlsym(RTLD_DEFAULT, "mallctl") == nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (!serving(ACCEL_BENCH_SYSTEM_ALLOCATOR)) {
    std::fprintf(stderr, "allocator_bench: %s is not the allocator of this process\n",
                 ACCEL_BENCH_SYSTEM_ALLOCATOR);
    return 1;
  }
  benchmark::AddCustomContext("malloc", ACCEL_BENCH_SYSTEM_ALLOCATOR);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
