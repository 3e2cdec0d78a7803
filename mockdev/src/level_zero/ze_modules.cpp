// Modules, build logs and kernels of the mock Level Zero driver (ze_kernels.h): zeModuleCreate
// from SPIR-V (Note [SPIR-V modules] in ze_spirv.h), kernel names, globals, kernel arguments and
// group sizes, and the module, build-log and kernel tables.
//
// Codes (the specification's where it gives one; the rest [inferred] in docs/HARDWARE.md):
// ZE_MODULE_FORMAT_NATIVE is ZE_RESULT_ERROR_INVALID_NATIVE_BINARY (the mock runs no device
// code; Intel's answer for a native binary that is not for the device); SPIR-V the reader
// refuses is ZE_RESULT_ERROR_MODULE_BUILD_FAILURE with the reason in the build log; a kernel
// name the module lacks is INVALID_KERNEL_NAME, a global name INVALID_GLOBAL_NAME; an argument
// index at or past the kernel's parameter count is INVALID_KERNEL_ARGUMENT_INDEX, a size other
// than the parameter type's INVALID_KERNEL_ARGUMENT_SIZE; a group size of 0, above
// maxGroupSize{X,Y,Z} or maxTotalGroupSize, or other than the kernel's LocalSize, is
// INVALID_GROUP_SIZE_DIMENSION; destroying a module whose kernels live is
// HANDLE_OBJECT_IN_USE.

#include <algorithm>
#include <cstring>
#include <string>

#include "core/engine.h"
#include "core/memory.h"
#include "level_zero/ze_devices.h"
#include "level_zero/ze_kernels.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {
namespace {

constexpr ze_kernel_flags_t kKernelKnownFlags =
    ZE_KERNEL_FLAG_FORCE_RESIDENCY | ZE_KERNEL_FLAG_EXPLICIT_RESIDENCY;
constexpr ze_kernel_indirect_access_flags_t kIndirectKnownFlags =
    ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST | ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
    ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED;

// A string answered through (size, buffer): a null buffer asks for the size (the nul
// included); otherwise at most *size bytes are written, the last of them a nul.
ze_result_t answer_string(const std::string& text, std::size_t* size, char* buffer) {
  if (size == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (buffer == nullptr) {
    *size = text.size() + 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*size == 0) return ZE_RESULT_SUCCESS;
  const std::size_t n = std::min(*size - 1, text.size());
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  return ZE_RESULT_SUCCESS;
}

_ze_module_build_log_handle_t* new_build_log(std::string text) MOCKDEV_ZE_LOCKED {
  auto* log = new _ze_module_build_log_handle_t();
  log->text = std::move(text);
  add_handle(log, HandleKind::kBuildLog);
  return log;
}

ze_result_t zeModuleCreate(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                           const ze_module_desc_t* desc, ze_module_handle_t* out,
                           ze_module_build_log_handle_t* build_log) {
  return call("zeModuleCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
    ZeDevice* device = core_device(hdevice);
    if (context == nullptr || device == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || desc->pInputModule == nullptr || out == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    if (desc->format > ZE_MODULE_FORMAT_NATIVE) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    if (desc->inputSize == 0) return ZE_RESULT_ERROR_INVALID_SIZE;
    auto refuse = [&](ze_result_t code, const std::string& why) MOCKDEV_ZE_LOCKED {
      if (build_log != nullptr) *build_log = new_build_log(why);
      report("zeModuleCreate: " + why);
      return code;
    };
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
      return refuse(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY,
                    "a native binary is device code the simulated device cannot run: build the "
                    "module from SPIR-V (ZE_MODULE_FORMAT_IL_SPIRV)");
    }
    std::string why;
    std::optional<spirv::Module> read =
        spirv::read_module(desc->pInputModule, desc->inputSize, &why);
    if (!read) return refuse(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE, "SPIR-V: " + why);
    auto* module = new _ze_module_handle_t();
    module->context = context;
    module->device = device;
    module->kernels = std::move(read->kernels);
    for (const spirv::Global& g : read->globals) {
      std::optional<std::uint64_t> address = allocate_global(*context, *device, g.bytes);
      if (!address) {
        for (const auto& made : module->globals) free_global(*context, made.address);
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
      }
      core::write_bytes(*address, g.initial.data(), g.bytes);
      module->globals.push_back({g.name, *address, g.bytes});
    }
    for (const spirv::Kernel& k : module->kernels) module->kernel_names.push_back(k.name.c_str());
    add_child(context, module, HandleKind::kModule);
    if (build_log != nullptr) *build_log = new_build_log("");
    *out = module;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleDestroy(ze_module_handle_t handle) {
  return call("zeModuleDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_module_handle_t* module = find_handle(handle, HandleKind::kModule);
    if (module == nullptr) {
      return destroy_orphan(handle, HandleKind::kModule) ? ZE_RESULT_SUCCESS
                                                         : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (module->live_kernels != 0) return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    for (const auto& g : module->globals) free_global(*module->context, g.address);
    remove_child(module->context, module);
    remove_handle(module);
    return ZE_RESULT_SUCCESS;
  });
}

// The count protocol of zeDriverGet (spec section 2.3); a null array with a count is
// INVALID_NULL_POINTER [inferred]. The names live as long as the module.
ze_result_t zeModuleGetKernelNames(ze_module_handle_t handle, std::uint32_t* count,
                                   const char** names) {
  return call("zeModuleGetKernelNames", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_module_handle_t* module = find_handle(handle, HandleKind::kModule);
    if (module == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (count == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto n = static_cast<std::uint32_t>(module->kernel_names.size());
    if (*count == 0) {
      *count = n;
      return ZE_RESULT_SUCCESS;
    }
    if (names == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *count = std::min(*count, n);
    for (std::uint32_t i = 0; i < *count; ++i) names[i] = module->kernel_names[i];
    return ZE_RESULT_SUCCESS;
  });
}

// Exported CrossWorkgroup variables only (Note [SPIR-V modules]); size and pointer optional.
ze_result_t zeModuleGetGlobalPointer(ze_module_handle_t handle, const char* name, std::size_t* size,
                                     void** pointer) {
  return call("zeModuleGetGlobalPointer", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_module_handle_t* module = find_handle(handle, HandleKind::kModule);
    if (module == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (name == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (const auto& g : module->globals) {
      if (g.name != name) continue;
      if (size != nullptr) *size = g.bytes;
      if (pointer != nullptr) *pointer = reinterpret_cast<void*>(g.address);
      return ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
  });
}

// No imports are modelled (no dynamic linking): flags 0.
ze_result_t zeModuleGetProperties(ze_module_handle_t handle, ze_module_properties_t* p) {
  return call("zeModuleGetProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(handle, HandleKind::kModule) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    p->flags = 0;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleBuildLogDestroy(ze_module_build_log_handle_t handle) {
  return call("zeModuleBuildLogDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(handle, HandleKind::kBuildLog) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    remove_handle(handle);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeModuleBuildLogGetString(ze_module_build_log_handle_t handle, std::size_t* size,
                                      char* text) {
  return call("zeModuleBuildLogGetString", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_module_build_log_handle_t* log = find_handle(handle, HandleKind::kBuildLog);
    if (log == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return answer_string(log->text, size, text);
  });
}

ze_result_t zeKernelCreate(ze_module_handle_t hmodule, const ze_kernel_desc_t* desc,
                           ze_kernel_handle_t* out) {
  return call("zeKernelCreate", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_module_handle_t* module = find_handle(hmodule, HandleKind::kModule);
    if (module == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (desc == nullptr || desc->pKernelName == nullptr || out == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    if ((desc->flags & ~kKernelKnownFlags) != 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    for (std::size_t i = 0; i < module->kernels.size(); ++i) {
      const spirv::Kernel& k = module->kernels[i];
      if (k.name != desc->pKernelName) continue;
      auto* kernel = new _ze_kernel_handle_t();
      kernel->module = module;
      kernel->index = i;
      kernel->args.resize(k.param_sizes.size());
      if (k.required_group[0] != 0) {
        std::copy(k.required_group, k.required_group + 3, kernel->group.begin());
      }
      add_child(module->context, kernel, HandleKind::kKernel);
      ++module->live_kernels;
      *out = kernel;
      return ZE_RESULT_SUCCESS;
    }
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  });
}

ze_result_t zeKernelDestroy(ze_kernel_handle_t handle) {
  return call("zeKernelDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) {
      return destroy_orphan(handle, HandleKind::kKernel) ? ZE_RESULT_SUCCESS
                                                         : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    --kernel->module->live_kernels;
    remove_child(kernel->module->context, kernel);
    remove_handle(kernel);
    return ZE_RESULT_SUCCESS;
  });
}

const spirv::Kernel& entry_of(const _ze_kernel_handle_t& kernel) {
  return kernel.module->kernels[kernel.index];
}

bool valid_group(const std::uint32_t group[3]) {
  for (int i = 0; i < 3; ++i) {
    if (group[i] == 0 || group[i] > kMaxGroupSize) return false;
  }
  return std::uint64_t{group[0]} * group[1] * group[2] <= kMaxTotalGroupSize;
}

ze_result_t zeKernelSetGroupSize(ze_kernel_handle_t handle, std::uint32_t x, std::uint32_t y,
                                 std::uint32_t z) {
  return call("zeKernelSetGroupSize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    const std::uint32_t group[3] = {x, y, z};
    if (!valid_group(group)) return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    const spirv::Kernel& k = entry_of(*kernel);
    if (k.required_group[0] != 0 && !std::equal(group, group + 3, k.required_group)) {
      return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    }
    kernel->group = {x, y, z};
    return ZE_RESULT_SUCCESS;
  });
}

// Note [Suggested group size]
// The kernel's LocalSize when it has one; otherwise, dimension by dimension (x, then y, then
// z), the largest size that divides the global size, is at most maxGroupSize of the dimension
// and keeps the product at most maxTotalGroupSize given the dimensions before it. So (1024,
// 1024, 1) gives (1024, 1, 1), (1000, 3, 1) gives (1000, 1, 1), (96, 8, 2) gives (96, 8, 1),
// and a prime global size above the limits gives 1. A global size of 0 is
// INVALID_GLOBAL_WIDTH_DIMENSION [inferred: the specification gives no code].
std::uint32_t largest_divisor_at_most(std::uint32_t n, std::uint32_t limit) {
  for (std::uint32_t d = std::min(n, limit); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

ze_result_t zeKernelSuggestGroupSize(ze_kernel_handle_t handle, std::uint32_t global_x,
                                     std::uint32_t global_y, std::uint32_t global_z,
                                     std::uint32_t* x, std::uint32_t* y, std::uint32_t* z) {
  return call("zeKernelSuggestGroupSize", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (x == nullptr || y == nullptr || z == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (global_x == 0 || global_y == 0 || global_z == 0) {
      return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    }
    const spirv::Kernel& k = entry_of(*kernel);
    if (k.required_group[0] != 0) {
      *x = k.required_group[0], *y = k.required_group[1], *z = k.required_group[2];
      return ZE_RESULT_SUCCESS;
    }
    const std::uint32_t global[3] = {global_x, global_y, global_z};
    std::uint32_t group[3] = {1, 1, 1};
    std::uint32_t budget = kMaxTotalGroupSize;
    for (int i = 0; i < 3; ++i) {
      group[i] = largest_divisor_at_most(global[i], std::min(kMaxGroupSize, budget));
      budget /= group[i];
    }
    *x = group[0], *y = group[1], *z = group[2];
    return ZE_RESULT_SUCCESS;
  });
}

// A null value is a null argument: `size` zero bytes (the specification).
ze_result_t zeKernelSetArgumentValue(ze_kernel_handle_t handle, std::uint32_t index,
                                     std::size_t size, const void* value) {
  return call("zeKernelSetArgumentValue", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    const spirv::Kernel& k = entry_of(*kernel);
    if (index >= k.param_sizes.size()) return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    const std::uint32_t declared = k.param_sizes[index];
    if (size == 0 || (declared != 0 && size != declared)) {
      return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
    }
    std::vector<std::byte> bytes(size);
    if (value != nullptr) std::memcpy(bytes.data(), value, size);
    kernel->args[index] = std::move(bytes);
    return ZE_RESULT_SUCCESS;
  });
}

// Recorded and answered back; the mock reaches every allocation of the context anyway.
ze_result_t zeKernelSetIndirectAccess(ze_kernel_handle_t handle,
                                      ze_kernel_indirect_access_flags_t flags) {
  return call("zeKernelSetIndirectAccess", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if ((flags & ~kIndirectKnownFlags) != 0) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    kernel->indirect = flags;
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelGetIndirectAccess(ze_kernel_handle_t handle,
                                      ze_kernel_indirect_access_flags_t* flags) {
  return call("zeKernelGetIndirectAccess", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *flags = kernel->indirect;
    return ZE_RESULT_SUCCESS;
  });
}

// numKernelArgs from the SPIR-V; the required group size is the LocalSize (0s: none); sub-group
// sizes are the device's (16 and 32); no local, private or spill memory is modelled.
ze_result_t zeKernelGetProperties(ze_kernel_handle_t handle, ze_kernel_properties_t* p) {
  return call("zeKernelGetProperties", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const spirv::Kernel& k = entry_of(*kernel);
    p->numKernelArgs = static_cast<std::uint32_t>(k.param_sizes.size());
    p->requiredGroupSizeX = k.required_group[0];
    p->requiredGroupSizeY = k.required_group[1];
    p->requiredGroupSizeZ = k.required_group[2];
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = 0;
    p->maxSubgroupSize = 32;
    p->maxNumSubgroups = kMaxTotalGroupSize / 16;
    p->localMemSize = 0;
    p->privateMemSize = 0;
    p->spillMemSize = 0;
    std::memset(&p->uuid, 0, sizeof p->uuid);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeKernelGetName(ze_kernel_handle_t handle, std::size_t* size, char* name) {
  return call("zeKernelGetName", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_kernel_handle_t* kernel = find_handle(handle, HandleKind::kKernel);
    if (kernel == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return answer_string(entry_of(*kernel).name, size, name);
  });
}

}  // namespace

MOCKDEV_ZE_FILL_FUNCTION(fill_module_table, ze_module_dditable_t, ACCEL_ZE_MODULE_ENTRY_POINTS)
MOCKDEV_ZE_FILL_FUNCTION(fill_module_build_log_table, ze_module_build_log_dditable_t,
                         ACCEL_ZE_MODULE_BUILD_LOG_ENTRY_POINTS)
MOCKDEV_ZE_FILL_FUNCTION(fill_kernel_table, ze_kernel_dditable_t, ACCEL_ZE_KERNEL_ENTRY_POINTS)

}  // namespace mockdev::level_zero
