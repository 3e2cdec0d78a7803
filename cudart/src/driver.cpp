#include "driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

// Note [Runtime initialisation]
// The first call that needs the driver (spec cuda_runtime.md §1.1) opens "libcuda.so.1"
// through the library search path, finds cuGetProcAddress_v2 with dlsym, asks it for every
// entry point of the driver ABI at the row's own version (CU_GET_PROC_ADDRESS_DEFAULT; the
// per-thread default-stream variants with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM at
// theirs), reads the driver's version and calls cuInit(0). The outcome is kept for the
// process: a failure is answered by every later driver-needing call (sticky, §1.1).
//   no libcuda.so.1, or one without cuGetProcAddress_v2 (before CUDA 12.0), or a driver
//   older than the runtime (cuDriverGetVersion < 13000): cudaErrorInsufficientDriver (35);
//   the toolkit's stub library (its calls answer CUDA_ERROR_STUB_LIBRARY): cudaErrorStubLibrary
//   (34); cuInit failing: its code as the runtime's (100 without a device, 3 ...).
// The process id is recorded when initialisation starts: in a child forked afterwards every
// driver-needing call answers cudaErrorInitializationError (3), sticky, without touching
// the inherited driver state (spec §1.6, [inferred]; docs/HARDWARE.md).
//
// Note [Cached process id]
// That check runs on every driver-needing call (twice: stuck_error() in the entry wrapper,
// then load_driver()), and getpid() is a system call (glibc does not cache it), which cost
// microseconds per call on sandboxed kernels: many times the driver call it wraps
// (bench/cudart_bench.cpp). The pid is cached instead and refreshed in the child by a
// pthread_atfork handler registered when the library loads (registering lazily would call
// pthread_atfork under g_load_mutex while a concurrent fork holds glibc's atfork lock). A
// child made by a raw clone that skips the atfork handlers keeps the parent's pid; such a
// child cannot use the runtime safely anyway (as for mockdev's Note [Cached pid]).

namespace accel::cudart {
namespace {

constexpr int kNotLoaded = -1;

std::atomic<int> g_status{kNotLoaded};  // a cudaError_t once initialisation ran
std::atomic<pid_t> g_init_pid{0};
constinit std::atomic<pid_t> g_self_pid{0};  // Note [Cached process id]; 0 until first asked
std::mutex g_load_mutex;
DriverTable g_table;

// The calling process's id (Note [Cached process id]).
pid_t self_pid() noexcept {
  pid_t pid = g_self_pid.load(std::memory_order_relaxed);
  if (pid == 0) {
    pid = getpid();
    g_self_pid.store(pid, std::memory_order_relaxed);
  }
  return pid;
}

void refresh_pid_in_child() { g_self_pid.store(getpid(), std::memory_order_relaxed); }

__attribute__((constructor)) void register_fork_handler() {
  pthread_atfork(nullptr, nullptr, refresh_pid_in_child);
}

// The resolver of the driver in `library`, or nullptr.
drv::PFN_cuGetProcAddress_v12000 resolver(void* library) {
  return reinterpret_cast<drv::PFN_cuGetProcAddress_v12000>(dlsym(library, "cuGetProcAddress_v2"));
}

void* open_driver() {
  // Never closed: the runtime keeps the driver for the process, as NVIDIA's does.
  return dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
}

template <class Pfn>
drv::CUresult resolve(drv::PFN_cuGetProcAddress_v12000 get, const char* name, int version,
                      drv::cuuint64_t flags, Pfn* out) {
  void* fn = nullptr;
  drv::CUdriverProcAddressQueryResult status = drv::CU_GET_PROC_ADDRESS_SUCCESS;
  const drv::CUresult result = get(name, &fn, version, flags, &status);
  *out = (result == drv::CUDA_SUCCESS && status == drv::CU_GET_PROC_ADDRESS_SUCCESS)
             ? reinterpret_cast<Pfn>(fn)
             : nullptr;
  return result;
}

cudaError_t initialise() {
  void* library = open_driver();
  if (library == nullptr) return cudaErrorInsufficientDriver;
  const auto get = resolver(library);
  if (get == nullptr) return cudaErrorInsufficientDriver;

  // cuDriverGetVersion first: a stub library answers 34 there, an old driver a low version.
  const drv::CUresult probe =
      resolve(get, "cuDriverGetVersion", 2020, drv::CU_GET_PROC_ADDRESS_DEFAULT,
              &g_table.cuDriverGetVersion);
  if (probe == drv::CUDA_ERROR_STUB_LIBRARY) return cudaErrorStubLibrary;
  if (g_table.cuDriverGetVersion == nullptr) return cudaErrorInsufficientDriver;
  const drv::CUresult version = g_table.cuDriverGetVersion(&g_table.driver_version);
  if (version == drv::CUDA_ERROR_STUB_LIBRARY) return cudaErrorStubLibrary;
  if (version != drv::CUDA_SUCCESS || g_table.driver_version < kCudartVersion) {
    return cudaErrorInsufficientDriver;
  }

  // Every entry point at its row's version. A version above the driver's, or a name the
  // driver does not know, leaves the pointer null (call() answers 36 for it).
#define ACCEL_CUDART_RESOLVE(name, version, symbol, params) \
  (void)resolve(get, #name, version, drv::CU_GET_PROC_ADDRESS_DEFAULT, &g_table.symbol);
  ACCEL_CUDA_ENTRY_POINTS(ACCEL_CUDART_RESOLVE)
#undef ACCEL_CUDART_RESOLVE
#define ACCEL_CUDART_RESOLVE_PT(name, version, symbol, variant, pt_version, suffix, params, args, \
                                traits)                                                           \
  (void)resolve(get, #name, pt_version, drv::CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,       \
                &g_table.variant);
  ACCEL_CUDA_PER_THREAD_TABLE(ACCEL_CUDART_RESOLVE_PT)
#undef ACCEL_CUDART_RESOLVE_PT

  if (g_table.cuInit == nullptr) return cudaErrorInsufficientDriver;
  return to_runtime(g_table.cuInit(0));
}

}  // namespace

cudaError_t initialisation_error() noexcept {
  const pid_t pid = g_init_pid.load(std::memory_order_acquire);
  if (pid != 0 && pid != self_pid()) return cudaErrorInitializationError;
  const int status = g_status.load(std::memory_order_acquire);
  return status == kNotLoaded ? cudaSuccess : static_cast<cudaError_t>(status);
}

cudaError_t load_driver(const DriverTable** table) noexcept {
  int status = g_status.load(std::memory_order_acquire);
  if (status == kNotLoaded) {
    const pid_t pid = g_init_pid.load(std::memory_order_acquire);
    if (pid != 0 && pid != self_pid()) return cudaErrorInitializationError;
    std::lock_guard<std::mutex> lock(g_load_mutex);
    status = g_status.load(std::memory_order_acquire);
    if (status == kNotLoaded) {
      g_init_pid.store(self_pid(), std::memory_order_release);
      status = initialise();
      g_status.store(status, std::memory_order_release);
    }
  }
  if (const cudaError_t stuck = initialisation_error(); stuck != cudaSuccess) return stuck;
  *table = &g_table;
  return cudaSuccess;
}

int driver_version_if_present() noexcept {
  if (g_status.load(std::memory_order_acquire) == cudaSuccess) return g_table.driver_version;
  void* library = open_driver();
  if (library == nullptr) return 0;
  const auto get = resolver(library);
  if (get == nullptr) return 0;
  drv::PFN_cuDriverGetVersion_v2020 version_of = nullptr;
  (void)resolve(get, "cuDriverGetVersion", 2020, drv::CU_GET_PROC_ADDRESS_DEFAULT, &version_of);
  int version = 0;
  if (version_of == nullptr || version_of(&version) != drv::CUDA_SUCCESS) return 0;
  return version;
}

cudaError_t to_runtime(drv::CUresult result) noexcept {
  switch (result) {
    case drv::CUDA_ERROR_CONTEXT_ALREADY_CURRENT:  // 202: driver-only (spec §2.3)
    case drv::CUDA_ERROR_KEY_ROTATION:             // 916: driver-only
      return cudaErrorUnknown;
    default:
      return static_cast<cudaError_t>(static_cast<int>(result));
  }
}

}  // namespace accel::cudart
