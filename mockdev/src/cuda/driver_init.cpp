// Driver initialisation, version, error texts and the checks of cuGetProcAddress (the
// entry points that work before cuInit), declared in driver_api.h.

#include <cstdlib>
#include <optional>
#include <string_view>

#include "core/engine.h"
#include "cuda/cuda_state.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/visible_devices.h"

namespace mockdev::cuda {

namespace impl {

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (driver_ready()) return CUDA_SUCCESS;
  const core::Engine& e = core::engine();
  // A machine that could not be loaded: Note [Configuration errors] in docs/MACHINE_FILES.md.
  if (e.config_error) return CUDA_ERROR_INVALID_VALUE;
  if (std::optional<int> code = core::init_error(Api::kCuda)) return static_cast<CUresult>(*code);
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  VisibleSelection visible = select_visible_devices(
      env ? std::optional<std::string_view>(env) : std::nullopt, e.machine.devices);
  if (visible.repeated) return CUDA_ERROR_INVALID_DEVICE;  // Note [Driver visible-device rules]
  if (visible.devices.empty()) return CUDA_ERROR_NO_DEVICE;
  CudaState& s = cuda_state();
  s.visible = std::move(visible.devices);
  s.initialized = true;
  s.init_pid = core::current_pid();
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* driver_version) {
  if (driver_version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *driver_version = core::engine().machine.driver_version;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** str) {
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *str = result_name(error);
  return *str == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult error, const char** str) {
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *str = result_description(error);
  return *str == nullptr ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

}  // namespace impl

CUresult api::get_proc_address_check(bool v2, const char* symbol, void** pfn, int cuda_version,
                                     cuuint64_t flags) {
  core::EngineLock lock;
  if (auto early = enter(v2 ? Entry::cuGetProcAddress_v2 : Entry::cuGetProcAddress)) return *early;
  if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (flags > CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) return CUDA_ERROR_INVALID_VALUE;
  if (cuda_version > core::engine().machine.driver_version) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

}  // namespace mockdev::cuda
