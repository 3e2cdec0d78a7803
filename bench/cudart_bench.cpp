// The runtime API's overhead over the driver API: libcudart.so.13 (cudart/, linked as a
// third-party program links it) against the libcuda.so.1 it runs on, call for call, in one
// run. Three pairs, each measured with the same context current, on the same stream and
// buffers:
//   cudaGetDevice                     vs cuCtxGetDevice
//   cudaMemcpyAsync (64 B, HtoD)      vs cuMemcpyHtoDAsync_v2 (64 B)
//   cudaStreamQuery (created stream)  vs cuStreamQuery
// After the runs the program prints each runtime/driver ratio of CPU time (medians when
// --benchmark_repetitions gives them). Target: at most 1.5. bench/README.md has the figures.
//
// Written against the toolkit's headers (cuda_runtime_api.h, cuda.h); the driver is never
// linked: the program resolves its entry points with dlsym from the libcuda.so.1 the runtime
// opens. Which driver: with ACCEL_CUDA_DRIVER set (`accel run` sets it, with LD_LIBRARY_PATH
// starting at the simulated drivers' folder) the one the library search path finds, as the
// runtime finds it; otherwise the build tree's simulated driver, loaded by its path before
// the runtime's first call (the runtime's dlopen("libcuda.so.1") then matches it by soname)
// on MOCKDEV_MACHINE (4xh100 unless set). The program checks that the runtime got the same
// driver and reports both files in the context lines. Timings are never asserted.

#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

constexpr std::size_t kCopyBytes = 64;

// The driver entry points measured, from the libcuda.so.1 the runtime uses.
struct Driver {
  decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
  decltype(&::cuMemcpyHtoDAsync_v2) memcpy_htod_async = nullptr;
  decltype(&::cuStreamQuery) stream_query = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
};

// What every benchmark shares, made once before timing: device 0 current (its primary
// context, through the runtime), a non-blocking stream, 64 device bytes and 64 pinned bytes.
struct Setup {
  Driver driver;
  cudaStream_t stream = nullptr;
  void* device_bytes = nullptr;
  void* host_bytes = nullptr;
  std::string error;  // empty when ready
};

Setup g_setup;

std::string library_of(const void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "?";
  return info.dli_fname;
}

// Loads the driver the runtime will open (see the top of the file) and returns its handle.
void* load_driver() {
  if (std::getenv("ACCEL_CUDA_DRIVER") != nullptr) {
    return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  }
  ::setenv("MOCKDEV_MACHINE", "4xh100", /*overwrite=*/0);
  // RTLD_GLOBAL is not needed for the soname match; RTLD_NODELETE keeps it for the process.
  return dlopen(ACCEL_BENCH_MOCK_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

template <class Fn>
bool resolve(void* library, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(library, symbol));
  return *out != nullptr;
}

Setup prepare() {
  Setup s;
  void* library = load_driver();
  if (library == nullptr) {
    s.error = std::string("cannot load libcuda.so.1: ") + dlerror();
    return s;
  }
  if (!resolve(library, "cuCtxGetDevice", &s.driver.ctx_get_device) ||
      !resolve(library, "cuMemcpyHtoDAsync_v2", &s.driver.memcpy_htod_async) ||
      !resolve(library, "cuStreamQuery", &s.driver.stream_query) ||
      !resolve(library, "cuCtxGetCurrent", &s.driver.ctx_get_current)) {
    s.error = "the driver lacks an entry point measured here";
    return s;
  }
  if (const cudaError_t e = cudaSetDevice(0); e != cudaSuccess) {
    s.error = std::string("cudaSetDevice(0): ") + cudaGetErrorName(e);
    return s;
  }
  // The runtime must run on the driver measured here, not on another libcuda.so.1.
  void* runtime_driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (runtime_driver == nullptr ||
      library_of(reinterpret_cast<const void*>(s.driver.ctx_get_device)) !=
          library_of(dlsym(runtime_driver, "cuCtxGetDevice"))) {
    s.error = "the runtime opened another libcuda.so.1 than the one measured";
    return s;
  }
  if (cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaMalloc(&s.device_bytes, kCopyBytes) != cudaSuccess ||
      cudaMallocHost(&s.host_bytes, kCopyBytes) != cudaSuccess) {
    s.error = "stream or buffer setup failed";
  }
  return s;
}

bool ready(benchmark::State& state) {
  if (!g_setup.error.empty()) {
    state.SkipWithError(g_setup.error.c_str());
    return false;
  }
  return true;
}

void BM_Driver_cuCtxGetDevice(benchmark::State& state) {
  if (!ready(state)) return;
  CUdevice device = -1;
  for (auto _ : state) {
    if (g_setup.driver.ctx_get_device(&device) != CUDA_SUCCESS) {
      state.SkipWithError("cuCtxGetDevice failed");
      return;
    }
    benchmark::DoNotOptimize(device);
  }
}

void BM_Runtime_cudaGetDevice(benchmark::State& state) {
  if (!ready(state)) return;
  int device = -1;
  for (auto _ : state) {
    if (cudaGetDevice(&device) != cudaSuccess) {
      state.SkipWithError("cudaGetDevice failed");
      return;
    }
    benchmark::DoNotOptimize(device);
  }
}

void BM_Driver_cuMemcpyHtoDAsync_64B(benchmark::State& state) {
  if (!ready(state)) return;
  const auto to = reinterpret_cast<CUdeviceptr>(g_setup.device_bytes);
  const auto stream = reinterpret_cast<CUstream>(g_setup.stream);
  for (auto _ : state) {
    if (g_setup.driver.memcpy_htod_async(to, g_setup.host_bytes, kCopyBytes, stream) !=
        CUDA_SUCCESS) {
      state.SkipWithError("cuMemcpyHtoDAsync_v2 failed");
      return;
    }
  }
  (void)cudaStreamSynchronize(g_setup.stream);
}

void BM_Runtime_cudaMemcpyAsync_64B(benchmark::State& state) {
  if (!ready(state)) return;
  for (auto _ : state) {
    if (cudaMemcpyAsync(g_setup.device_bytes, g_setup.host_bytes, kCopyBytes,
                        cudaMemcpyHostToDevice, g_setup.stream) != cudaSuccess) {
      state.SkipWithError("cudaMemcpyAsync failed");
      return;
    }
  }
  (void)cudaStreamSynchronize(g_setup.stream);
}

void BM_Driver_cuStreamQuery(benchmark::State& state) {
  if (!ready(state)) return;
  const auto stream = reinterpret_cast<CUstream>(g_setup.stream);
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_setup.driver.stream_query(stream));
  }
}

void BM_Runtime_cudaStreamQuery(benchmark::State& state) {
  if (!ready(state)) return;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cudaStreamQuery(g_setup.stream));
  }
}

// Not a pair: the two driver calls cudaStreamQuery makes (the context check of Note
// [Implicit primary contexts] in cudart/src/context.h, then the query), the floor of any
// runtime built on the public driver API. Its ratio to BM_Driver_cuStreamQuery is what the
// context check alone costs on this driver.
void BM_Driver_cuCtxGetCurrent_cuStreamQuery(benchmark::State& state) {
  if (!ready(state)) return;
  const auto stream = reinterpret_cast<CUstream>(g_setup.stream);
  CUcontext ctx = nullptr;
  for (auto _ : state) {
    benchmark::DoNotOptimize(g_setup.driver.ctx_get_current(&ctx));
    benchmark::DoNotOptimize(g_setup.driver.stream_query(stream));
  }
}

// The pairs, driver first; registered in this order so each pair runs back to back.
struct Pair {
  const char* driver;
  void (*driver_fn)(benchmark::State&);
  const char* runtime;
  void (*runtime_fn)(benchmark::State&);
};
constexpr Pair kPairs[] = {
    {"BM_Driver_cuCtxGetDevice", BM_Driver_cuCtxGetDevice, "BM_Runtime_cudaGetDevice",
     BM_Runtime_cudaGetDevice},
    {"BM_Driver_cuMemcpyHtoDAsync_64B", BM_Driver_cuMemcpyHtoDAsync_64B,
     "BM_Runtime_cudaMemcpyAsync_64B", BM_Runtime_cudaMemcpyAsync_64B},
    {"BM_Driver_cuStreamQuery", BM_Driver_cuStreamQuery, "BM_Runtime_cudaStreamQuery",
     BM_Runtime_cudaStreamQuery},
};

constexpr const char* kFloorName = "BM_Driver_cuCtxGetCurrent_cuStreamQuery";

// The console output, then one ratio line per pair: the runtime's CPU time over the
// driver's (the median aggregate when there is one, else the mean of the runs).
class RatioReporter final : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      Times& t = times_[run.run_name.function_name];
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name == "median") t.median = run.GetAdjustedCPUTime();
      } else {
        t.sum += run.GetAdjustedCPUTime();
        ++t.count;
      }
    }
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nruntime / driver, CPU time (target <= 1.5):\n");
    for (const Pair& pair : kPairs) {
      const double driver = time_of(pair.driver);
      const double runtime = time_of(pair.runtime);
      if (driver <= 0 || runtime <= 0) continue;  // filtered out, or failed
      std::printf("  %-32s / %-32s %.2f\n", pair.runtime, pair.driver, runtime / driver);
    }
    if (const double floor = time_of(kFloorName), query = time_of("BM_Driver_cuStreamQuery");
        floor > 0 && query > 0) {
      std::printf("  %-32s / %-32s %.2f (the context check's floor)\n", kFloorName,
                  "BM_Driver_cuStreamQuery", floor / query);
    }
  }

 private:
  struct Times {
    double median = 0;
    double sum = 0;
    int count = 0;
  };

  double time_of(const std::string& name) const {
    const auto it = times_.find(name);
    if (it == times_.end()) return 0;
    if (it->second.median > 0) return it->second.median;
    return it->second.count > 0 ? it->second.sum / it->second.count : 0;
  }

  std::map<std::string, Times> times_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  g_setup = prepare();
  if (!g_setup.error.empty()) std::fprintf(stderr, "cudart_bench: %s\n", g_setup.error.c_str());
  for (const Pair& pair : kPairs) {
    benchmark::RegisterBenchmark(pair.driver, pair.driver_fn);
    benchmark::RegisterBenchmark(pair.runtime, pair.runtime_fn);
  }
  benchmark::RegisterBenchmark(kFloorName, BM_Driver_cuCtxGetCurrent_cuStreamQuery);
  benchmark::AddCustomContext("cudart.runtime",
                              library_of(reinterpret_cast<const void*>(&cudaGetDeviceCount)));
  benchmark::AddCustomContext(
      "cudart.driver", library_of(reinterpret_cast<const void*>(g_setup.driver.ctx_get_device)));
  if (const char* machine = std::getenv("MOCKDEV_MACHINE"); machine != nullptr) {
    benchmark::AddCustomContext("cudart.mockdev_machine", machine);
  }
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return g_setup.error.empty() ? 0 : 1;
}
