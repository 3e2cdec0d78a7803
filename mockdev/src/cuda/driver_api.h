#pragma once
// The simulated CUDA driver: one function per entry point of the mock libcuda.so.1, with
// the driver's rules applied (Note [Driver call order]). Both sets of functions are
// declared from ACCEL_CUDA_DRIVER_TABLE, so a new row declares them:
//   mockdev::cuda::api::<symbol>   what the facade (cuda_facade.cpp) forwards to: takes
//                                  the engine lock and applies steps 1-4 from the row's
//                                  traits (driver_entry.cpp), then calls
//   mockdev::cuda::impl::<symbol>  the entry point's own steps 5-7, written by hand
//                                  (driver_*.cpp, one file per group of entry points).
// Both are named by the row's exported symbol (cuMemAlloc_v2), which is unique where base
// names are not (cuCtxCreate_v2 .. _v4). A per-thread default-stream variant
// (cuMemcpyAsync_ptsz) has an api:: function of its own, counted under its own name, that
// calls its row's impl:: function with the per-thread default stream in force
// (Note [Per-thread default stream] in stream_objects.h).
// Thread-safe; never throws except std::bad_alloc, which the facade turns into
// CUDA_ERROR_UNKNOWN.
//
// Note [Driver call order]
// Every call, in this order: (1) is counted under its exported symbol name, failing calls
// included; (2) in a child forked after the parent initialised the driver, returns
// CUDA_ERROR_NOT_INITIALIZED (the pid gate; every entry point but those with the
// kAnswersAfterFork trait, cuDriverGetVersion, as the real driver does); (3) returns
// the code of a scheduled call fault that fires on this call; (4) before a successful
// cuInit in this process, returns CUDA_ERROR_NOT_INITIALIZED if the entry point has the
// kNeedsInit trait (all but cuInit, cuDriverGetVersion, cuGetErrorName, cuGetErrorString
// and cuGetProcAddress(_v2)); (4b) for entry points without the kLegalInCapture trait
// (the "potentially unsafe" calls of cuThreadExchangeStreamCaptureMode), returns
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the captures that prohibit the
// call (Note [Capture rules] in capture.h); (5) checks its arguments, pointers to driver objects
// included (a context handle, an allocation's address); (6) for entry points with the
// kTouchesDevice trait (cuCtxSynchronize, cuMemGetInfo_v2, cuMemAlloc_v2, cuMemFree_v2),
// returns a sticky error in force on that device; a call that failed step 5 never gets
// here, so it neither sees nor advances a sticky error; (7) does the work.
// cuCtxGetCurrent may answer before the lock is taken, where steps 1-7 would give the same
// answer and the call is counted as step 1 counts it (Note [Unlocked answers] in
// core/engine.h, cuda/unlocked_entry.h).

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"

namespace mockdev::cuda {

using namespace accel::cuda_abi;  // NOLINT: vendor names read best unqualified here

namespace api {
#define MOCKDEV_CUDA_DECLARE_API(name, version, symbol, params, args, traits) \
  CUresult symbol params MOCKDEV_EXCLUDES(core::g_engine_mutex);
ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_DECLARE_API)
#undef MOCKDEV_CUDA_DECLARE_API
#define MOCKDEV_CUDA_DECLARE_PT_API(name, version, symbol, variant, pt_version, suffix, params, \
                                    args, traits)                                              \
  CUresult variant params MOCKDEV_EXCLUDES(core::g_engine_mutex);
ACCEL_CUDA_PER_THREAD_TABLE(MOCKDEV_CUDA_DECLARE_PT_API)
#undef MOCKDEV_CUDA_DECLARE_PT_API

// Steps 1-5 of cuGetProcAddress_v2 (`v2` true) or cuGetProcAddress:
// CUDA_ERROR_INVALID_VALUE for a null symbol or pfn, unknown flags, or a cudaVersion above
// the machine's driver version. The facade, which owns the function addresses, does the
// lookup after SUCCESS.
CUresult get_proc_address_check(bool v2, const char* symbol, void** pfn, int cuda_version,
                                cuuint64_t flags) MOCKDEV_EXCLUDES(core::g_engine_mutex);
}  // namespace api

namespace impl {
#define MOCKDEV_CUDA_DECLARE_IMPL(name, version, symbol, params, args, traits) \
  CUresult symbol params MOCKDEV_REQUIRES(core::g_engine_mutex);
ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_DECLARE_IMPL)
#undef MOCKDEV_CUDA_DECLARE_IMPL
}  // namespace impl

// Short descriptions of result codes (nullptr for an unknown code).
const char* result_description(int code);

}  // namespace mockdev::cuda
