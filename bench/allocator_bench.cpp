// The caching allocator (DeviceCachingAllocator) on the published size mix
// (allocator_bench_mix.h), over a provider that touches no memory (the replay's
// SimulatedDevice: fake addresses, capacity accounting only), so that what is timed is the
// allocator's own work: size rounding, the best-fit lookup in the ordered free set,
// splitting, merging, statistics. Also: latency as the number of cached free blocks grows,
// two threads (two devices, and two streams of one device), and the public API
// (accel::raw_alloc / raw_delete) on the simulated hardware. bench/README.md has the
// figures' meaning; timings are never asserted.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "accel/memory.h"
#include "accel/stream.h"
#include "allocator/device_caching_allocator.h"
#include "allocator_bench_mix.h"
#include "simulated_device.h"

namespace {

using accel::bench::kSizeMix;
using accel::detail::alloc::AllocatorConfig;
using accel::detail::alloc::DeviceCachingAllocator;

constexpr std::uint64_t kCapacity = std::uint64_t{1} << 44;  // 16 TiB: never the limit
const accel::HostFrame kSite{"allocator_bench.cpp", 0, "bench"};

std::unique_ptr<DeviceCachingAllocator> make_allocator() {
  return std::make_unique<DeviceCachingAllocator>(
      std::make_unique<accel::replay::SimulatedDevice>(kCapacity), AllocatorConfig{});
}

// Every size of the mix once, so the pairs below find cached blocks (the steady state).
void warm(DeviceCachingAllocator& allocator, std::int64_t stream) {
  std::vector<std::uint64_t> held;
  for (std::size_t size : kSizeMix) held.push_back(allocator.allocate(size, stream, kSite));
  for (std::uint64_t address : held) allocator.free(address, kSite);
}

void pairs(benchmark::State& state, DeviceCachingAllocator& allocator, std::int64_t stream) {
  std::size_t i = 0;
  for (auto _ : state) {
    const std::uint64_t address = allocator.allocate(kSizeMix[i], stream, kSite);
    benchmark::DoNotOptimize(address);
    allocator.free(address, kSite);
    i = (i + 1) % kSizeMix.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_CachingPairMix(benchmark::State& state) {
  auto allocator = make_allocator();
  warm(*allocator, 0);
  pairs(state, *allocator, 0);
  state.SetLabel("caching allocator");
}
BENCHMARK(BM_CachingPairMix);

// n cached free blocks of distinct sizes on one stream (large pool: 1 MiB + 512 * k bytes,
// each kept apart from its neighbours by a live separator so none merge), then pairs of a
// size from the middle of that range: the best-fit lookup searches n blocks.
void BM_CachingPairCachedBlocks(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  auto allocator = make_allocator();
  std::vector<std::uint64_t> blocks, separators;
  for (std::size_t k = 0; k < n; ++k) {
    blocks.push_back(allocator->allocate((1u << 20) + 512 * (k + 1), 0, kSite));
    separators.push_back(allocator->allocate((1u << 20) + 512, 0, kSite));
  }
  for (std::uint64_t address : blocks) allocator->free(address, kSite);
  const std::size_t size = (1u << 20) + 512 * (n / 2 + 1);
  for (auto _ : state) {
    const std::uint64_t address = allocator->allocate(size, 0, kSite);
    benchmark::DoNotOptimize(address);
    allocator->free(address, kSite);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["cached_blocks"] = static_cast<double>(n);
  for (std::uint64_t address : separators) allocator->free(address, kSite);
}
BENCHMARK(BM_CachingPairCachedBlocks)->RangeMultiplier(4)->Range(1024, 65536)->Arg(2048)->Arg(8192)->Arg(32768);

// Two threads. Arg 0: two devices (one allocator each: no shared lock). Arg 1: two streams
// of one device (one allocator, one lock). Each thread runs its own pairs on the mix, on
// its own stream; Setup (before the threads start) builds and warms the allocators.
std::unique_ptr<DeviceCachingAllocator> two_thread_allocators[2];

void two_thread_setup(const benchmark::State& state) {
  const bool one_device = state.range(0) == 1;
  two_thread_allocators[0] = make_allocator();
  two_thread_allocators[1] = one_device ? nullptr : make_allocator();
  for (int t = 0; t < 2; ++t) {
    warm(one_device ? *two_thread_allocators[0] : *two_thread_allocators[t], one_device ? t : 0);
  }
}

void two_thread_teardown(const benchmark::State&) {
  two_thread_allocators[0].reset();
  two_thread_allocators[1].reset();
}

void BM_CachingTwoThreads(benchmark::State& state) {
  const bool one_device = state.range(0) == 1;
  const int me = state.thread_index();
  DeviceCachingAllocator& allocator =
      one_device ? *two_thread_allocators[0] : *two_thread_allocators[me];
  pairs(state, allocator, one_device ? me : 0);
  state.SetLabel(one_device ? "two streams, one device" : "two devices");
}
BENCHMARK(BM_CachingTwoThreads)
    ->Arg(0)
    ->Arg(1)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime()
    ->Setup(two_thread_setup)
    ->Teardown(two_thread_teardown);

// The public API on the simulated hardware: raw_alloc / raw_delete on the current stream.
void BM_RawAllocPairMix(benchmark::State& state) {
  std::vector<void*> held;
  for (std::size_t size : kSizeMix) held.push_back(accel::raw_alloc(size));
  for (void* p : held) accel::raw_delete(p);
  std::size_t i = 0;
  for (auto _ : state) {
    void* p = accel::raw_alloc(kSizeMix[i]);
    benchmark::DoNotOptimize(p);
    accel::raw_delete(p);
    i = (i + 1) % kSizeMix.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.SetLabel("accel::raw_alloc on mockdev");
}
BENCHMARK(BM_RawAllocPairMix);

}  // namespace

int main(int argc, char** argv) {
  // The public-API benchmark runs on the simulated hardware unless the caller chose a driver.
  ::setenv("ACCEL_CUDA_DRIVER", ACCEL_BENCH_MOCK_CUDA_DRIVER, 0);
  ::setenv("ACCEL_NVML_LIBRARY", ACCEL_BENCH_MOCK_NVML_LIBRARY, 0);
  ::setenv("MOCKDEV_MACHINE", "1xa100", 0);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
