#pragma once
// What the context entry points share (driver_context*.cpp): the primary context object of
// a device, ending a context (Note [Primary contexts] in driver_context.cpp, Note [Created
// contexts] in driver_context_create.cpp), and the checks of a context's creation. Caller
// holds the engine lock.

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/cuda_state.h"

namespace mockdev::cuda {

// Device `physical`'s primary context object (ordinal `dev`), created inactive on first use.
CUctx_st* primary_object(int physical, accel::cuda_abi::CUdevice dev)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// Ends `ctx`: cancels its streams' pending work and forgets its streams and events, unloads
// its modules, frees its memory and reserve (a primary context: also its device's physical
// handles and peer mappings), and leaves it inactive (refcount 0, still registered).
void end_context(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Whether `flags` are valid context flags: within CU_CTX_FLAGS_MASK, with at most one
// scheduling flag (cuda.h, cuCtxCreate: "Only one of the scheduling flags can be set").
bool valid_context_flags(unsigned flags);

// Whether device `physical`'s compute mode is CU_COMPUTEMODE_PROHIBITED: creating or first
// retaining a context there fails with CUDA_ERROR_UNKNOWN (cuda.h).
bool compute_prohibited(int physical) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The context a call names: `ctx`, or the current one when it is NULL (context_for_work's
// codes); a handle never handed out is CUDA_ERROR_INVALID_CONTEXT, a destroyed one
// CUDA_ERROR_CONTEXT_IS_DESTROYED.
WorkContext named_or_current(CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

// Unloads every module of `ctx` (driver_module.cpp): its module and function handles are
// rejected from then on.
void drop_context_modules(const CUctx_st* ctx) MOCKDEV_REQUIRES(core::g_engine_mutex);

}  // namespace mockdev::cuda
