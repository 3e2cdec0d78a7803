// Kernels (spec cuda_runtime.md §6): the registration interface nvcc's generated code calls,
// launches, function attributes, occupancy and symbols. A host stub or a variable's host
// shadow becomes the driver's CUkernel or device address through kernel_registry.h (Note
// [Lazy loading]); everything after that is the driver's library API (cuLibrary*, cuKernel*),
// cuLaunchKernel(Ex) with the CUkernel as its CUfunction, and the copies.
//
// Note [Launch configuration]
// A launch whose block or grid the device can never run answers
// cudaErrorInvalidConfiguration (9) before the driver is asked (spec §2.3: 9 is the
// runtime's own code; the driver would answer CUDA_ERROR_INVALID_VALUE): a dimension of 0,
// a block dimension above the device's maximum, more threads per block than the device's
// maximum, a grid dimension above the device's maximum. The device is the current one. What
// depends on the kernel (its own thread limit: 701; its dynamic shared memory limit: 1) is
// the driver's answer, mapped by value.

#include <array>
#include <atomic>
#include <cstring>
#include <new>

#include "api.h"
#include "context.h"
#include "driver.h"
#include "kernel_registry.h"
#include "stream_handle.h"

namespace accel::cudart {
namespace {

static_assert(sizeof(cudaLaunchAttribute) == sizeof(drv::CUlaunchAttribute));
static_assert(offsetof(cudaLaunchAttribute, val) == offsetof(drv::CUlaunchAttribute, value));
static_assert(static_cast<int>(cudaLaunchAttributeCooperative) ==
              static_cast<int>(drv::CU_LAUNCH_ATTRIBUTE_COOPERATIVE));
static_assert(static_cast<int>(cudaLaunchAttributeNvlinkUtilCentricScheduling) ==
              static_cast<int>(drv::CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING));
static_assert(static_cast<int>(cudaFuncAttributeClusterSchedulingPolicyPreference) ==
              static_cast<int>(drv::CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE));

#define ACCEL_CUDART_TRY(expr)                              \
  do {                                                      \
    if (const cudaError_t e_ = (expr); e_ != cudaSuccess) { \
      return e_;                                            \
    }                                                       \
  } while (false)

// The driver and the context of the calling thread (Note [Implicit primary contexts]).
cudaError_t enter_context(const DriverTable** d, int* device) {
  ACCEL_CUDART_TRY(load_driver(d));
  return require_context(**d, device);
}

// The limits Note [Launch configuration] checks, per device ordinal, read once.
struct LaunchLimits {
  std::atomic<bool> ready{false};
  int max_threads = 0;
  int block[3] = {0, 0, 0};
  int grid[3] = {0, 0, 0};
};
constexpr int kMaxDevices = 64;
std::array<LaunchLimits, kMaxDevices>& launch_limits() {
  static auto* limits = new std::array<LaunchLimits, kMaxDevices>();
  return *limits;
}

cudaError_t check_configuration(const DriverTable& d, int device, dim3 grid, dim3 block) {
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0) {
    return cudaErrorInvalidConfiguration;
  }
  if (device < 0 || device >= kMaxDevices) return cudaSuccess;  // the driver checks
  LaunchLimits& l = launch_limits()[static_cast<std::size_t>(device)];
  if (!l.ready.load(std::memory_order_acquire)) {
    drv::CUdevice dev = 0;
    ACCEL_CUDART_TRY(device_handle(d, device, &dev));
    using namespace accel::cuda_abi;  // NOLINT: the attribute names read best unqualified
    const std::pair<CUdevice_attribute, int*> reads[] = {
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &l.max_threads},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &l.block[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &l.block[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &l.block[2]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &l.grid[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &l.grid[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &l.grid[2]}};
    for (const auto& [attr, value] : reads) {
      ACCEL_CUDART_TRY(call(d.cuDeviceGetAttribute, value, attr, dev));
    }
    l.ready.store(true, std::memory_order_release);
  }
  const unsigned b[3] = {block.x, block.y, block.z};
  const unsigned g[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    if (b[i] > static_cast<unsigned>(l.block[i]) || g[i] > static_cast<unsigned>(l.grid[i])) {
      return cudaErrorInvalidConfiguration;
    }
  }
  const unsigned long long threads =                                 // NOLINT(runtime/int)
      static_cast<unsigned long long>(block.x) * block.y * block.z;  // NOLINT(runtime/int)
  if (threads > static_cast<unsigned long long>(l.max_threads)) {    // NOLINT(runtime/int)
    return cudaErrorInvalidConfiguration;
  }
  return cudaSuccess;
}

// Launches `kernel` (the driver's CUkernel, used as its CUfunction: cuda.h allows it).
cudaError_t launch(drv::CUkernel kernel, dim3 grid, dim3 block, void** args,
                   std::size_t shared_bytes, cudaStream_t stream, bool cooperative) {
  if (kernel == nullptr) return cudaErrorInvalidDeviceFunction;
  const DriverTable* d = nullptr;
  int device = 0;
  ACCEL_CUDART_TRY(enter_context(&d, &device));
  ACCEL_CUDART_TRY(check_configuration(*d, device, grid, block));
  const auto f = reinterpret_cast<drv::CUfunction>(kernel);
  const auto shared = static_cast<unsigned int>(shared_bytes);
  if (cooperative) {
    return call(d->cuLaunchCooperativeKernel, f, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                shared, driver_stream(stream), args);
  }
  return call(d->cuLaunchKernel, f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shared,
              driver_stream(stream), args, nullptr);
}

cudaError_t launch_stub(const void* func, dim3 grid, dim3 block, void** args,
                        std::size_t shared_bytes, cudaStream_t stream, bool cooperative) {
  const DriverTable* d = nullptr;
  ACCEL_CUDART_TRY(load_driver(&d));
  drv::CUkernel kernel = nullptr;
  ACCEL_CUDART_TRY(kernel_of(*d, func, &kernel));
  return launch(kernel, grid, block, args, shared_bytes, stream, cooperative);
}

// The function of host stub `func` in the current context, and that context's device.
cudaError_t function_of(const void* func, const DriverTable** d, drv::CUkernel* kernel,
                        drv::CUfunction* f, drv::CUdevice* dev) {
  int device = 0;
  ACCEL_CUDART_TRY(enter_context(d, &device));
  ACCEL_CUDART_TRY(kernel_of(**d, func, kernel));
  if (dev != nullptr) ACCEL_CUDART_TRY(device_handle(**d, device, dev));
  return call((*d)->cuKernelGetFunction, f, *kernel);
}

// A symbol's device range [address + offset, + count) in the current context:
// cudaErrorInvalidSymbol (13) for an unregistered one, cudaErrorInvalidValue (1) past its end.
cudaError_t symbol_range(const void* symbol, std::size_t count, std::size_t offset,
                         const DriverTable** d, drv::CUdeviceptr* address) {
  int device = 0;
  ACCEL_CUDART_TRY(enter_context(d, &device));
  std::size_t bytes = 0;
  ACCEL_CUDART_TRY(symbol_of(**d, symbol, address, &bytes));
  if (offset > bytes || count > bytes - offset) return cudaErrorInvalidValue;
  *address += offset;
  return cudaSuccess;
}

// A copy between a symbol and `other`: synchronous (the per-thread default stream's form in
// a _ptds call) or on `stream`.
cudaError_t copy(const DriverTable& d, drv::CUdeviceptr dst, drv::CUdeviceptr src,
                 std::size_t count, bool async, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  if (async) return call(d.cuMemcpyAsync, dst, src, count, driver_stream(stream));
  if (per_thread_default_stream()) return call(d.cuMemcpy_ptds, dst, src, count);
  return call(d.cuMemcpy, dst, src, count);
}

cudaError_t to_symbol(const void* symbol, const void* src, std::size_t count, std::size_t offset,
                      cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  const DriverTable* d = nullptr;
  drv::CUdeviceptr address = 0;
  ACCEL_CUDART_TRY(symbol_range(symbol, count, offset, &d, &address));
  return copy(*d, address, reinterpret_cast<drv::CUdeviceptr>(src), count, async, stream);
}

cudaError_t from_symbol(void* dst, const void* symbol, std::size_t count, std::size_t offset,
                        cudaMemcpyKind kind, bool async, cudaStream_t stream) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault) {
    return cudaErrorInvalidMemcpyDirection;
  }
  const DriverTable* d = nullptr;
  drv::CUdeviceptr address = 0;
  ACCEL_CUDART_TRY(symbol_range(symbol, count, offset, &d, &address));
  return copy(*d, reinterpret_cast<drv::CUdeviceptr>(dst), address, count, async, stream);
}

}  // namespace

namespace impl {

// --- What nvcc's generated code calls (spec §6.2, §6.3) ---

void** __cudaRegisterFatBinary(void* fat_cubin) { return register_fat_binary(fat_cubin); }

void __cudaRegisterFatBinaryEnd(void** /*handle*/) {}  // Note [Lazy loading]: nothing to load

void __cudaUnregisterFatBinary(void** handle) { unregister_fat_binary(handle); }

void __cudaRegisterFunction(void** handle, const char* host_fun, char* /*device_fun*/,
                            const char* device_name, int /*thread_limit*/, uint3* /*tid*/,
                            uint3* /*bid*/, dim3* /*block_dim*/, dim3* /*grid_dim*/,
                            int* /*warp_size*/) {
  register_function(handle, host_fun, device_name);
}

void __cudaRegisterVar(void** handle, char* host_var, char* /*device_address*/,
                       const char* device_name, int /*ext*/, std::size_t size, int constant,
                       int /*global*/) {
  register_variable(handle, host_var, device_name, size, constant != 0);
}

void __cudaRegisterManagedVar(void** handle, void** host_var_ptr_address, char* /*device_address*/,
                              const char* device_name, int /*ext*/, std::size_t size,
                              int /*constant*/, int /*global*/) {
  register_managed_variable(handle, host_var_ptr_address, device_name, size);
}

char __cudaInitModule(void** handle) {
  const DriverTable* d = nullptr;
  int device = 0;
  if (enter_context(&d, &device) != cudaSuccess) return 0;
  return init_module(*d, handle) == cudaSuccess ? 1 : 0;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared_bytes,
                                     cudaStream_t stream) {
  push_configuration(CallConfiguration{grid, block, shared_bytes, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shared_bytes,
                                       void* stream) {
  CallConfiguration c;
  ACCEL_CUDART_TRY(pop_configuration(&c));
  if (grid != nullptr) *grid = c.grid;
  if (block != nullptr) *block = c.block;
  if (shared_bytes != nullptr) *shared_bytes = c.shared_bytes;
  if (stream != nullptr) *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* func) {
  if (kernel == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  ACCEL_CUDART_TRY(load_driver(&d));
  return kernel_of(*d, func, kernel);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                               std::size_t shared_bytes, cudaStream_t stream) {
  return launch(kernel, grid, block, args, shared_bytes, stream, false);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                    std::size_t shared_bytes, cudaStream_t stream) {
  PerThreadDefaultStream per_thread;
  return launch(kernel, grid, block, args, shared_bytes, stream, false);
}

// --- Launches ---

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                             std::size_t shared_bytes, cudaStream_t stream) {
  return launch_stub(func, grid, block, args, shared_bytes, stream, false);
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                        std::size_t shared_bytes, cudaStream_t stream) {
  return launch_stub(func, grid, block, args, shared_bytes, stream, true);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (config == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  int device = 0;
  ACCEL_CUDART_TRY(enter_context(&d, &device));
  drv::CUkernel kernel = nullptr;
  ACCEL_CUDART_TRY(kernel_of(*d, func, &kernel));
  ACCEL_CUDART_TRY(check_configuration(*d, device, config->gridDim, config->blockDim));
  drv::CUlaunchConfig c{};
  c.gridDimX = config->gridDim.x;
  c.gridDimY = config->gridDim.y;
  c.gridDimZ = config->gridDim.z;
  c.blockDimX = config->blockDim.x;
  c.blockDimY = config->blockDim.y;
  c.blockDimZ = config->blockDim.z;
  c.sharedMemBytes = static_cast<unsigned int>(config->dynamicSmemBytes);
  c.hStream = driver_stream(config->stream);
  c.attrs = reinterpret_cast<drv::CUlaunchAttribute*>(config->attrs);  // same layout (above)
  c.numAttrs = config->numAttrs;
  return call(d->cuLaunchKernelEx, &c, reinterpret_cast<drv::CUfunction>(kernel), args, nullptr);
}

// --- Function attributes and occupancy ---

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  if (attr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  drv::CUkernel kernel = nullptr;
  drv::CUfunction f = nullptr;
  ACCEL_CUDART_TRY(function_of(func, &d, &kernel, &f, nullptr));
  cudaFuncAttributes a{};
  cudaError_t failure = cudaSuccess;
  auto get = [&](drv::CUfunction_attribute which) {
    int value = 0;
    if (failure == cudaSuccess) failure = call(d->cuFuncGetAttribute, &value, which, f);
    return value;
  };
  using namespace accel::cuda_abi;  // NOLINT: the attribute names read best unqualified
  a.sharedSizeBytes = static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  a.constSizeBytes = static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES));
  a.localSizeBytes = static_cast<std::size_t>(get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES));
  a.maxThreadsPerBlock = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  a.numRegs = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
  a.ptxVersion = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
  a.binaryVersion = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
  a.cacheModeCA = get(CU_FUNC_ATTRIBUTE_CACHE_MODE_CA);
  a.maxDynamicSharedSizeBytes = get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
  a.preferredShmemCarveout = get(CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT);
  a.clusterDimMustBeSet = get(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET);
  a.requiredClusterWidth = get(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
  a.requiredClusterHeight = get(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT);
  a.requiredClusterDepth = get(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH);
  a.clusterSchedulingPolicyPreference = get(CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE);
  a.nonPortableClusterSizeAllowed = get(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED);
  if (failure != cudaSuccess) return failure;
  *attr = a;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  const DriverTable* d = nullptr;
  drv::CUkernel kernel = nullptr;
  drv::CUfunction f = nullptr;
  drv::CUdevice dev = 0;
  ACCEL_CUDART_TRY(function_of(func, &d, &kernel, &f, &dev));
  return call(d->cuKernelSetAttribute, static_cast<drv::CUfunction_attribute>(attr), value, kernel,
              dev);
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config) {
  const DriverTable* d = nullptr;
  drv::CUkernel kernel = nullptr;
  drv::CUfunction f = nullptr;
  drv::CUdevice dev = 0;
  ACCEL_CUDART_TRY(function_of(func, &d, &kernel, &f, &dev));
  return call(d->cuKernelSetCacheConfig, kernel, static_cast<drv::CUfunc_cache>(config), dev);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks,
                                                                   const void* func, int block_size,
                                                                   std::size_t dynamic_shared_bytes,
                                                                   unsigned int flags) {
  const DriverTable* d = nullptr;
  drv::CUkernel kernel = nullptr;
  drv::CUfunction f = nullptr;
  ACCEL_CUDART_TRY(function_of(func, &d, &kernel, &f, nullptr));
  return call(d->cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, num_blocks, f, block_size,
              dynamic_shared_bytes, flags);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, const void* func,
                                                          int block_size,
                                                          std::size_t dynamic_shared_bytes) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      num_blocks, func, block_size, dynamic_shared_bytes, kOccupancyDefault);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(std::size_t* dynamic_shared_bytes,
                                                      const void* func, int num_blocks,
                                                      int block_size) {
  const DriverTable* d = nullptr;
  drv::CUkernel kernel = nullptr;
  drv::CUfunction f = nullptr;
  ACCEL_CUDART_TRY(function_of(func, &d, &kernel, &f, nullptr));
  return call(d->cuOccupancyAvailableDynamicSMemPerBlock, dynamic_shared_bytes, f, num_blocks,
              block_size);
}

// --- Symbols ---

cudaError_t cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  if (dev_ptr == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  drv::CUdeviceptr address = 0;
  ACCEL_CUDART_TRY(symbol_range(symbol, 0, 0, &d, &address));
  *dev_ptr = reinterpret_cast<void*>(address);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(std::size_t* size, const void* symbol) {
  if (size == nullptr) return cudaErrorInvalidValue;
  const DriverTable* d = nullptr;
  int device = 0;
  ACCEL_CUDART_TRY(enter_context(&d, &device));
  drv::CUdeviceptr address = 0;
  return symbol_of(*d, symbol, &address, size);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t count,
                               std::size_t offset, cudaMemcpyKind kind) {
  return to_symbol(symbol, src, count, offset, kind, false, nullptr);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t count,
                                 std::size_t offset, cudaMemcpyKind kind) {
  return from_symbol(dst, symbol, count, offset, kind, false, nullptr);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t count,
                                    std::size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol(symbol, src, count, offset, kind, true, stream);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t count,
                                      std::size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t stream) {
  return from_symbol(dst, symbol, count, offset, kind, true, stream);
}

}  // namespace impl
}  // namespace accel::cudart
