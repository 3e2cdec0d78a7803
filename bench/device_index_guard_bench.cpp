// Google Benchmark programs for the per-thread device machinery of the runtime:
// DeviceIndexGuard enter+exit (same index, and switching), current_device_index(), and
// the floor they are measured against, a thread_local load.
//
// The benchmarks run on the simulated hardware: unless the caller has chosen a driver
// (ACCEL_CUDA_DRIVER set), main() points the runtime at the mock facades and a 4xH100
// machine, before anything touches the runtime. The runtime is initialised and contexts
// exist on devices 0 and 1 before timing starts, so no benchmark measures first-use costs.
// Benchmarks report; they never assert timings. bench/README.md explains how to read them.
#include <accel/accelerator.h>
#include <accel/device.h>
#include <accel/device_index_guard.h>
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>
#include <string>

namespace {

thread_local int tls_value = 0;

// Makes sure the runtime is up with contexts on devices 0 and 1 and device 0 current.
// Reports an error (rather than a meaningless time) when fewer than two devices exist.
bool prepare(benchmark::State& state, int needed_devices) {
  if (accel::device_count() < needed_devices) {
    state.SkipWithError("needs at least 2 visible accelerator devices");
    return false;
  }
  accel::set_device_index(needed_devices - 1);
  accel::set_device_index(0);
  return true;
}

// The floor: one thread-local int load that the compiler must perform.
void BM_ThreadLocalLoad(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(tls_value);
  }
}
BENCHMARK(BM_ThreadLocalLoad);

// current_device_index() on an initialised runtime: the per-thread cache path.
void BM_CurrentDeviceIndex(benchmark::State& state) {
  if (!prepare(state, 1)) return;
  for (auto _ : state) {
    benchmark::DoNotOptimize(accel::current_device_index());
  }
}
BENCHMARK(BM_CurrentDeviceIndex);

// Enter+exit of a guard whose index is already current: no device switch at all.
void BM_DeviceIndexGuard_SameIndex(benchmark::State& state) {
  if (!prepare(state, 1)) return;
  for (auto _ : state) {
    accel::DeviceIndexGuard guard(0);
    benchmark::DoNotOptimize(&guard);
  }
}
BENCHMARK(BM_DeviceIndexGuard_SameIndex);

// Enter+exit of a guard that switches: device 0 is current, the guard makes 1 current on
// entry and restores 0 on exit, so the current index alternates 0/1/0 every iteration and
// each iteration pays two real switches (set on device 1, maybe-set back on device 0).
void BM_DeviceIndexGuard_SwitchIndex(benchmark::State& state) {
  if (!prepare(state, 2)) return;
  for (auto _ : state) {
    accel::DeviceIndexGuard guard(1);
    benchmark::DoNotOptimize(&guard);
  }
}
BENCHMARK(BM_DeviceIndexGuard_SwitchIndex);

// Chooses the simulated machine unless the caller chose a driver. Must run before the
// first runtime call: the runtime reads these variables when it first loads the driver.
void use_mock_unless_driver_chosen() {
  if (std::getenv("ACCEL_CUDA_DRIVER") != nullptr) return;
  ::setenv("ACCEL_CUDA_DRIVER", ACCEL_BENCH_MOCK_CUDA_DRIVER, 1);
  ::setenv("ACCEL_NVML_LIBRARY", ACCEL_BENCH_MOCK_NVML_LIBRARY, 1);
  ::setenv("MOCKDEV_MACHINE", "4xh100", 1);
}

}  // namespace

int main(int argc, char** argv) {
  use_mock_unless_driver_chosen();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  const accel::BackendReport report = accel::backend_report();
  benchmark::AddCustomContext("accel.backend", report.backend);
  for (const accel::BackendComponent& component : report.components) {
    benchmark::AddCustomContext("accel." + component.role, component.path);
  }
  benchmark::AddCustomContext("accel.device_count", std::to_string(report.device_count));
  if (const char* machine = std::getenv("MOCKDEV_MACHINE"); machine != nullptr) {
    benchmark::AddCustomContext("accel.mockdev_machine", machine);
  }
  if (!report.available) {
    std::cerr << "accel_bench: accelerator not available (" << report.unavailable_reason
              << "); the device benchmarks will report errors\n";
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
