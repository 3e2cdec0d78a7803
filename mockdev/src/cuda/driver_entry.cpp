// The api:: functions of driver_api.h, generated from ACCEL_CUDA_DRIVER_TABLE: each takes
// the engine lock, applies steps 1-4 of Note [Driver call order] from its row's traits,
// and calls the hand-written impl:: function for the rest.

#include "cuda/driver_api.h"
#include "cuda/driver_call.h"

namespace mockdev::cuda::api {

#define MOCKDEV_CUDA_DEFINE_API(name, version, symbol, params, args, traits) \
  CUresult name params {                                                     \
    core::EngineLock lock;                                                   \
    if (auto early = enter(Entry::name)) return *early;                      \
    return impl::name args;                                                  \
  }
ACCEL_CUDA_DRIVER_TABLE(MOCKDEV_CUDA_DEFINE_API)
#undef MOCKDEV_CUDA_DEFINE_API

}  // namespace mockdev::cuda::api
