#pragma once
// Modules, build logs and kernels of the mock Level Zero driver (zeModule*, zeModuleBuildLog*,
// zeKernel*: ze_modules.cpp) and the launches of command lists (ze_launch.cpp, appended by
// ze_command_lists.cpp, enqueued by ze_submit.cpp).
//
// A module is read from SPIR-V (Note [SPIR-V modules] in ze_spirv.h) on one device of a
// context; its exported globals are device memory of that context on that device (allocations
// of the context's table, which zeMemFree refuses). A kernel is one entry point of a module
// with the argument values, group size and indirect-access flags set on it so far.
// Ownership: as every object of ze_objects.h (never freed; a destroyed handle leaves the
// registry). Thread safety: every function requires the engine lock.
//
// Note [Level Zero launches]
// zeCommandListAppendLaunchKernel snapshots the kernel at append time (the specification: the
// arguments and group size "are copied at the time of the call"), so a regular list replays the
// values it was appended with. The launch is one operation of the list's stream (Note [Level
// Zero streams]) of kind kernel: a kernel registered under the entry point's name
// (mockdev/kernels.h, the registry the CUDA driver uses) runs its host body when the operation
// completes, with Launch::grid = the group counts, Launch::block = the group size and
// Launch::args = the argument values in index order, and declares the ranges its access
// function gives; any other kernel is an opaque operation of the machine's kernel duration
// with unknown accesses. A registered body reads and writes device memory and the host and
// shared allocations of the module's context; a declared range or a body access outside them
// is an illegal address: one stderr line, the access is dropped (the body does not run when a
// declared range is outside). The indirect launches read their group counts (and the kernel
// count) from memory when the operation runs, so their accesses are unknown whatever is
// registered; they declare the read of those buffers.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "level_zero/ze_objects.h"
#include "level_zero/ze_spirv.h"
#include "mockdev/kernels.h"

struct _ze_module_handle_t {
  _ze_context_handle_t* context = nullptr;
  mockdev::level_zero::ZeDevice* device = nullptr;
  std::vector<mockdev::level_zero::spirv::Kernel> kernels;
  struct Global {
    std::string name;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
  };
  std::vector<Global> globals;
  std::vector<const char*> kernel_names;  // zeModuleGetKernelNames: into `kernels`
  int live_kernels = 0;
};

struct _ze_module_build_log_handle_t {
  std::string text;
};

struct _ze_kernel_handle_t {
  _ze_module_handle_t* module = nullptr;
  std::size_t index = 0;  // into module->kernels
  std::vector<std::optional<std::vector<std::byte>>> args;
  std::array<std::uint32_t, 3> group = {1, 1, 1};
  ze_kernel_indirect_access_flags_t indirect = 0;
};

namespace mockdev::level_zero {

// One kernel of a launch as it runs (Note [Level Zero launches]).
struct LaunchedKernel {
  std::string name;
  const char* op_name = "";                         // "kernel <name>", static text
  std::shared_ptr<const kernels::KernelSpec> spec;  // nullptr: not registered
  kernels::Launch launch;
  bool faults = false;  // a declared range is outside every allocation
  kernels::Accesses accesses;
};

struct LaunchJob {
  std::vector<LaunchedKernel> kernels;
  _ze_context_handle_t* context = nullptr;
  // Indirect launches: the group counts (one ze_group_count_t per kernel) and, for
  // AppendLaunchMultipleKernelsIndirect, the uint32_t kernel count, read when it runs.
  bool indirect = false;
  Endpoint counts;
  bool multiple = false;
  Endpoint count;
};

// The launch command of `kernels` (each with its group counts, or, indirect, none) on `list`:
// INVALID_ARGUMENT (with a stderr line) when a kernel is not of the list's context and device,
// an argument is unset, or its registration contradicts the module.
ze_result_t build_launch(_ze_command_list_handle_t& list,
                         const std::vector<_ze_kernel_handle_t*>& kernels,
                         const ze_group_count_t* counts, Command& command) MOCKDEV_ZE_LOCKED;
// The engine operation of a kLaunch command.
void describe_launch(const Command& command, core::OpDesc& desc) MOCKDEV_ZE_LOCKED;

}  // namespace mockdev::level_zero
