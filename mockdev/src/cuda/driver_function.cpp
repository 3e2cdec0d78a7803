// Functions of the simulated driver (declared in driver_api.h): cuFuncGetAttribute,
// cuFuncSetAttribute, cuFuncSetCacheConfig, cuFuncGetModule, cuFuncGetName,
// cuFuncGetParamInfo, cuFuncIsLoaded, cuFuncLoad, and occupancy: cuOccupancyMaxActive-
// BlocksPerMultiprocessor(WithFlags), cuOccupancyMaxPotentialBlockSize(WithFlags),
// cuOccupancyAvailableDynamicSMemPerBlock, cuOccupancyMaxPotentialClusterSize,
// cuOccupancyMaxActiveClusters.
//
// Note [Function attributes]
// A kernel's attributes come from its image (Note [Module images] in module_image.h):
// registers, static shared and local bytes, __launch_bounds__; CONST_SIZE_BYTES is the
// module's user __constant__ bytes; BINARY_VERSION the cubin's architecture (for PTX, the
// device's: a JIT compiles for it) and PTX_VERSION the architecture the code was built from
// (the cubin's own for a cubin [inferred: the cubin does not record its virtual
// architecture in a documented place]). MAX_THREADS_PER_BLOCK is the least of 1024, the
// launch bounds and what the registers allow (a block's warps each take registers * 32
// rounded up to 256, within the device's MAX_REGISTERS_PER_BLOCK). A registered kernel an
// image does not declare has no registers, shared or local memory. Settable (cuda.h, cuFunc-
// SetAttribute): MAX_DYNAMIC_SHARED_SIZE_BYTES (0 to the device's opt-in per-block maximum
// minus the static bytes; it starts at the non-opt-in maximum minus the static bytes, the
// most a launch may use without opting in), PREFERRED_SHARED_MEMORY_CARVEOUT (-1 to 100),
// REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH (0 to 8 each, product at most 8 unless non-portable
// sizes are allowed, then 16), NON_PORTABLE_CLUSTER_SIZE_ALLOWED (0 or 1),
// CLUSTER_SCHEDULING_POLICY_PREFERENCE (0 to 2); cluster attributes need a device with
// cluster launch (9.0+). Anything else, or a value out of range, is CUDA_ERROR_INVALID_VALUE.
//
// Note [Occupancy]
// The CUDA occupancy calculator's model (CUDA C++ Best Practices Guide, "Occupancy"), from
// the device's attributes and the function's: blocks per multiprocessor are the least of
// MAX_BLOCKS_PER_MULTIPROCESSOR, the warps (MAX_THREADS_PER_MULTIPROCESSOR / 32 over the
// block's warps), the registers (MAX_REGISTERS_PER_MULTIPROCESSOR over the block's warps
// times registers * 32 rounded up to 256) and shared memory (MAX_SHARED_MEMORY_PER_-
// MULTIPROCESSOR over static + dynamic + RESERVED_SHARED_MEMORY_PER_BLOCK, each block's
// rounded up to 128 bytes); a block larger than the function's MAX_THREADS_PER_BLOCK, or
// asking more dynamic shared memory than MAX_DYNAMIC_SHARED_SIZE_BYTES, gets 0. The carveout
// is taken as the one that maximises occupancy, as the driver chooses by default. The
// potential block size is the multiple of 32 (up to the function's maximum and the limit
// given) with the highest occupancy, the larger on a tie, and the minimum grid is its blocks
// per multiprocessor times the multiprocessor count. Clusters: at most 8 blocks (16 with
// non-portable sizes allowed), and a cluster's blocks must fit one multiprocessor's
// occupancy times the cluster size [inferred: the driver's GPC-based answer is not
// documented].

#include <algorithm>
#include <vector>

#include "core/engine.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/modules.h"

namespace mockdev::cuda {
namespace {

constexpr int kSharedGranularity = 128;
constexpr int kRegisterGranularity = 256;  // registers per warp are allocated in these
constexpr int kWarp = 32;


int round_up(long long value, int step) {
  return static_cast<int>((value + step - 1) / step * step);
}

int registers_per_warp(int registers) {
  return round_up(static_cast<long long>(registers) * kWarp, kRegisterGranularity);
}

int static_shared(const image::Kernel* kernel) {
  return kernel != nullptr ? kernel->static_shared_bytes : 0;
}

int max_threads(const image::Kernel* kernel, int physical) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  int threads = device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  if (kernel == nullptr) return threads;
  if (kernel->max_threads > 0) threads = std::min(threads, kernel->max_threads);
  if (kernel->registers > 0) {
    const int warps = device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK) /
                      registers_per_warp(kernel->registers);
    threads = std::min(threads, warps * kWarp);
  }
  return threads;
}

int max_dynamic_shared(const image::Kernel* kernel, const FunctionSettings& settings, int physical)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (settings.max_dynamic_shared >= 0) return settings.max_dynamic_shared;
  return std::max(0, device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK) -
                         static_shared(kernel));
}

// Note [Occupancy]: active blocks of `block_size` threads per multiprocessor.
int active_blocks(const image::Kernel* kernel, const FunctionSettings& settings, int physical,
                  int block_size, std::size_t dynamic_shared)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (block_size > max_threads(kernel, physical)) return 0;
  if (dynamic_shared > static_cast<std::size_t>(max_dynamic_shared(kernel, settings, physical)))
    return 0;
  const int warps = (block_size + kWarp - 1) / kWarp;
  int blocks = device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  blocks =
      std::min(blocks, device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR) /
                           kWarp / warps);
  if (kernel != nullptr && kernel->registers > 0) {
    const int per_block = registers_per_warp(kernel->registers) * warps;
    blocks = std::min(
        blocks,
        device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR) / per_block);
  }
  const long long shared =
      static_cast<long long>(static_shared(kernel)) + static_cast<long long>(dynamic_shared) +
      device_value(physical, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  blocks = std::min(
      blocks, device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) /
                  round_up(shared, kSharedGranularity));
  return std::max(blocks, 0);
}

// A live function, or null (CUDA_ERROR_INVALID_HANDLE). A CUkernel is accepted where cuda.h
// says "f may also be a CUkernel": it resolves in the current context.
CUfunc_st* live_function(CUfunction f, CUresult* error) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (module_registry().functions.count(f) != 0) return f;
  const WorkContext current = context_for_work();
  if (module_registry().kernels.count(reinterpret_cast<CUkern_st*>(f)) != 0 &&
      current.ctx == nullptr) {
    *error = current.error;
    return nullptr;
  }
  return resolve_function(f, current.ctx, error);
}

int physical_of(const CUfunc_st* f) { return f->module->ctx->physical_device; }

int max_cluster(const FunctionSettings& s) { return s.non_portable_cluster != 0 ? 16 : 8; }

// The cluster size a launch configuration asks (its CLUSTER_DIMENSION attribute, else the
// function's required one), 0 when neither names one.
int cluster_size(const accel::cuda_abi::CUlaunchConfig& config, const FunctionSettings& s) {
  for (unsigned i = 0; i < config.numAttrs; ++i) {
    if (config.attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      const auto& d = config.attrs[i].value.clusterDim;
      return static_cast<int>(d.x * d.y * d.z);
    }
  }
  return s.cluster[0] * std::max(s.cluster[1], 1) * std::max(s.cluster[2], 1);
}

}  // namespace

int device_value(int physical, int attribute) {
  const DeviceSpec& d = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
  return device_attribute_value(d, physical, attribute);
}

int function_max_threads(const CUfunc_st* f) { return max_threads(f->kernel, physical_of(f)); }

int function_max_dynamic_shared(CUfunc_st* f) {
  return max_dynamic_shared(f->kernel, settings_of(f), physical_of(f));
}

int function_active_blocks(CUfunc_st* f, int block_size, std::size_t dynamic_shared) {
  return active_blocks(f->kernel, settings_of(f), physical_of(f), block_size, dynamic_shared);
}

int function_max_cluster(CUfunc_st* f) { return max_cluster(settings_of(f)); }

CUresult function_attribute(const image::Code* code, const image::Kernel* kernel,
                            const FunctionSettings& settings, int physical, int attribute,
                            int* value) {
  const DeviceSpec& d = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
  const int device_arch = d.cc_major * 10 + d.cc_minor;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = max_threads(kernel, physical);
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *value = static_shared(kernel);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *value = code != nullptr ? static_cast<int>(code->const_bytes) : 0;
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *value = kernel != nullptr ? kernel->local_bytes : 0;
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *value = kernel != nullptr ? kernel->registers : 0;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *value = code != nullptr ? code->arch : device_arch;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *value = code != nullptr && code->kind == image::CodeKind::kCubin ? code->arch : device_arch;
      break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
      *value = 0;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = max_dynamic_shared(kernel, settings, physical);
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *value = settings.carveout;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
      *value = 0;
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
      *value = settings.cluster[0];
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
      *value = settings.cluster[1];
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      *value = settings.cluster[2];
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      *value = settings.non_portable_cluster;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      *value = settings.cluster_policy;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult set_function_attribute(FunctionSettings& settings, const image::Kernel* kernel,
                                int physical, int attribute, int value) {
  const bool clusters = device_value(physical, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) != 0;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
      const int most =
          device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) -
          static_shared(kernel);
      if (value < 0 || value > most) return CUDA_ERROR_INVALID_VALUE;
      settings.max_dynamic_shared = value;
      return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
      settings.carveout = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: {
      if (!clusters || value < 0 || value > max_cluster(settings)) return CUDA_ERROR_INVALID_VALUE;
      FunctionSettings next = settings;
      next.cluster[attribute - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH] = value;
      if (std::max(next.cluster[0], 1) * std::max(next.cluster[1], 1) *
              std::max(next.cluster[2], 1) >
          max_cluster(next)) {
        return CUDA_ERROR_INVALID_VALUE;
      }
      settings = next;
      return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      if (!clusters || (value != 0 && value != 1)) return CUDA_ERROR_INVALID_VALUE;
      settings.non_portable_cluster = value;
      return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      if (!clusters || value < 0 || value > 2) return CUDA_ERROR_INVALID_VALUE;
      settings.cluster_policy = value;
      return CUDA_SUCCESS;
    default:
      return CUDA_ERROR_INVALID_VALUE;  // read-only, or not an attribute
  }
}

namespace impl {

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  return function_attribute(f->module->code.get(), f->kernel, settings_of(f), physical_of(f),
                            attribute, value);
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  return set_function_attribute(settings_of(f), f->kernel, physical_of(f), attribute, value);
}

CUresult cuFuncSetCacheConfig(CUfunction function, CUfunc_cache config) {
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  settings_of(f).cache_config = config;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetModule(CUmodule* module, CUfunction function) {
  if (module == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().functions.count(function) == 0) return CUDA_ERROR_INVALID_HANDLE;
  *module = function->module;
  return CUDA_SUCCESS;
}

CUresult cuFuncGetName(const char** name, CUfunction function) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().functions.count(function) == 0) return CUDA_ERROR_INVALID_HANDLE;
  *name = function->name.c_str();
  return CUDA_SUCCESS;
}

CUresult cuFuncGetParamInfo(CUfunction function, std::size_t param_index, std::size_t* param_offset,
                            std::size_t* param_size) {
  if (module_registry().functions.count(function) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (function->kernel == nullptr || param_index >= function->kernel->params.size()) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (param_offset != nullptr) *param_offset = function->kernel->params[param_index].offset;
  if (param_size != nullptr) *param_size = function->kernel->params[param_index].size;
  return CUDA_SUCCESS;
}

CUresult cuFuncIsLoaded(CUfunctionLoadingState* state, CUfunction function) {
  if (state == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().functions.count(function) == 0) return CUDA_ERROR_INVALID_HANDLE;
  *state = CU_FUNCTION_LOADING_STATE_LOADED;  // Note [Loading modules]: loading is eager
  return CUDA_SUCCESS;
}

CUresult cuFuncLoad(CUfunction function) {
  if (module_registry().functions.count(function) == 0) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* num_blocks, CUfunction function,
                                                              int block_size,
                                                              std::size_t dynamic_smem_size,
                                                              unsigned int flags) {
  if (num_blocks == nullptr || block_size <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (flags != CU_OCCUPANCY_DEFAULT && flags != CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  *num_blocks =
      active_blocks(f->kernel, settings_of(f), physical_of(f), block_size, dynamic_smem_size);
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks, CUfunction function,
                                                     int block_size,
                                                     std::size_t dynamic_smem_size) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      num_blocks, function, block_size, dynamic_smem_size, CU_OCCUPANCY_DEFAULT);
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int* min_grid_size, int* block_size, CUfunction function,
    CUoccupancyB2DSize block_size_to_dynamic_smem_size, std::size_t dynamic_smem_size,
    int block_size_limit, unsigned int flags) {
  if (min_grid_size == nullptr || block_size == nullptr || block_size_limit < 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (flags != CU_OCCUPANCY_DEFAULT && flags != CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  const int physical = physical_of(f);
  int limit = max_threads(f->kernel, physical);
  if (block_size_limit > 0) limit = std::min(limit, block_size_limit);
  int best_size = 0;
  int best_blocks = 0;
  int best_warps = 0;
  // From the largest multiple of the warp down: a smaller block wins only with strictly
  // more resident warps, so a tie goes to the larger block.
  std::vector<int> sizes;
  for (int size = limit / kWarp * kWarp; size >= kWarp; size -= kWarp) sizes.push_back(size);
  if (sizes.empty()) sizes.push_back(limit);
  for (int size : sizes) {
    // The engine lock is held while the program's callback runs: it must not call the
    // driver (cuda.h describes it as a pure function of the block size).
    const std::size_t dynamic = block_size_to_dynamic_smem_size != nullptr
                                    ? block_size_to_dynamic_smem_size(size)
                                    : dynamic_smem_size;
    const int blocks = active_blocks(f->kernel, settings_of(f), physical, size, dynamic);
    const int warps = blocks * ((size + kWarp - 1) / kWarp);
    if (warps > best_warps) {
      best_warps = warps;
      best_blocks = blocks;
      best_size = size;
    }
  }
  *block_size = best_size;
  *min_grid_size = best_blocks * device_value(physical, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, CUfunction function,
                                          CUoccupancyB2DSize block_size_to_dynamic_smem_size,
                                          std::size_t dynamic_smem_size, int block_size_limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(
      min_grid_size, block_size, function, block_size_to_dynamic_smem_size, dynamic_smem_size,
      block_size_limit, CU_OCCUPANCY_DEFAULT);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(std::size_t* dynamic_smem_size,
                                                 CUfunction function, int num_blocks,
                                                 int block_size) {
  if (dynamic_smem_size == nullptr || num_blocks <= 0 || block_size <= 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  const int physical = physical_of(f);
  if (active_blocks(f->kernel, settings_of(f), physical, block_size, 0) < num_blocks) {
    *dynamic_smem_size = 0;  // that many blocks never fit, whatever the shared memory
    return CUDA_SUCCESS;
  }
  const int per_block =
      device_value(physical, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR) /
          num_blocks / kSharedGranularity * kSharedGranularity -
      device_value(physical, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK) -
      static_shared(f->kernel);
  *dynamic_smem_size = static_cast<std::size_t>(
      std::clamp(per_block, 0, max_dynamic_shared(f->kernel, settings_of(f), physical)));
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialClusterSize(int* cluster_size, CUfunction function,
                                            const CUlaunchConfig* config) {
  if (cluster_size == nullptr || config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  const int physical = physical_of(f);
  if (device_value(physical, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) == 0)
    return CUDA_ERROR_NOT_SUPPORTED;
  const int block = static_cast<int>(config->blockDimX * config->blockDimY * config->blockDimZ);
  const int blocks =
      active_blocks(f->kernel, settings_of(f), physical, block, config->sharedMemBytes);
  *cluster_size = blocks == 0 ? 0 : max_cluster(settings_of(f));
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int* num_clusters, CUfunction function,
                                      const CUlaunchConfig* config) {
  if (num_clusters == nullptr || config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (config->numAttrs > 0 && config->attrs == nullptr) return CUDA_ERROR_INVALID_VALUE;
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = live_function(function, &error);
  if (f == nullptr) return error;
  const int physical = physical_of(f);
  if (device_value(physical, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) == 0)
    return CUDA_ERROR_NOT_SUPPORTED;
  const int size = cluster_size(*config, settings_of(f));
  if (size <= 0 || size > max_cluster(settings_of(f))) return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  const int block = static_cast<int>(config->blockDimX * config->blockDimY * config->blockDimZ);
  const int blocks =
      active_blocks(f->kernel, settings_of(f), physical, block, config->sharedMemBytes);
  *num_clusters = blocks * device_value(physical, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) / size;
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
