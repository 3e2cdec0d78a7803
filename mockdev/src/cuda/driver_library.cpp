// The CUDA 12 library API of the simulated driver (declared in driver_api.h):
// cuLibraryLoadData, cuLibraryLoadFromFile, cuLibraryUnload, cuLibraryGetKernel,
// cuLibraryGetKernelCount, cuLibraryEnumerateKernels, cuLibraryGetModule,
// cuLibraryGetGlobal, cuLibraryGetManaged, cuKernelGetFunction, cuKernelGetLibrary,
// cuKernelGetName, cuKernelGetParamInfo, cuKernelGetAttribute, cuKernelSetAttribute,
// cuKernelSetCacheConfig.
//
// Note [Libraries]
// A library is context-independent (CUDA Driver API, "Library Management"): loading one
// needs no current context and copies the image (the program may free its bytes); it is
// loaded into a context, as a module (Note [Loading modules] in driver_module.cpp), when
// first used there: cuLibraryGetModule, cuKernelGetFunction, cuLibraryGetGlobal and
// cuLibraryGetManaged in the current context, a launch of a CUkernel in its stream's
// context. Its kernels are the names any readable code of the image declares, each one
// CUkernel for the library's life. Under CUDA_MODULE_LOADING=EAGER, loading checks that
// every visible device has code it runs (CUDA_ERROR_NO_BINARY_FOR_GPU otherwise); lazily,
// that error comes at first use on the device [inferred]. Attributes set with
// cuKernelSetAttribute are per device and apply to the kernel's function in every context
// of that device. Unloading waits for pending work, then unloads every context's copy.

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/modules.h"
#include "cuda/stream_objects.h"

struct accel::cuda_abi::CUlib_st {
  std::vector<std::byte> bytes;                  // the image, copied at load
  mockdev::cuda::image::Image image;             // read from `bytes`
  std::map<const CUctx_st*, CUmod_st*> modules;  // its copy in each context it was used in
  std::map<std::string, CUkern_st*, std::less<>> kernels;
  std::vector<CUkern_st*> order;  // the kernels in image order (cuLibraryEnumerateKernels)
};

struct accel::cuda_abi::CUkern_st {
  CUlib_st* library = nullptr;
  std::string name;
  std::map<int, mockdev::cuda::FunctionSettings> settings;  // by physical device
};

namespace mockdev::cuda {
namespace {

bool live(const CUlib_st* library) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return module_registry().libraries.count(library) != 0;
}
bool live(const CUkern_st* kernel) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  return module_registry().kernels.count(kernel) != 0;
}

CUresult check_options(CUjit_option* jit_options, void** jit_values, unsigned num_jit,
                       CUlibraryOption* library_options, void** library_values,
                       unsigned num_library) {
  if (num_jit > 0 && (jit_options == nullptr || jit_values == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (unsigned i = 0; i < num_jit; ++i) {
    if (jit_options[i] < 0 || jit_options[i] >= CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
  }
  if (num_library > 0 && (library_options == nullptr || library_values == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  for (unsigned i = 0; i < num_library; ++i) {
    if (library_options[i] < 0 || library_options[i] >= CU_LIBRARY_NUM_OPTIONS) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

CUresult load_library(std::vector<std::byte> bytes, const char* entry_point, CUlibrary* out)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  auto* library = new CUlib_st();  // never freed (Note [Leaky state])
  core::keep_forever(library);
  library->bytes = std::move(bytes);
  image::ReadResult read = image::read_image(library->bytes.data(), library->bytes.size());
  if (!read.ok) {
    std::fprintf(stderr, "mockdev: %s: cannot load %s\n", entry_point, read.error.c_str());
    return read.image.format == "PTX" ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE;
  }
  library->image = std::move(read.image);
  CUmoduleLoadingMode mode = CU_MODULE_LAZY_LOADING;
  if (CUresult r = impl::cuModuleGetLoadingMode(&mode); r != CUDA_SUCCESS) return r;
  if (mode == CU_MODULE_EAGER_LOADING) {
    for (int physical : cuda_state().visible) {
      const DeviceSpec& d = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
      std::string why;
      if (image::select_code(library->image, d.cc_major, d.cc_minor, &why) == nullptr) {
        std::fprintf(stderr, "mockdev: %s: %s\n", entry_point, why.c_str());
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
      }
    }
  }
  ModuleRegistry& r = module_registry();
  for (const image::Code& code : library->image.codes) {
    for (const image::Kernel& k : code.kernels) {
      if (library->kernels.count(k.name) != 0) continue;
      auto* kernel = new CUkern_st{library, k.name, {}};
      core::keep_forever(kernel);
      library->kernels.emplace(k.name, kernel);
      library->order.push_back(kernel);
      r.kernels.insert(kernel);
    }
  }
  r.libraries.insert(library);
  *out = library;
  return CUDA_SUCCESS;
}

// The library's copy in `ctx`, loaded on first use (Note [Libraries]).
CUresult library_module(CUlib_st* library, CUctx_st* ctx, CUmod_st** out)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  auto known = library->modules.find(ctx);
  if (known != library->modules.end() && module_registry().modules.count(known->second) != 0) {
    *out = known->second;
    return CUDA_SUCCESS;
  }
  CUmod_st* module = nullptr;
  if (CUresult r = load_code(library->image, ctx, "cuLibrary (loading into a context)", &module);
      r != CUDA_SUCCESS) {
    return r;
  }
  module->library = library;
  library->modules[ctx] = module;
  *out = module;
  return CUDA_SUCCESS;
}

CUresult current_module(CUlib_st* library, CUmod_st** out) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return library_module(library, current.ctx, out);
}

CUresult kernel_function(CUkern_st* kernel, CUctx_st* ctx, CUfunc_st** out)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  CUmod_st* module = nullptr;
  if (CUresult r = library_module(kernel->library, ctx, &module); r != CUDA_SUCCESS) return r;
  CUfunc_st* f = module_function(module, kernel->name);
  if (f == nullptr) return CUDA_ERROR_NOT_FOUND;  // not in the code this device runs
  f->shared_settings = &kernel->settings[ctx->physical_device];
  *out = f;
  return CUDA_SUCCESS;
}

// The kernel as the code for device `physical` declares it (null: not declared there).
const image::Code* code_for(const CUkern_st* kernel, int physical, const image::Kernel** k)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  const DeviceSpec& d = core::engine().machine.devices.at(static_cast<std::size_t>(physical));
  const image::Code* code =
      image::select_code(kernel->library->image, d.cc_major, d.cc_minor, nullptr);
  *k = code != nullptr ? image::find_kernel(*code, kernel->name) : nullptr;
  return code;
}

CUresult get_global(CUdeviceptr* dptr, std::size_t* bytes, CUlib_st* library, const char* name,
                    bool managed_only) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(library)) return CUDA_ERROR_INVALID_HANDLE;
  CUmod_st* module = nullptr;
  if (CUresult r = current_module(library, &module); r != CUDA_SUCCESS) return r;
  auto global = module->globals.find(std::string_view(name));
  if (global == module->globals.end() || (managed_only && !global->second.managed)) {
    return CUDA_ERROR_NOT_FOUND;
  }
  if (dptr != nullptr) *dptr = global->second.address;
  if (bytes != nullptr) *bytes = global->second.bytes;
  return CUDA_SUCCESS;
}

}  // namespace

CUfunc_st* resolve_function(CUfunction handle, CUctx_st* ctx, CUresult* error) {
  ModuleRegistry& r = module_registry();
  if (r.functions.count(handle) != 0) return handle;
  auto* kernel = reinterpret_cast<CUkern_st*>(handle);
  if (r.kernels.count(kernel) == 0) {
    *error = CUDA_ERROR_INVALID_HANDLE;
    return nullptr;
  }
  CUfunc_st* f = nullptr;
  *error = kernel_function(kernel, ctx, &f);
  return f;
}

namespace impl {

CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option* jit_options,
                           void** jit_values, unsigned int num_jit,
                           CUlibraryOption* library_options, void** library_values,
                           unsigned int num_library) {
  if (library == nullptr || code == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_options(jit_options, jit_values, num_jit, library_options, library_values,
                                 num_library);
      r != CUDA_SUCCESS) {
    return r;
  }
  const void* data = nullptr;
  const std::size_t extent = image::image_extent(code, &data);
  if (extent == 0) {
    std::fprintf(stderr,
                 "mockdev: cuLibraryLoadData: cannot load a fatbinary wrapper whose data is not a "
                 "fatbinary\n");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  const auto* begin = static_cast<const std::byte*>(data);
  return load_library(std::vector<std::byte>(begin, begin + extent), "cuLibraryLoadData", library);
}

CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* file_name, CUjit_option* jit_options,
                               void** jit_values, unsigned int num_jit,
                               CUlibraryOption* library_options, void** library_values,
                               unsigned int num_library) {
  if (library == nullptr || file_name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_options(jit_options, jit_values, num_jit, library_options, library_values,
                                 num_library);
      r != CUDA_SUCCESS) {
    return r;
  }
  std::vector<std::byte> bytes;
  if (!read_file(file_name, bytes)) {
    std::fprintf(stderr, "mockdev: cuLibraryLoadFromFile: cannot open %s\n", file_name);
    return CUDA_ERROR_FILE_NOT_FOUND;
  }
  return load_library(std::move(bytes), "cuLibraryLoadFromFile", library);
}

CUresult cuLibraryUnload(CUlibrary library) {
  if (!live(library)) return CUDA_ERROR_INVALID_HANDLE;
  if (!library->modules.empty() &&
      core::wait_for(all_work(), "cuLibraryUnload", false) != core::WaitResult::kDone) {
    return kDeadlockResult;
  }
  ModuleRegistry& r = module_registry();
  for (const auto& [ctx, module] : library->modules) {
    if (r.modules.count(module) != 0) unload_module(module);
  }
  library->modules.clear();
  for (const auto& [name, kernel] : library->kernels) r.kernels.erase(kernel);
  r.libraries.erase(library);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  if (kernel == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(library)) return CUDA_ERROR_INVALID_HANDLE;
  auto found = library->kernels.find(std::string_view(name));
  if (found == library->kernels.end()) return CUDA_ERROR_NOT_FOUND;
  *kernel = found->second;
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary library) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(library)) return CUDA_ERROR_INVALID_HANDLE;
  *count = static_cast<unsigned>(library->order.size());
  return CUDA_SUCCESS;
}

CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int num_kernels, CUlibrary library) {
  if (kernels == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(library)) return CUDA_ERROR_INVALID_HANDLE;
  if (num_kernels < library->order.size()) return CUDA_ERROR_INVALID_VALUE;
  std::copy(library->order.begin(), library->order.end(), kernels);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library) {
  if (module == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(library)) return CUDA_ERROR_INVALID_HANDLE;
  return current_module(library, module);
}

CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, std::size_t* bytes, CUlibrary library,
                            const char* name) {
  return get_global(dptr, bytes, library, name, false);
}

CUresult cuLibraryGetManaged(CUdeviceptr* dptr, std::size_t* bytes, CUlibrary library,
                             const char* name) {
  return get_global(dptr, bytes, library, name, true);
}

CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
  if (function == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return kernel_function(kernel, current.ctx, function);
}

CUresult cuKernelGetLibrary(CUlibrary* library, CUkernel kernel) {
  if (library == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  *library = kernel->library;
  return CUDA_SUCCESS;
}

CUresult cuKernelGetName(const char** name, CUkernel kernel) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  *name = kernel->name.c_str();
  return CUDA_SUCCESS;
}

CUresult cuKernelGetParamInfo(CUkernel kernel, std::size_t param_index, std::size_t* param_offset,
                              std::size_t* param_size) {
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  // Parameters are the same in every code of an image; the first readable code answers.
  for (const image::Code& code : kernel->library->image.codes) {
    if (const image::Kernel* k = image::find_kernel(code, kernel->name)) {
      if (param_index >= k->params.size()) return CUDA_ERROR_INVALID_VALUE;
      if (param_offset != nullptr) *param_offset = k->params[param_index].offset;
      if (param_size != nullptr) *param_size = k->params[param_index].size;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuKernelGetAttribute(int* value, CUfunction_attribute attribute, CUkernel kernel,
                              CUdevice dev) {
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  const std::optional<int> physical = physical_device(dev);
  if (!physical) return CUDA_ERROR_INVALID_DEVICE;
  const image::Kernel* k = nullptr;
  const image::Code* code = code_for(kernel, *physical, &k);
  if (code == nullptr || k == nullptr) return CUDA_ERROR_NO_BINARY_FOR_GPU;
  return function_attribute(code, k, kernel->settings[*physical], *physical, attribute, value);
}

CUresult cuKernelSetAttribute(CUfunction_attribute attribute, int value, CUkernel kernel,
                              CUdevice dev) {
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  const std::optional<int> physical = physical_device(dev);
  if (!physical) return CUDA_ERROR_INVALID_DEVICE;
  const image::Kernel* k = nullptr;
  if (code_for(kernel, *physical, &k) == nullptr || k == nullptr)
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  return set_function_attribute(kernel->settings[*physical], k, *physical, attribute, value);
}

CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
  if (!live(kernel)) return CUDA_ERROR_INVALID_HANDLE;
  const std::optional<int> physical = physical_device(dev);
  if (!physical) return CUDA_ERROR_INVALID_DEVICE;
  if (config < CU_FUNC_CACHE_PREFER_NONE || config > CU_FUNC_CACHE_PREFER_EQUAL) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  kernel->settings[*physical].cache_config = config;
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
