#include "cuda/cuda_state.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "core/race_call_site.h"
#include "core/timeline.h"
#include "cuda/device_attributes.h"

namespace mockdev::cuda {
namespace {

// The calling thread's context stack; its top is the current context. Built for one
// machine generation: a stack from an earlier machine reads as empty.
struct ThreadContexts {
  std::vector<CUctx_st*> stack;
  std::uint64_t generation = 0;
};
thread_local ThreadContexts t_current;

std::vector<CUctx_st*>& stack() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const std::uint64_t generation = cuda_state().generation;
  if (t_current.generation != generation) t_current = ThreadContexts{{}, generation};
  return t_current.stack;
}

// A forked child starts with no current context on its (only) thread, as with the real
// driver. Thread-local, so no lock; registered at load time (Note [Fork handler
// registration] in core/engine_lock.cpp).
void clear_current_in_child() { t_current = ThreadContexts{}; }
__attribute__((constructor)) void register_fork_handler() {
  pthread_atfork(nullptr, nullptr, clear_current_in_child);
}

// Note [Context limits]: what cuCtxGetLimit answers before any cuCtxSetLimit. The
// documented ones: the device runtime's sync depth of two grid levels and 2048 pending
// launches (cuda.h, cuCtxSetLimit). Recorded on an H100 (docs/HARDWARE.md, Recording 2): a
// 1 KiB stack, an 8.25 MiB printf FIFO, an 8 MiB malloc heap, a 64-byte L2 fetch
// granularity, a persisting L2 size of 30% of the device's
// CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, and CU_LIMIT_SHMEM_SIZE equal to the
// device's CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; a context is not
// CIG-enabled. [inferred] The same on every device the machine file describes.
}  // namespace

ContextSettings default_context_settings(int physical) {
  using namespace accel::cuda_abi;  // NOLINT
  const DeviceSpec& spec = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
  auto attribute = [&](CUdevice_attribute a) {
    return static_cast<std::size_t>(std::max(0, device_attribute_value(spec, physical, a)));
  };
  ContextSettings s;
  s.limits[CU_LIMIT_STACK_SIZE] = 1024;
  s.limits[CU_LIMIT_PRINTF_FIFO_SIZE] = 8650752;
  s.limits[CU_LIMIT_MALLOC_HEAP_SIZE] = std::size_t{8} << 20;
  s.limits[CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH] = 2;
  s.limits[CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT] = 2048;
  s.limits[CU_LIMIT_MAX_L2_FETCH_GRANULARITY] = 64;
  s.limits[CU_LIMIT_PERSISTING_L2_CACHE_SIZE] =
      attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE) * 3 / 10;
  s.limits[CU_LIMIT_SHMEM_SIZE] = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  s.limits[CU_LIMIT_CIG_ENABLED] = 0;
  s.limits[CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED] = 0;
  return s;
}

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

namespace {
// Published by mark_initialized (under the lock), read by unlocked_current_context (without):
// the machine generation cuInit last succeeded for. A new machine leaves it stale (its
// generation differs from the quiet one).
std::atomic<std::uint64_t> g_ready_generation{0};
}  // namespace

void mark_initialized() {
  CudaState& s = cuda_state();
  s.initialized = true;
  s.init_pid = core::current_pid();
  g_ready_generation.store(s.generation, std::memory_order_release);
}

// No pid check: a forked child's thread starts with a cleared stack (clear_current_in_child),
// whose generation 0 is never the quiet one, so the child's calls take the lock, where the pid
// gate answers them. The thread-local is named once: each named access is a __tls_get_addr
// call in a shared library.
std::optional<CUctx_st*> unlocked_current_context() noexcept {
  const std::uint64_t quiet = core::quiet_generation();
  const ThreadContexts& mine = t_current;
  if (quiet == 0 || g_ready_generation.load(std::memory_order_acquire) != quiet ||
      mine.generation != quiet || core::in_host_function()) {
    return std::nullopt;
  }
  return mine.stack.empty() ? nullptr : mine.stack.back();
}

CUctx_st* current_context() {
  const std::vector<CUctx_st*>& s = stack();
  return s.empty() ? nullptr : s.back();
}

void set_current_context(CUctx_st* ctx) {
  std::vector<CUctx_st*>& s = stack();
  if (ctx == nullptr) {
    if (!s.empty()) s.pop_back();
  } else if (s.empty()) {
    s.push_back(ctx);
  } else {
    s.back() = ctx;
  }
}

void push_context(CUctx_st* ctx) { stack().push_back(ctx); }

CUctx_st* pop_context() {
  std::vector<CUctx_st*>& s = stack();
  if (s.empty()) return nullptr;
  CUctx_st* top = s.back();
  s.pop_back();
  return top;
}

CUctx_st* new_context(int physical, int dev, bool primary) {
  CudaState& s = cuda_state();
  auto* ctx = new CUctx_st{};  // never freed: Note [Leaky state]
  core::keep_forever(ctx);
  ctx->physical_device = physical;
  ctx->ordinal = dev;
  ctx->primary = primary;
  ctx->id = s.next_context_id++;
  ctx->settings = default_context_settings(physical);
  ctx->caller = core::current_caller();
  s.live_contexts.insert(ctx);
  return ctx;
}

std::uint64_t memory_key(const CUctx_st* ctx) { return ctx->primary ? 0 : ctx->id; }

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

}  // namespace mockdev::cuda
