// The stream engine's cost: simple operations per second in the engine alone (goal: 5 M/s on
// one core), and through the simulated driver's facade
// (cuMemsetD8Async on a stream, loaded with dlopen as a client loads libcuda.so.1).
// Each engine operation takes the engine lock, as every driver call does.

#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "accel_abi/cuda_driver.h"
#include "core/engine.h"
#include "core/memory.h"
#include "core/timeline.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"

namespace {

using namespace mockdev;  // NOLINT

void install(StreamSettings::Schedule schedule) {
  MachineSpec m = load_machine("1xa100");
  m.streams.schedule = schedule;
  control::reset(m);
}

// An ordering-only operation on one queue, completed at enqueue (eager).
void BM_EngineOrderingOpEager(benchmark::State& state) {
  install(StreamSettings::Schedule::kEager);
  std::uint64_t queue = 0;
  {
    core::EngineLock lock;
    queue = core::create_queue(0, "bench");
  }
  for (auto _ : state) {
    core::EngineLock lock;
    core::OpDesc desc;
    desc.kind = core::OpKind::kBarrier;
    desc.name = "bench";
    desc.duration_ns = 10;
    const core::OpId deps[] = {core::queue_tail(queue)};
    benchmark::DoNotOptimize(core::enqueue(queue, std::move(desc), deps));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EngineOrderingOpEager);

// A 64-byte memset into device memory, completed at enqueue (eager).
void BM_EngineMemsetOpEager(benchmark::State& state) {
  install(StreamSettings::Schedule::kEager);
  std::uint64_t queue = 0;
  std::uint64_t address = 0;
  {
    core::EngineLock lock;
    queue = core::create_queue(0, "bench");
    address = *core::allocate(Api::kCuda, 0, 4096);
  }
  for (auto _ : state) {
    core::EngineLock lock;
    core::OpDesc desc;
    desc.kind = core::OpKind::kMemset;
    desc.name = "bench";
    desc.write = core::AccessRange{address, 64, false};
    desc.duration_ns = 1;
    desc.action.kind = core::ActionKind::kFill;
    desc.action.dst = address;
    desc.action.bytes = 64;
    desc.action.pattern = 7;
    const core::OpId deps[] = {core::queue_tail(queue)};
    benchmark::DoNotOptimize(core::enqueue(queue, std::move(desc), deps));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EngineMemsetOpEager);

// Adversarial: 1000 ordering operations stay pending, then one host wait forces them all.
void BM_EngineAdversarialBatchThenWait(benchmark::State& state) {
  install(StreamSettings::Schedule::kAdversarial);
  std::uint64_t queue = 0;
  {
    core::EngineLock lock;
    queue = core::create_queue(0, "bench");
  }
  for (auto _ : state) {
    core::EngineLock lock;
    for (int i = 0; i < 1000; ++i) {
      core::OpDesc desc;
      desc.kind = core::OpKind::kBarrier;
      desc.name = "bench";
      const core::OpId deps[] = {core::queue_tail(queue)};
      core::enqueue(queue, std::move(desc), deps);
    }
    const core::OpId tail[] = {core::queue_tail(queue)};
    benchmark::DoNotOptimize(core::wait_for(tail, "bench"));
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_EngineAdversarialBatchThenWait);

// Through the facade: cuMemsetD8Async of 64 bytes on a created stream.
void BM_FacadeMemsetD8Async(benchmark::State& state) {
  using namespace accel::cuda_abi;  // NOLINT
  install(StreamSettings::Schedule::kEager);
  void* lib = dlopen(MOCKDEV_BENCH_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    state.SkipWithError("cannot load the simulated libcuda.so.1");
    return;
  }
  auto init = reinterpret_cast<PFN_cuInit_v2000>(dlsym(lib, "cuInit"));
  auto retain =
      reinterpret_cast<PFN_cuDevicePrimaryCtxRetain_v7000>(dlsym(lib, "cuDevicePrimaryCtxRetain"));
  auto set_current = reinterpret_cast<PFN_cuCtxSetCurrent_v4000>(dlsym(lib, "cuCtxSetCurrent"));
  auto create = reinterpret_cast<PFN_cuStreamCreate_v2000>(dlsym(lib, "cuStreamCreate"));
  auto alloc = reinterpret_cast<PFN_cuMemAlloc_v3020>(dlsym(lib, "cuMemAlloc_v2"));
  auto memset = reinterpret_cast<PFN_cuMemsetD8Async_v3020>(dlsym(lib, "cuMemsetD8Async"));
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;
  CUdeviceptr d = 0;
  if (init(0) != CUDA_SUCCESS || retain(&ctx, 0) != CUDA_SUCCESS ||
      set_current(ctx) != CUDA_SUCCESS || create(&stream, 0) != CUDA_SUCCESS ||
      alloc(&d, 4096) != CUDA_SUCCESS) {
    state.SkipWithError("driver setup failed");
    return;
  }
  for (auto _ : state) {
    if (memset(d, 7, 64, stream) != CUDA_SUCCESS) {
      state.SkipWithError("cuMemsetD8Async failed");
      return;
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FacadeMemsetD8Async);

}  // namespace

BENCHMARK_MAIN();
