// The api:: functions of driver_api.h, generated from ACCEL_CUDA_DRIVER_TABLE: each takes
// the engine lock, applies steps 1-4 of Note [Driver call order] from its row's traits,
// then, for an entry point without kLegalInCapture, the capture gate (step 4b), and calls
// the hand-written impl:: function for the rest.

#include "cuda/capture.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"
#include "cuda/unlocked_entry.h"

namespace mockdev::cuda::api {

// Step 4b sits after the init gate (no capture can exist before cuInit, and a forked
// child's or a faulted call's code comes first, as for every other rule) and before the
// entry point looks at its arguments: whether a call is potentially unsafe depends on the
// calling thread and the captures in progress, not on the arguments, so a prohibited
// call answers 900 and invalidates the capture even when its arguments are bad
// [inferred]. The test is decided at compile time per row: legal entry points pay nothing.
// An entry point with an UnlockedAnswer may answer before the lock is taken (Note
// [Unlocked answers] in core/engine.h); for the others the check compiles to nothing.
#define MOCKDEV_CUDA_DEFINE_API(name, version, symbol, params, args, traits) \
  CUresult symbol params {                                                   \
    if (auto unlocked = UnlockedAnswer<Entry::symbol>::answer args) {        \
      return *unlocked;                                                      \
    }                                                                        \
    core::EngineLock lock;                                                   \
    if (auto early = enter(Entry::symbol)) return *early;                    \
    if constexpr (!has_trait(Entry::symbol, kLegalInCapture)) {              \
      if (auto gated = capture::unsafe_call_gate()) return *gated;           \
    }                                                                        \
    return impl::symbol args;                                                \
  }
ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_DEFINE_API)
#undef MOCKDEV_CUDA_DEFINE_API

// A per-thread variant: the same steps under its own name, then its row's impl:: function
// with the per-thread default stream in force for the call (Note [Per-thread default
// stream] in stream_objects.h).
#define MOCKDEV_CUDA_DEFINE_PT_API(name, version, symbol, variant, pt_version, suffix, params, \
                                   args, traits)                                              \
  CUresult variant params {                                                                   \
    core::EngineLock lock;                                                                    \
    if (auto early = enter(Entry::variant)) return *early;                                    \
    if constexpr (!has_trait(Entry::variant, kLegalInCapture)) {                              \
      if (auto gated = capture::unsafe_call_gate()) return *gated;                            \
    }                                                                                         \
    PerThreadDefaultStream per_thread;                                                        \
    return impl::symbol args;                                                                 \
  }
ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_CUDA_DEFINE_PT_API)
#undef MOCKDEV_CUDA_DEFINE_PT_API

}  // namespace mockdev::cuda::api
