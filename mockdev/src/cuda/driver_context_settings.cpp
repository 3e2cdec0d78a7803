// The current context's flags, identity, limits and configuration (declared in
// driver_api.h). Every call here answers for the calling thread's current context (or the
// one it names), with the codes of context_for_work when there is none.
//
// Note [Context settings]
// - Flags (cuCtxGetFlags / cuCtxSetFlags): what the context was created with, or was last
//   given; cuCtxSetFlags takes the same flags as cuCtxCreate (valid_context_flags). A
//   primary context's flags are those cuDevicePrimaryCtxSetFlags gave it.
// - cuCtxGetApiVersion: [inferred] 3020 for every context, the value drivers since CUDA 3.2
//   report (cuda.h: "e.g. 3010 or 3020"; the API version changes only when context
//   capabilities break binary compatibility). A NULL context means the current one.
// - cuCtxGetId: the context's id, unique within the process's machine and never reused.
//   NULL means the current one; a destroyed context is CUDA_ERROR_CONTEXT_IS_DESTROYED.
// - Limits (cuda.h, cuCtxSetLimit): each context keeps its own, starting from Note
//   [Context limits] in cuda_state.cpp. CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH "is only applicable
//   to devices of compute capability < 9.0": from 9.0 on both querying and setting it are
//   CUDA_ERROR_UNSUPPORTED_LIMIT (Recording 2), and below that it may reach 24, not more
//   (CUDA_ERROR_INVALID_VALUE). The stack size is rounded up to a multiple of 16 bytes
//   (Recording 2: 1000 reads back 1008). The L2 fetch granularity (0-128 bytes) and the
//   persisting L2 size (at most the device's CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)
//   are hints the driver "can ignore or clamp": [inferred] they are clamped.
//   CU_LIMIT_SHMEM_SIZE and CU_LIMIT_CIG_ENABLED "can only be queried": [inferred] setting
//   them is CUDA_ERROR_INVALID_VALUE. CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED of a context that
//   is not CIG-enabled (none is) is CUDA_ERROR_UNSUPPORTED_LIMIT to query (Recording 2) and
//   [inferred] to set. [inferred] A number that is not a CUlimit is
//   CUDA_ERROR_INVALID_VALUE. Other values are kept as given.
// - Cache configuration: a preference kept per context (CU_FUNC_CACHE_PREFER_NONE at
//   first); a value outside CUfunc_cache is CUDA_ERROR_INVALID_VALUE.
// - Shared-memory configuration (deprecated): "On devices without configurable shared
//   memory banks, this function has no effect"; [inferred] no device since Volta has them,
//   so cuCtxSetSharedMemConfig checks its value and changes nothing, and
//   cuCtxGetSharedMemConfig answers CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE.
// - cuCtxResetPersistingL2Cache: no persisting lines are modelled; it succeeds.

#include <algorithm>

#include "core/engine.h"
#include "cuda/contexts.h"
#include "cuda/cuda_state.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
namespace mockdev::cuda {
namespace {

constexpr unsigned kApiVersion = 3020;
constexpr std::size_t kMaxSyncDepth = 24;
constexpr std::size_t kStackAlignment = 16;  // Recording 2: a set stack size reads back rounded up
constexpr std::size_t kMaxL2FetchGranularity = 128;

int attribute_of(const CUctx_st* ctx, CUdevice_attribute attribute)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const int p = ctx->physical_device;
  return device_attribute_value(core::engine().machine.devices.at(static_cast<std::size_t>(p)), p,
                                attribute);
}

bool is_limit(int limit) { return limit >= 0 && limit < CU_LIMIT_MAX; }

}  // namespace

namespace impl {

CUresult cuCtxGetFlags(unsigned int* flags) {
  if (flags == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  *flags = current.ctx->flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetFlags(unsigned int flags) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (!valid_context_flags(flags)) return CUDA_ERROR_INVALID_VALUE;
  current.ctx->flags = flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext named = named_or_current(ctx);
  if (named.ctx == nullptr) return named.error;
  *version = kApiVersion;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext ctx, unsigned long long* ctx_id) {
  if (ctx_id == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext named = named_or_current(ctx);
  if (named.ctx == nullptr) return named.error;
  *ctx_id = named.ctx->id;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetLimit(std::size_t* pvalue, CUlimit limit) {
  if (pvalue == nullptr || !is_limit(limit)) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (limit == CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED ||
      (limit == CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH &&
       attribute_of(current.ctx, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 9)) {
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  }
  *pvalue = current.ctx->settings.limits[static_cast<std::size_t>(limit)];
  return CUDA_SUCCESS;
}

CUresult cuCtxSetLimit(CUlimit limit, std::size_t value) {
  if (!is_limit(limit)) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  CUctx_st* ctx = current.ctx;
  switch (limit) {
    case CU_LIMIT_SHMEM_SIZE:
    case CU_LIMIT_CIG_ENABLED:
      return CUDA_ERROR_INVALID_VALUE;
    case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
      return CUDA_ERROR_UNSUPPORTED_LIMIT;
    case CU_LIMIT_STACK_SIZE:
      value = (value + kStackAlignment - 1) / kStackAlignment * kStackAlignment;
      break;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
      if (attribute_of(ctx, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) >= 9) {
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
      }
      if (value > kMaxSyncDepth) return CUDA_ERROR_INVALID_VALUE;
      break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
      value = std::min(value, kMaxL2FetchGranularity);
      break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
      value = std::min(value, static_cast<std::size_t>(attribute_of(
                                  ctx, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)));
      break;
    default:
      break;
  }
  ctx->settings.limits[static_cast<std::size_t>(limit)] = value;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) {
  if (pconfig == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  *pconfig = current.ctx->settings.cache_config;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCacheConfig(CUfunc_cache config) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  current.ctx->settings.cache_config = config;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(CUsharedconfig* pconfig) {
  if (pconfig == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  *pconfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetSharedMemConfig(CUsharedconfig config) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  if (config < CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE ||
      config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuCtxResetPersistingL2Cache() {
  const WorkContext current = context_for_work();
  return current.ctx == nullptr ? current.error : CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
