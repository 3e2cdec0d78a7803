#include "cuda/cuda_state.h"

#include <pthread.h>

#include "core/engine.h"

namespace mockdev::cuda {
namespace {

struct ThreadContext {
  CUctx_st* ctx = nullptr;
  std::uint64_t generation = 0;
};
thread_local ThreadContext t_current;

// A forked child starts with no current context on its (only) thread, as with the real
// driver. Thread-local, so no lock; registered at load time (Note [Fork handler
// registration] in core/engine_lock.cpp).
void clear_current_in_child() { t_current = ThreadContext{}; }
__attribute__((constructor)) void register_fork_handler() {
  pthread_atfork(nullptr, nullptr, clear_current_in_child);
}

}  // namespace

CudaState& cuda_state() {
  static CudaState* const state = new CudaState();  // never deleted: Note [Leaky state]
  const core::Engine& e = core::engine();
  if (state->generation != e.generation) {
    // A new machine: old context objects stay allocated (callers may still hold them) but
    // leave the registry, so they are rejected from now on.
    *state = CudaState{};
    state->generation = e.generation;
    state->primary.assign(e.machine.devices.size(), nullptr);
  }
  return *state;
}

bool in_forked_child() {
  const CudaState& s = cuda_state();
  return s.initialized && s.init_pid != core::current_pid();
}

bool driver_ready() {
  const CudaState& s = cuda_state();
  return s.initialized && s.init_pid == core::current_pid();
}

CUctx_st* current_context() {
  return t_current.generation == cuda_state().generation ? t_current.ctx : nullptr;
}

bool is_registered(const CUctx_st* ctx) {
  return ctx != nullptr && cuda_state().live_contexts.count(ctx) != 0;
}

CUctx_st* active_current_context() { return context_for_work().ctx; }

WorkContext context_for_work() {
  CUctx_st* ctx = current_context();
  if (!is_registered(ctx)) return {nullptr, accel::cuda_abi::CUDA_ERROR_INVALID_CONTEXT};
  if (ctx->refcount == 0) return {nullptr, accel::cuda_abi::CUDA_ERROR_CONTEXT_IS_DESTROYED};
  return {ctx, accel::cuda_abi::CUDA_SUCCESS};
}

void set_current_context(CUctx_st* ctx) { t_current = ThreadContext{ctx, cuda_state().generation}; }

}  // namespace mockdev::cuda
