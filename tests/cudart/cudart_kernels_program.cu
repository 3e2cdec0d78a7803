// Kernels as nvcc emits them, through libcudart.so.13 on the simulated machine (spec
// cuda_runtime.md §6): a real .cu program compiled by the toolkit's nvcc (`-cudart shared`,
// host code only linked here, against our runtime), whose kernel bodies are registered for
// the simulation (cudart_kernels_bodies.cpp). It checks, exactly: <<<...>>> launches and their
// results, the launch errors a program sees only in its last-error slot (98, 9, 52),
// __device__ and __constant__ variables through the symbol calls, function attributes and
// occupancy equal to the driver's, cudaLaunchKernel / cudaLaunchKernelExC /
// cudaLaunchCooperativeKernel, and which default stream a NULL-stream launch uses (built a
// second time with `--default-stream per-thread`: ACCEL_PER_THREAD).
//
// argv[1]: the file of our libcudart.so.13; the program checks the runtime it loaded is that
// one. Prints one line per failed check and exits 1, or prints "PASS" and exits 0.

#include <cuda.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cudart_kernels_bodies.h"

__global__ void scale_add(float* out, const float* in, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i] + 1.0f;
}

template <class T>
__global__ void fill(T* out, T value, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value;
}

__global__ void unregistered_body(int* out) { out[0] = 1; }

__global__ void slow() {}

// Declared by the toolkit only for nvcc's generated stubs (crt/host_runtime.h).
extern "C" cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared_bytes,
                                                  void* stream);

__device__ int device_counter = 42;
__constant__ float constant_coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};

namespace {

int failures = 0;

#define CHECK(cond)                                         \
  do {                                                      \
    if (!(cond)) {                                          \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond); \
      ++failures;                                           \
    }                                                       \
  } while (false)
#define CHECK_EQ(a, b)                                                                      \
  do {                                                                                      \
    const long long va_ = static_cast<long long>(a);                                        \
    const long long vb_ = static_cast<long long>(b);                                        \
    if (va_ != vb_) {                                                                       \
      std::printf("FAILED line %d: %s == %s (%lld vs %lld)\n", __LINE__, #a, #b, va_, vb_); \
      ++failures;                                                                           \
    }                                                                                       \
  } while (false)

// The driver entry points the program uses for buffers and for the driver's own answers,
// from the libcuda.so.1 the runtime loaded.
struct Driver {
  decltype(&cuMemAlloc_v2) mem_alloc;
  decltype(&cuMemFree_v2) mem_free;
  CUresult (*htod)(CUdeviceptr, const void*, size_t);
  CUresult (*dtoh)(void*, CUdeviceptr, size_t);
  decltype(&cuKernelGetFunction) kernel_function;
  decltype(&cuFuncGetAttribute) func_attribute;
  decltype(&cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy;
  decltype(&cuStreamQuery) stream_query;
};

Driver load_driver() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (lib == nullptr) {
    std::printf("FAILED: no libcuda.so.1\n");
    std::exit(1);
  }
  Driver d{};
  d.mem_alloc = reinterpret_cast<decltype(d.mem_alloc)>(dlsym(lib, "cuMemAlloc_v2"));
  d.mem_free = reinterpret_cast<decltype(d.mem_free)>(dlsym(lib, "cuMemFree_v2"));
  d.htod = reinterpret_cast<decltype(d.htod)>(dlsym(lib, "cuMemcpyHtoD_v2"));
  d.dtoh = reinterpret_cast<decltype(d.dtoh)>(dlsym(lib, "cuMemcpyDtoH_v2"));
  d.kernel_function =
      reinterpret_cast<decltype(d.kernel_function)>(dlsym(lib, "cuKernelGetFunction"));
  d.func_attribute = reinterpret_cast<decltype(d.func_attribute)>(dlsym(lib, "cuFuncGetAttribute"));
  d.occupancy = reinterpret_cast<decltype(d.occupancy)>(
      dlsym(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  d.stream_query = reinterpret_cast<decltype(d.stream_query)>(dlsym(lib, "cuStreamQuery"));
  return d;
}

// The file the loaded cudaRuntimeGetVersion comes from.
std::string runtime_file() {
  Dl_info info{};
  void* fn = dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
  if (fn == nullptr || dladdr(fn, &info) == 0 || info.dli_fname == nullptr) return "";
  char resolved[4096];
  return realpath(info.dli_fname, resolved) != nullptr ? resolved : info.dli_fname;
}

// Every libcudart the process mapped (there must be exactly one: ours).
int runtimes_loaded() {
  int count = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libcudart") != nullptr) {
          ++*static_cast<int*>(data);
        }
        return 0;
      },
      &count);
  return count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::printf("usage: %s <our libcudart.so.13>\n", argv[0]);
    return 2;
  }
  accel_test::register_kernel_bodies();

  // The runtime is ours, and only ours.
  char expected[4096];
  CHECK(realpath(argv[1], expected) != nullptr);
  CHECK(runtime_file() == expected);
  CHECK_EQ(runtimes_loaded(), 1);
  int version = 0;
  CHECK_EQ(cudaRuntimeGetVersion(&version), cudaSuccess);
  CHECK_EQ(version, 13000);
  std::printf("runtime %d from %s\n", version, runtime_file().c_str());

  const Driver d = load_driver();
  CHECK_EQ(cudaSetDevice(0), cudaSuccess);
  constexpr int n = 1000;
  CUdeviceptr in = 0, out = 0;
  CHECK_EQ(d.mem_alloc(&in, n * sizeof(float)), CUDA_SUCCESS);
  CHECK_EQ(d.mem_alloc(&out, n * sizeof(float)), CUDA_SUCCESS);
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  CHECK_EQ(d.htod(in, host.data(), n * sizeof(float)), CUDA_SUCCESS);

  // <<<...>>>: the registered body runs; results exact.
  scale_add<<<(n + 255) / 256, 256>>>(reinterpret_cast<float*>(out),
                                      reinterpret_cast<const float*>(in), 2.0f, n);
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> result(n, -1.0f);
  CHECK_EQ(d.dtoh(result.data(), out, n * sizeof(float)), CUDA_SUCCESS);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += result[i] != 2.0f * static_cast<float>(i) + 1.0f;
  CHECK_EQ(wrong, 0);

  // A template instance, by its mangled name.
  fill<int><<<4, 256>>>(reinterpret_cast<int*>(out), 7, n);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<int> ints(n, 0);
  CHECK_EQ(d.dtoh(ints.data(), out, n * sizeof(int)), CUDA_SUCCESS);
  wrong = 0;
  for (int i = 0; i < n; ++i) wrong += ints[i] != 7;
  CHECK_EQ(wrong, 0);

  // cudaLaunchKernel with the stub, and cudaLaunchKernelExC with an attribute.
  float a = 3.0f;
  int count = n;
  void* out_arg = reinterpret_cast<void*>(out);
  void* in_arg = reinterpret_cast<void*>(in);
  void* args[] = {&out_arg, &in_arg, &a, &count};
  CHECK_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&scale_add), dim3(4), dim3(256), args, 0,
                            nullptr),
           cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK_EQ(d.dtoh(result.data(), out, n * sizeof(float)), CUDA_SUCCESS);
  CHECK(result[999] == 3.0f * 999.0f + 1.0f);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributePriority;
  attribute.val.priority = 0;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(4);
  config.blockDim = dim3(256);
  config.attrs = &attribute;
  config.numAttrs = 1;
  a = 4.0f;
  CHECK_EQ(cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(&scale_add), args),
           cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK_EQ(d.dtoh(result.data(), out, n * sizeof(float)), CUDA_SUCCESS);
  CHECK(result[10] == 41.0f);
  a = 5.0f;
  CHECK_EQ(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&scale_add), dim3(4),
                                       dim3(256), args, 0, nullptr),
           cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK_EQ(d.dtoh(result.data(), out, n * sizeof(float)), CUDA_SUCCESS);
  CHECK(result[10] == 51.0f);

  // A kernel the image declares but nobody registered a body for runs as an opaque
  // operation: the launch succeeds.
  unregistered_body<<<1, 1>>>(reinterpret_cast<int*>(out));
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);

  // A host function nobody registered: cudaErrorInvalidDeviceFunction (98).
  CHECK_EQ(
      cudaLaunchKernel(reinterpret_cast<const void*>(&main), dim3(1), dim3(1), args, 0, nullptr),
      cudaErrorInvalidDeviceFunction);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidDeviceFunction);
  cudaFuncAttributes attributes{};
  CHECK_EQ(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&main)),
           cudaErrorInvalidDeviceFunction);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidDeviceFunction);

  // Too many threads per block, or a zero dimension: cudaErrorInvalidConfiguration (9), seen
  // only in the slot for <<<...>>>; the slot then holds nothing else.
  scale_add<<<1, 2048>>>(reinterpret_cast<float*>(out), reinterpret_cast<const float*>(in), 1.0f,
                         n);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  scale_add<<<dim3(1, 1, 1), dim3(1, 1, 128)>>>(reinterpret_cast<float*>(out),
                                                reinterpret_cast<const float*>(in), 1.0f, n);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  scale_add<<<0, 32>>>(reinterpret_cast<float*>(out), reinterpret_cast<const float*>(in), 1.0f, n);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  CHECK_EQ(cudaLaunchKernel(reinterpret_cast<const void*>(&scale_add), dim3(1), dim3(1025), args, 0,
                            nullptr),
           cudaErrorInvalidConfiguration);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);

  // A pop without a push: cudaErrorMissingConfiguration (52).
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
  CHECK_EQ(__cudaPopCallConfiguration(&grid, &block, &shared, &stream),
           cudaErrorMissingConfiguration);
  CHECK_EQ(cudaGetLastError(), cudaErrorMissingConfiguration);
  CHECK_EQ(__cudaPushCallConfiguration(dim3(2, 3), dim3(4), 16, nullptr), 0u);
  CHECK_EQ(__cudaPopCallConfiguration(&grid, &block, &shared, &stream), cudaSuccess);
  CHECK(grid.x == 2 && grid.y == 3 && grid.z == 1 && block.x == 4 && shared == 16);

  // Function attributes and occupancy: the driver's answers for the same function.
  cudaKernel_t kernel = nullptr;
  CHECK_EQ(__cudaGetKernel(&kernel, reinterpret_cast<const void*>(&scale_add)), cudaSuccess);
  CUfunction function = nullptr;
  CHECK_EQ(d.kernel_function(&function, kernel), CUDA_SUCCESS);
  CHECK_EQ(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(&scale_add)),
           cudaSuccess);
  auto driver_attribute = [&](CUfunction_attribute which) {
    int value = -1;
    CHECK_EQ(d.func_attribute(&value, which, function), CUDA_SUCCESS);
    return value;
  };
  CHECK_EQ(attributes.maxThreadsPerBlock,
           driver_attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  CHECK_EQ(attributes.numRegs, driver_attribute(CU_FUNC_ATTRIBUTE_NUM_REGS));
  CHECK_EQ(attributes.sharedSizeBytes, driver_attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  CHECK_EQ(attributes.localSizeBytes, driver_attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
  CHECK_EQ(attributes.ptxVersion, driver_attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION));
  CHECK_EQ(attributes.binaryVersion, driver_attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION));
  CHECK_EQ(attributes.maxDynamicSharedSizeBytes,
           driver_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES));
  CHECK(attributes.maxThreadsPerBlock > 0 && attributes.numRegs > 0);
  CHECK_EQ(cudaFuncSetAttribute(reinterpret_cast<const void*>(&scale_add),
                                cudaFuncAttributeMaxDynamicSharedMemorySize, 1024),
           cudaSuccess);
  CHECK_EQ(driver_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), 1024);
  CHECK_EQ(
      cudaFuncSetCacheConfig(reinterpret_cast<const void*>(&scale_add), cudaFuncCachePreferShared),
      cudaSuccess);
  int blocks = -1, driver_blocks = -2;
  CHECK_EQ(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
               &blocks, reinterpret_cast<const void*>(&scale_add), 256, 0),
           cudaSuccess);
  CHECK_EQ(d.occupancy(&driver_blocks, function, 256, 0), CUDA_SUCCESS);
  CHECK_EQ(blocks, driver_blocks);
  CHECK(blocks > 0);
  size_t available = 0;
  CHECK_EQ(cudaOccupancyAvailableDynamicSMemPerBlock(
               &available, reinterpret_cast<const void*>(&scale_add), 1, 256),
           cudaSuccess);
  CHECK(available > 0);
  int min_grid = 0, best_block = 0;
  CHECK_EQ(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, scale_add, 0, 0),
           cudaSuccess);
  CHECK(best_block > 0 && best_block <= attributes.maxThreadsPerBlock && min_grid > 0);

  // Symbols: initial values, copies both ways with offsets, the address, the size, errors.
  int counter = 0;
  CHECK_EQ(cudaMemcpyFromSymbol(&counter, device_counter, sizeof(int)), cudaSuccess);
  CHECK_EQ(counter, 42);
  counter = 1234;
  CHECK_EQ(cudaMemcpyToSymbol(device_counter, &counter, sizeof(int)), cudaSuccess);
  void* counter_address = nullptr;
  CHECK_EQ(cudaGetSymbolAddress(&counter_address, device_counter), cudaSuccess);
  int via_driver = 0;
  CHECK_EQ(d.dtoh(&via_driver, reinterpret_cast<CUdeviceptr>(counter_address), sizeof(int)),
           CUDA_SUCCESS);
  CHECK_EQ(via_driver, 1234);
  size_t symbol_size = 0;
  CHECK_EQ(cudaGetSymbolSize(&symbol_size, constant_coeffs), cudaSuccess);
  CHECK_EQ(symbol_size, 4 * sizeof(float));
  float coeffs[4] = {};
  CHECK_EQ(cudaMemcpyFromSymbol(coeffs, constant_coeffs, sizeof(coeffs)), cudaSuccess);
  CHECK(coeffs[0] == 1.0f && coeffs[3] == 4.0f);
  const float two[2] = {20.0f, 30.0f};
  CHECK_EQ(cudaMemcpyToSymbolAsync(constant_coeffs, two, sizeof(two), sizeof(float),
                                   cudaMemcpyHostToDevice, nullptr),
           cudaSuccess);
  CHECK_EQ(cudaMemcpyFromSymbolAsync(coeffs, constant_coeffs, sizeof(coeffs), 0,
                                     cudaMemcpyDeviceToHost, nullptr),
           cudaSuccess);
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);
  CHECK(coeffs[0] == 1.0f && coeffs[1] == 20.0f && coeffs[2] == 30.0f && coeffs[3] == 4.0f);
  // Past the symbol's end: cudaErrorInvalidValue (1); a wrong direction: 21; not a symbol: 13.
  CHECK_EQ(cudaMemcpyToSymbol(constant_coeffs, two, sizeof(two), 3 * sizeof(float)),
           cudaErrorInvalidValue);
  CHECK_EQ(cudaMemcpyToSymbol(device_counter, &counter, sizeof(int), 0, cudaMemcpyDeviceToHost),
           cudaErrorInvalidMemcpyDirection);
  CHECK_EQ(cudaMemcpyToSymbol(&counter, &counter, sizeof(int)), cudaErrorInvalidSymbol);
  CHECK_EQ(cudaGetSymbolAddress(&counter_address, &counter), cudaErrorInvalidSymbol);
  CHECK_EQ(cudaGetLastError(), cudaErrorInvalidSymbol);

  // Which default stream a NULL-stream launch goes to: the long-running kernel
  // (cudart_kernels_bodies.cpp) is still pending there under the adversarial schedule (the
  // legacy stream waits for the per-thread one, so only the per-thread stream's answer
  // tells the two builds apart).
  slow<<<1, 1>>>();
  CHECK_EQ(cudaGetLastError(), cudaSuccess);
#ifdef ACCEL_PER_THREAD
  CHECK_EQ(d.stream_query(CU_STREAM_PER_THREAD), CUDA_ERROR_NOT_READY);
  std::printf("NULL-stream launch on the per-thread default stream\n");
#else
  CHECK_EQ(d.stream_query(CU_STREAM_LEGACY), CUDA_ERROR_NOT_READY);
  CHECK_EQ(d.stream_query(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  std::printf("NULL-stream launch on the legacy default stream\n");
#endif
  CHECK_EQ(cudaDeviceSynchronize(), cudaSuccess);

  CHECK_EQ(d.mem_free(in), CUDA_SUCCESS);
  CHECK_EQ(d.mem_free(out), CUDA_SUCCESS);
  if (failures != 0) {
    std::printf("%d checks failed\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
