#pragma once
// The engine's process-wide state: the simulated machine and everything the driver facades
// change (driver init, contexts, allocations, counters, faults, NVML, the fork flag).
//
// Ownership: one State object, created on first use and never destroyed (Note [Leaky
// state]). Driver objects handed to callers (CUctx_st, nvmlDevice_st) are owned by the
// engine and are never freed either; callers' handles are validated by looking them up in
// the registries below, never by dereferencing an unknown pointer.
// Thread safety: every member is guarded by the one engine mutex; hold an EngineLock while
// touching any of it. The per-thread current context is thread_local and needs no lock.
//
// Note [Leaky state]
// A driver is used from atexit handlers, from other libraries' destructors and from
// forked children that call exit(). If this state had a static destructor, a late call
// would touch freed memory, and a child's exit() would run destructors of objects whose
// owning threads do not exist in it. So the state is a heap object reached through a
// function-local pointer that is never deleted.
//
// Note [Fork handling]
// pthread_atfork(prepare = lock, parent = unlock, child = re-create the mutex), registered
// when libmockdev.so is loaded (Note [Fork handler registration] in engine_state.cpp): a fork
// while another thread is inside the engine waits until that call finishes, so the child
// never inherits a mutex held by a thread that does not exist there. The child handler also
// records forked_after_init when the parent had initialised the driver (every CUDA entry
// point then returns CUDA_ERROR_NOT_INITIALIZED, as the real driver does) and clears the
// forking thread's current context.

#include <pthread.h>
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/nvml.h"
#include "mockdev/machine.h"

// The opaque driver handle types, defined by the engine (the ABI header only declares them).
struct accel::cuda_abi::CUctx_st {
  int physical_device = 0;  // index into MachineSpec::devices
  int ordinal = 0;          // the CUdevice it was retained for (a visible ordinal)
  int refcount = 0;         // primary-context retain count; 0 = inactive
};

struct accel::nvml_abi::nvmlDevice_st {
  int physical_device = 0;
};

namespace mockdev::engine {

using accel::cuda_abi::CUctx_st;
using accel::cuda_abi::CUdeviceptr;

// Devices get disjoint fake address ranges: device d allocates in [(d+1) << 44, (d+2) << 44).
inline constexpr int kAddressRangeShift = 44;
inline constexpr std::uint64_t kAllocationAlignment = 512;

struct Allocation {
  int physical_device = 0;
  std::uint64_t bytes = 0;
};

// A call fault, scripted in the machine file or at run time; `seen` counts the calls of
// its entry point since it was installed.
struct ActiveCallFault {
  std::string entry_point;
  std::uint64_t nth = 1;  // 0 = every call
  int code = 0;
  std::uint64_t seen = 0;
};

// A sticky error; `seen` counts the calls that touched the device since it was installed.
struct ActiveSticky {
  int device = 0;
  int code = 0;
  std::uint64_t after_calls = 0;
  std::uint64_t seen = 0;
};

struct DeviceState {
  CUctx_st* primary = nullptr;  // created at the first retain (after a reset); never freed
  std::uint64_t used_bytes = 0;
  std::uint64_t next_offset = 0;  // bump pointer inside the device's address range
  accel::nvml_abi::nvmlDevice_st* nvml_handle = nullptr;  // never freed
};

struct State {
  MachineSpec machine;
  std::optional<std::string> config_error;  // why MOCKDEV_MACHINE could not be loaded

  // CUDA driver.
  bool initialized = false;
  pid_t init_pid = 0;
  bool forked_after_init = false;
  std::vector<int> visible;  // CUdevice ordinal -> physical device index
  std::vector<DeviceState> devices;
  std::unordered_set<const CUctx_st*> live_contexts;
  std::map<CUdeviceptr, Allocation> allocations;
  std::uint64_t epoch = 1;  // bumped by reset; stale thread-local contexts compare unequal

  // Counters and faults.
  std::map<std::string, std::uint64_t, std::less<>> call_counts;
  std::vector<ActiveCallFault> call_faults;
  std::vector<ActiveSticky> sticky;
  std::optional<int> driver_init_error;
  std::optional<int> nvml_init_error;

  // NVML: initialised per process (a forked child must initialise it again).
  pid_t nvml_pid = 0;
  int nvml_refs = 0;
};

// The state, created (and the machine loaded from MOCKDEV_MACHINE) on first use. Take an
// EngineLock before reading or writing it.
State& state();

// Holds the engine mutex for its lifetime.
class EngineLock {
 public:
  EngineLock();
  ~EngineLock();
  EngineLock(const EngineLock&) = delete;
  EngineLock& operator=(const EngineLock&) = delete;
};

// Installs `machine` as if the machine were power-cycled (control::reset); `config_error`
// records why the requested machine could not be loaded. Caller holds the lock.
void install_machine(State& s, MachineSpec machine, std::optional<std::string> config_error);

// Counts one call of `entry_point` and advances the call faults of that entry point;
// returns the code of a fault that fires on this call. Caller holds the lock.
std::optional<int> count_call(State& s, std::string_view entry_point);

// A touching call on physical `device`: advances its sticky errors and returns the code of
// one that is in force. Caller holds the lock.
std::optional<int> touch_device(State& s, int device);

// True when this process is a child forked after its parent initialised the driver.
// This process's id, cached: Note [Cached pid]. Every entry point's pid gate reads it.
pid_t current_pid() noexcept;

bool in_forked_child(const State& s);
// True when cuInit has succeeded in this very process.
bool driver_ready(const State& s);

// The calling thread's current context (nullptr when none, or when it was set before the
// last reset), and its setter. Caller holds the lock.
CUctx_st* current_context(const State& s);
void set_current_context(const State& s, CUctx_st* ctx);

}  // namespace mockdev::engine
