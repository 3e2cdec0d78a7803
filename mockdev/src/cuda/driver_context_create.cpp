// Contexts made by cuCtxCreate and ended by cuCtxDestroy (declared in driver_api.h).
//
// Note [Created contexts]
// cuda.h, cuCtxCreate: a new context for the device, with a usage count of 1, pushed onto
// the calling thread's context stack (Note [Context stack] in driver_context.cpp). It is a
// context of its own: its streams, events, modules and cuMemAlloc allocations are its, apart
// from the primary context's and any other's; it takes the device's context reserve from
// free memory like a primary context (CUDA_ERROR_OUT_OF_MEMORY when that does not fit).
// cuCtxDestroy ends it (contexts.h's end_context): pending work is cancelled, its objects'
// handles are rejected, its allocations and reserve are freed; memory from cuMemCreate and
// the stream-ordered allocator is not a context's and stays (cuda.h, cuCtxDestroy). The
// handle stays registered, inactive: cuCtxDestroy, cuCtxPushCurrent and cuCtxSetCurrent of
// it are CUDA_ERROR_INVALID_CONTEXT, and a thread where it is still current gets
// CUDA_ERROR_CONTEXT_IS_DESTROYED.
//
// The three exported forms take the same flags (valid_context_flags): _v2 nothing more;
// _v3 execution-affinity parameters; _v4 a CUctxCreateParams holding either those or CIG
// parameters. Execution affinity is "only supported under Volta+ MPS" and the simulated
// machine runs no MPS server, so a parameter of a known type is
// CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY; CIG mode is not supported by the simulated device
// (CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED / VULKAN_CIG_SUPPORTED answer 0):
// CUDA_ERROR_NOT_SUPPORTED, as documented, once its parameters are well formed (CIG
// parameters without shared data are CUDA_ERROR_INVALID_VALUE, as the H100 answered).
// A count of affinity parameters of 0 or less ignores the array and creates a plain context
// (Recording 2: the H100 created one for -1). [inferred] A NULL CUctxCreateParams, or one with
// both pointers NULL, creates a plain context (CUDA 13 programs call cuCtxCreate(&ctx, NULL,
// 0, dev)); argument checks run in the order output pointer, parameters, flags, device.
// [inferred] cuCtxDestroy of a primary context is CUDA_ERROR_INVALID_CONTEXT (primary
// contexts end through cuDevicePrimaryCtxRelease or Reset), of NULL CUDA_ERROR_INVALID_VALUE.

#include "core/memory.h"
#include "cuda/contexts.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
namespace mockdev::cuda {
namespace {

// The execution-affinity parameters of _v3 / _v4: SUCCESS when there are none.
CUresult check_affinity(const CUexecAffinityParam* params, int count) {
  if (count <= 0) return CUDA_SUCCESS;
  if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (int i = 0; i < count; ++i) {
    if (params[i].type != CU_EXEC_AFFINITY_TYPE_SM_COUNT) return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
}

CUresult create(CUcontext* pctx, unsigned flags, CUdevice dev)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (!valid_context_flags(flags)) return CUDA_ERROR_INVALID_VALUE;
  std::optional<int> p = physical_device(dev);
  if (!p) return CUDA_ERROR_INVALID_DEVICE;
  if (compute_prohibited(*p)) return CUDA_ERROR_UNKNOWN;
  if (!core::take_context_reserve(*p)) return CUDA_ERROR_OUT_OF_MEMORY;
  CUctx_st* ctx = new_context(*p, dev, false);
  ctx->refcount = 1;
  ctx->flags = flags;
  cuda_state().created.push_back(ctx);
  push_context(ctx);
  *pctx = ctx;
  return CUDA_SUCCESS;
}

}  // namespace

namespace impl {

CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return create(pctx, flags, dev);
}

CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam* params_array, int num_params,
                        unsigned int flags, CUdevice dev) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult rc = check_affinity(params_array, num_params); rc != CUDA_SUCCESS) return rc;
  return create(pctx, flags, dev);
}

CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* ctx_create_params, unsigned int flags,
                        CUdevice dev) {
  if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (ctx_create_params != nullptr) {
    if (const CUctxCigParam* cig = ctx_create_params->cigParams; cig != nullptr) {
      return cig->sharedData == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_SUPPORTED;
    }
    if (CUresult rc = check_affinity(ctx_create_params->execAffinityParams,
                                     ctx_create_params->numExecAffinityParams);
        rc != CUDA_SUCCESS) {
      return rc;
    }
  }
  return create(pctx, flags, dev);
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!is_registered(ctx) || ctx->refcount == 0 || ctx->primary) {
    return CUDA_ERROR_INVALID_CONTEXT;
  }
  end_context(ctx);
  std::erase(cuda_state().created, ctx);
  if (current_context() == ctx) pop_context();
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
