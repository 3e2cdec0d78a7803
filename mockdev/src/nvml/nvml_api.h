#pragma once
// The simulated NVML: one function per entry point of the mock libnvidia-ml.so.1, both
// sets declared from ACCEL_NVML_TABLE (abi/include/accel_abi/nvml.h):
//   mockdev::nvml::api::<symbol>   what the facade forwards to: takes the engine lock,
//                                  counts the call, fires a call fault, applies the init
//                                  gate for kNvmlNeedsInit rows (nvml_entry.cpp), then calls
//   mockdev::nvml::impl::<symbol>  the entry point's own work (nvml_api.cpp).
// NVML lists every physical device of the machine (it ignores CUDA_VISIBLE_DEVICES; the
// caller applies the mask) and never touches CUDA driver state, so it works in a forked
// child once that child has called nvmlInit itself (initialisation is per process).
// nvmlErrorString returns a string, which cannot carry a fault: it is only counted.
// Thread-safe; never throws except std::bad_alloc, which the facade turns into
// NVML_ERROR_UNKNOWN.

#include "accel_abi/nvml.h"
#include "core/engine_lock.h"

namespace mockdev::nvml {

using namespace accel::nvml_abi;  // NOLINT: vendor names read best unqualified here

namespace api {
#define MOCKDEV_NVML_DECLARE_API(symbol, ret, params, args, traits) \
  ret symbol params MOCKDEV_EXCLUDES(core::g_engine_mutex);
ACCEL_NVML_TABLE(MOCKDEV_NVML_DECLARE_API)
#undef MOCKDEV_NVML_DECLARE_API
}  // namespace api

namespace impl {
#define MOCKDEV_NVML_DECLARE_IMPL(symbol, ret, params, args, traits) \
  ret symbol params MOCKDEV_REQUIRES(core::g_engine_mutex);
ACCEL_NVML_TABLE(MOCKDEV_NVML_DECLARE_IMPL)
#undef MOCKDEV_NVML_DECLARE_IMPL
}  // namespace impl

}  // namespace mockdev::nvml
