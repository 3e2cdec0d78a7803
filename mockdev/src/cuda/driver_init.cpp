// Driver initialisation, version, error texts, the checks of cuGetProcAddress and
// cuGetExportTable's refusal (the entry points that work before cuInit), declared in
// driver_api.h.

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "core/engine.h"
#include "core/engine_lock.h"
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
  mark_initialized();
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

// Note [Export tables]
// NVIDIA's runtime (the static libcudart_static.a nvcc links by default, and its shared
// libcudart) asks the driver for undocumented tables through cuGetExportTable before anything
// else, and gives up on every call when it gets none. The simulated driver never serves or
// imitates them (issue 19): it answers CUDA_ERROR_NOT_SUPPORTED, and names the cause and the
// fix once per process on stderr, so that the program's later opaque errors are explained.
// accel's own runtime (libcudart.so.13) never calls it.
CUresult cuGetExportTable(const void** table, const CUuuid* /*id*/) {
  static pid_t reported_pid = 0;  // the engine lock serialises impl:: calls
  if (const pid_t pid = core::current_pid(); reported_pid != pid) {
    reported_pid = pid;
    std::fputs(
        "mockdev: this program asked for the CUDA driver's undocumented export tables "
        "(cuGetExportTable), which NVIDIA's static CUDA runtime (nvcc's default) needs and the "
        "simulated driver does not serve: rebuild with `-cudart shared` (CMake: "
        "CUDA_RUNTIME_LIBRARY Shared) so that accel's libcudart.so.13 is used\n",
        stderr);
  }
  if (table != nullptr) *table = nullptr;
  return CUDA_ERROR_NOT_SUPPORTED;
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
