#pragma once
// The control API of the simulated hardware, for tests and tools in the same process.
//
// mockdev's engine lives in one shared library (libmockdev.so) that the driver facades
// (the mock libcuda.so.1 and libnvidia-ml.so.1) and any test linking accel::mockdev share,
// so a test sees the very state the runtime's driver calls change. Everything here is
// thread-safe and never throws except where stated; it may be used in a forked child.
//
// The engine reads its machine lazily, at the first driver or control call, from
// MOCKDEV_MACHINE (kDefaultPreset when unset). A malformed value leaves the engine with
// no devices and a configuration error: cuInit and nvmlInit then fail, and
// config_error() says why.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::control {

// "Power-cycles" the simulated machine: installs `machine`, drops every context,
// allocation and fault, uninitialises the driver and NVML, clears the forked flag and
// zeroes the call counters. For test fixtures; the caller must hold no driver objects.
void reset(const MachineSpec& machine);
// reset() with the machine named by MOCKDEV_MACHINE, MOCKDEV_SCHEDULE and MOCKDEV_SEED
// applied (they override its `streams:` section). Throws MachineFileError, or
// std::invalid_argument naming the variable for a malformed schedule or seed.
void reset_from_environment();

// The installed machine.
MachineSpec machine();
// Why the machine from MOCKDEV_MACHINE could not be loaded; nullopt when it could.
std::optional<std::string> config_error();

// Calls made to an entry point since the last reset, counted in every process state,
// failing calls too. Named by its exported symbol ("cuInit", "cuMemAlloc_v2",
// "nvmlInit_v2") or by its CUDA base name ("cuMemAlloc" reads cuMemAlloc_v2's count); an
// unknown name has count 0. call_counts() lists the entry points called since the last
// reset, keyed by exported symbol.
std::uint64_t call_count(std::string_view entry_point);
std::map<std::string, std::uint64_t> call_counts();
void reset_call_counts();

// Run-time fault scripting: fail the nth call from now of `entry_point` with `code`
// (nth == 0: every call until cleared). `entry_point` is an exported symbol or a CUDA base
// name, as in a machine file; an unknown name throws std::invalid_argument naming the
// closest known ones.
void fail_call(std::string_view entry_point, std::uint64_t nth, int code);
// Makes every later call touching `device` fail with `code`.
void set_sticky_error(int device, int code);
// Removes every scripted and machine-file fault (sticky errors included).
void clear_faults();

// True once `api`'s initialisation (cuInit, nvmlInit, zeInit) has succeeded in this
// process (false in a fresh child after fork, and for an API whose driver is not built).
bool driver_initialized(Api api);
// CUDA shorthand: driver_initialized(Api::kCuda).
bool driver_initialized();
// True in a child forked after the parent initialised the driver: every CUDA entry point
// then returns CUDA_ERROR_NOT_INITIALIZED, as the real driver does.
bool forked_after_init();

// Live driver objects, for leak checks.
struct LiveObjects {
  std::size_t primary_contexts_active = 0;  // devices whose primary context is retained
  std::size_t allocations = 0;              // cuMemAlloc allocations not yet freed
  std::uint64_t allocated_bytes = 0;       // as accounted: rounded to the granularity
  std::vector<std::string> descriptions;    // one line per object, e.g. "ctx dev=1 refs=2"
};
LiveObjects live_objects();

// Device memory in use on `device` (all allocations), as cuMemGetInfo accounts it.
std::uint64_t used_bytes(int device);

}  // namespace mockdev::control
