#include "cuda/driver_call.h"

#include <array>

#include "core/engine.h"
#include "core/timeline.h"
#include "cuda/cuda_state.h"

namespace mockdev::cuda {

using namespace accel::cuda_abi;  // NOLINT

core::CallCounter& call_counter(Entry entry) noexcept {
  // Each entry point's count, found once (Note [Counted calls]). constinit: a table filled by
  // a load-time constructor could be half-written in a child forked during the dlopen
  // (Note [Constant driver tables] in cuda_facade.cpp).
  static constinit std::array<core::CallCounter, kEntries.size()> counters;
  return counters[static_cast<std::size_t>(entry)];
}

std::optional<CUresult> enter(Entry entry) {
  std::optional<int> fault = core::count_call(info(entry).symbol, &call_counter(entry));
  if (in_forked_child() && !has_trait(entry, kAnswersAfterFork)) return CUDA_ERROR_NOT_INITIALIZED;
  if (fault) return static_cast<CUresult>(*fault);
  if (has_trait(entry, kNeedsInit) && !driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
  // From inside a host function run by the stream engine (Note [Host functions] in
  // core/timeline.h): refused, as the driver documents for stream callbacks.
  if (core::in_host_function()) return CUDA_ERROR_NOT_PERMITTED;
  // The random schedule's progress point (Note [Scheduler] in core/timeline.h): before the
  // body, where no state is held, since it may run host functions with the lock released.
  if (driver_ready()) core::progress_point();
  return std::nullopt;
}

std::optional<int> physical_device(CUdevice dev) {
  const CudaState& s = cuda_state();
  if (dev < 0 || static_cast<std::size_t>(dev) >= s.visible.size()) return std::nullopt;
  return s.visible[static_cast<std::size_t>(dev)];
}

std::optional<CUresult> sticky_error(int device) {
  if (std::optional<int> code = core::touch_device(Api::kCuda, device))
    return static_cast<CUresult>(*code);
  return std::nullopt;
}

}  // namespace mockdev::cuda
