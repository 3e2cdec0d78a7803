// StreamGuard enter+exit and the per-thread current-stream calls, against the floor of
// BM_ThreadLocalLoad (device_index_guard_bench.cpp, same program). The runtime is
// initialised, the streams and contexts exist before timing starts. Reports only.
#include <accel/accelerator.h>
#include <accel/stream.h>
#include <accel/stream_guard.h>
#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

bool prepare(benchmark::State& state, int needed_devices) {
  if (accel::device_count() < needed_devices) {
    state.SkipWithError("needs more visible accelerator devices");
    return false;
  }
  accel::set_device_index(needed_devices - 1);
  accel::set_device_index(0);
  return true;
}

thread_local std::int64_t tls_slot = 0;

// The pattern a same-device StreamGuard is made of, with nothing else: save a thread-local
// slot into an object the compiler must keep in memory (the benchmark lets the guard's
// address escape), overwrite the slot, then restore it from the object. The slot is fixed,
// so the compiler carries its value from one iteration to the next in a register.
void BM_SaveRestoreThreadLocalSlot(benchmark::State& state) {
  std::int64_t next = 1;
  for (auto _ : state) {
    struct {
      std::int64_t previous;
      std::int64_t current;
    } saved{tls_slot, next};
    tls_slot = saved.current;
    benchmark::DoNotOptimize(&saved);
    tls_slot = saved.previous;
  }
}
BENCHMARK(BM_SaveRestoreThreadLocalSlot);

// The same pattern on a slot of a thread-local table chosen by an index the compiler cannot
// see (read from an object whose address escapes), as the guard's slot is chosen by the
// stream's device: each iteration now reads back through memory the slot the previous one
// restored, a store-to-load forward no guard on that table can avoid.
// BM_StreamGuard_SameDevice / this is the guard's own overhead.
thread_local std::int64_t tls_table[128] = {};

void BM_SaveRestoreIndexedThreadLocalSlot(benchmark::State& state) {
  int index = 0;
  benchmark::DoNotOptimize(&index);
  std::int64_t next = 1;
  for (auto _ : state) {
    const int slot = index;
    struct {
      std::int64_t previous;
      std::int64_t current;
    } saved{tls_table[slot], next};
    tls_table[slot] = saved.current;
    benchmark::DoNotOptimize(&saved);
    tls_table[slot] = saved.previous;
  }
}
BENCHMARK(BM_SaveRestoreIndexedThreadLocalSlot);

// A guard on a stream of the current device: only the stream is exchanged and restored.
void BM_StreamGuard_SameDevice(benchmark::State& state) {
  if (!prepare(state, 1)) return;
  const accel::Stream stream(0);
  for (auto _ : state) {
    accel::StreamGuard guard(stream);
    benchmark::DoNotOptimize(&guard);
  }
}
BENCHMARK(BM_StreamGuard_SameDevice);

// A guard on a stream of another device: two real device switches per iteration.
void BM_StreamGuard_SwitchDevice(benchmark::State& state) {
  if (!prepare(state, 2)) return;
  const accel::Stream stream(1);
  for (auto _ : state) {
    accel::StreamGuard guard(stream);
    benchmark::DoNotOptimize(&guard);
  }
}
BENCHMARK(BM_StreamGuard_SwitchDevice);

// current_stream(index): argument resolution, checks and one thread-local read.
void BM_CurrentStream(benchmark::State& state) {
  if (!prepare(state, 1)) return;
  for (auto _ : state) {
    benchmark::DoNotOptimize(accel::current_stream(0));
  }
}
BENCHMARK(BM_CurrentStream);

// set_stream on the current device.
void BM_SetStream(benchmark::State& state) {
  if (!prepare(state, 1)) return;
  const accel::Stream stream(0);
  for (auto _ : state) {
    accel::set_stream(stream);
  }
  accel::set_stream(accel::Stream::default_stream(0));
}
BENCHMARK(BM_SetStream);

}  // namespace
