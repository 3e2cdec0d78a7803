// Modules of the simulated driver (declared in driver_api.h): cuModuleLoad, cuModuleLoadData,
// cuModuleLoadDataEx, cuModuleLoadFatBinary, cuModuleUnload, cuModuleGetFunction,
// cuModuleGetGlobal_v2, cuModuleGetFunctionCount, cuModuleEnumerateFunctions,
// cuModuleGetLoadingMode, and what the library, linker, function and launch files share
// (modules.h). Images are read by module_image.h.
//
// Note [Loading modules]
// A module is an image loaded into one context: the code chosen for the context's device
// (Note [Module images] in module_image.h), its kernels, and its global variables, each in
// memory of that context (device memory; managed memory for a __managed__ one), holding
// the image's initial bytes, so cuModuleGetGlobal_v2 answers an address every copy works
// on. Globals count in the device's used memory, as the driver's do; unloading frees them
// (after the work still pending completes, as cuMemFree does), and so does destroying the
// context. Kernels are found by name: the ones the code declares, and every kernel a test
// registered (mockdev/kernels.h: registered kernels are linked into every module, as if the
// test had compiled them in, so an image that declares nothing still finds them).
// Codes: a null output or image, CUDA_ERROR_INVALID_VALUE; then the codes of load_module
// (modules.h); a name the module lacks, CUDA_ERROR_NOT_FOUND; an unloaded module,
// CUDA_ERROR_INVALID_HANDLE. cuModuleLoadDataEx takes any CU_JIT_* option and writes the
// logs it is given room for (an empty info log; the error log says why a load failed), and
// CU_JIT_WALL_TIME as 0 ms. Modules load eagerly whatever CUDA_MODULE_LOADING says
// (loading costs no time here, so nothing observable changes but cuFuncIsLoaded, which
// answers LOADED); cuModuleGetLoadingMode reports the variable's choice (LAZY unless it is
// EAGER, the default since CUDA 12.2), and any other value of it is an error naming it.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "core/kernel_registry.h"
#include "core/memory.h"
#include "cuda/contexts.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/modules.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda {
namespace {

// "kernel <name>" as static text (OpDesc::name must outlive the operation).
const char* kernel_op_name(const std::string& name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static auto* names = new std::set<std::string>();  // never deleted
  return names->insert("kernel " + name).first->c_str();
}

CUresult fail(const char* entry_point, CUresult code, const std::string& why) {
  std::fprintf(stderr, "mockdev: %s: %s\n", entry_point, why.c_str());
  return code;
}

// The last load's error, for cuModuleLoadDataEx's CU_JIT_ERROR_LOG_BUFFER.
std::string& last_load_error() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static auto* text = new std::string();  // never deleted
  return *text;
}

CUresult load_failed(const char* entry_point, CUresult code, const std::string& why)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  last_load_error() = why;
  return fail(entry_point, code, why);
}

// Writes `text` into a log buffer option pair, truncated to its size; the size option is
// updated to the bytes written (cuda.h: "OUT: Amount of log buffer filled with messages").
void write_log(void** values, int buffer_at, int size_at, const std::string& text) {
  if (buffer_at < 0 || size_at < 0) return;
  auto* buffer = static_cast<char*>(values[buffer_at]);
  const auto room = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(values[size_at]));
  if (buffer == nullptr || room == 0) return;
  const std::size_t n = std::min<std::size_t>(text.size(), room - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
  values[size_at] = reinterpret_cast<void*>(static_cast<std::uintptr_t>(n));
}

void free_globals(CUmod_st* module) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (const auto& [name, global] : module->globals) {
    if (global.managed) {
      impl::cuMemFree_v2(global.address);
    } else {
      core::free_allocation(global.address);
    }
  }
  module->globals.clear();
}

}  // namespace

ModuleRegistry& module_registry() {
  static ModuleRegistry* registry = new ModuleRegistry();  // never deleted: Note [Leaky state]
  const std::uint64_t generation = core::engine().generation;
  if (registry->generation != generation) {
    *registry = ModuleRegistry{};
    registry->generation = generation;
  }
  return *registry;
}

int max_ptx_version(int driver_version) {
  // CUDA's release notes: the PTX ISA version each toolkit introduced.
  const int major = driver_version / 1000;
  const int minor = driver_version % 1000 / 10;
  if (major >= 13) return 90 + minor;
  if (major == 12) {
    if (minor >= 9) return 88;
    if (minor >= 8) return 87;
    return 80 + std::min(minor, 5);
  }
  if (major == 11) return 70 + std::min(minor, 8);
  return 63;
}

bool read_file(const char* path, std::vector<std::byte>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  out.resize(bytes.size());
  std::memcpy(out.data(), bytes.data(), bytes.size());
  out.push_back(std::byte{0});  // text images end at a NUL
  return true;
}

CUresult load_code(const image::Image& image, CUctx_st* ctx, const char* entry_point,
                   CUmod_st** out) {
  const DeviceSpec& device =
      core::engine().machine.devices.at(static_cast<std::size_t>(ctx->physical_device));
  std::string why;
  const image::Code* chosen = image::select_code(image, device.cc_major, device.cc_minor, &why);
  if (chosen == nullptr) {
    bool compressed_only = why.find("compressed") != std::string::npos;
    return load_failed(entry_point,
                       compressed_only ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NO_BINARY_FOR_GPU,
                       why);
  }
  const int driver_version = core::engine().machine.driver_version;
  if (chosen->kind == image::CodeKind::kPtx &&
      chosen->ptx_version > max_ptx_version(driver_version)) {
    return load_failed(entry_point, CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
                       "PTX ISA " + std::to_string(chosen->ptx_version / 10) + "." +
                           std::to_string(chosen->ptx_version % 10) + " is newer than driver " +
                           std::to_string(driver_version) + " accepts (" +
                           std::to_string(max_ptx_version(driver_version) / 10) + "." +
                           std::to_string(max_ptx_version(driver_version) % 10) + ")");
  }
  auto code = std::make_shared<image::Code>(*chosen);
  code->payloads.clear();
  auto* module = new CUmod_st();  // never freed (see ModuleRegistry)
  core::keep_forever(module);
  module->ctx = ctx;
  module->code = code;
  for (const image::Global& g : code->globals) {
    if (g.size == 0 || module->globals.count(g.name) != 0) continue;
    ModuleGlobal global;
    global.bytes = g.size;
    global.managed = g.managed;
    if (g.managed) {
      CUresult r = allocate_managed(ctx, g.size, CU_MEM_ATTACH_GLOBAL, &global.address);
      if (r != CUDA_SUCCESS) {
        free_globals(module);
        return load_failed(entry_point, r, "no managed memory for the variable " + g.name);
      }
      if (!g.init.empty()) {
        std::memcpy(reinterpret_cast<void*>(static_cast<std::uintptr_t>(global.address)),
                    g.init.data(), g.init.size());
      }
    } else {
      std::optional<std::uint64_t> address =
          core::allocate(Api::kCuda, ctx->physical_device, g.size, memory_key(ctx), true);
      if (!address) {
        free_globals(module);
        return load_failed(entry_point, CUDA_ERROR_OUT_OF_MEMORY,
                           "no device memory for the " + std::to_string(g.size) +
                               " bytes of the variable " + g.name);
      }
      global.address = *address;
      if (!g.init.empty()) core::write_bytes(*address, g.init.data(), g.init.size());
    }
    module->globals.emplace(g.name, global);
  }
  module_registry().modules.insert(module);
  *out = module;
  return CUDA_SUCCESS;
}

CUresult load_module(const void* bytes, std::size_t size, CUctx_st* ctx, const char* entry_point,
                     CUmod_st** out) {
  image::ReadResult read = image::read_image(bytes, size);
  if (!read.ok) {
    return load_failed(
        entry_point, read.image.format == "PTX" ? CUDA_ERROR_INVALID_PTX : CUDA_ERROR_INVALID_IMAGE,
        "cannot load " + read.error);
  }
  return load_code(read.image, ctx, entry_point, out);
}

void unload_module(CUmod_st* module) {
  ModuleRegistry& r = module_registry();
  for (const auto& [name, function] : module->functions) r.functions.erase(function);
  free_globals(module);
  r.modules.erase(module);
}

CUfunc_st* module_function(CUmod_st* module, std::string_view name) {
  auto known = module->functions.find(name);
  if (known != module->functions.end()) return known->second;
  const image::Kernel* kernel = module->code ? image::find_kernel(*module->code, name) : nullptr;
  if (kernel == nullptr && core::find_kernel(name) == nullptr) return nullptr;
  auto* created = new CUfunc_st();
  created->module = module;
  created->name = std::string(name);
  created->op_name = kernel_op_name(created->name);
  created->kernel = kernel;
  module->functions.emplace(created->name, created);
  module_registry().functions.insert(created);
  core::keep_forever(created);
  return created;
}

void drop_context_modules(const CUctx_st* ctx) {
  // The context's memory goes with it (end_context), globals included.
  ModuleRegistry& r = module_registry();
  for (auto it = r.modules.begin(); it != r.modules.end();) {
    if ((*it)->ctx != ctx) {
      ++it;
      continue;
    }
    for (const auto& [name, function] : (*it)->functions) r.functions.erase(function);
    it = r.modules.erase(it);
  }
}

namespace impl {

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return load_module(image, 0, current.ctx, "cuModuleLoadData", module);
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fat_cubin) {
  if (module == nullptr || fat_cubin == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  return load_module(fat_cubin, 0, current.ctx, "cuModuleLoadFatBinary", module);
}

CUresult cuModuleLoad(CUmodule* module, const char* fname) {
  if (module == nullptr || fname == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  std::vector<std::byte> bytes;
  if (!read_file(fname, bytes)) {
    return fail("cuModuleLoad", CUDA_ERROR_FILE_NOT_FOUND, std::string("cannot open ") + fname);
  }
  return load_module(bytes.data(), bytes.size(), current.ctx, "cuModuleLoad", module);
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int num_options,
                            CUjit_option* options, void** option_values) {
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (num_options > 0 && (options == nullptr || option_values == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  int info_buffer = -1, info_size = -1, error_buffer = -1, error_size = -1;
  for (unsigned i = 0; i < num_options; ++i) {
    switch (options[i]) {
      case CU_JIT_INFO_LOG_BUFFER:
        info_buffer = static_cast<int>(i);
        break;
      case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
        info_size = static_cast<int>(i);
        break;
      case CU_JIT_ERROR_LOG_BUFFER:
        error_buffer = static_cast<int>(i);
        break;
      case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
        error_size = static_cast<int>(i);
        break;
      case CU_JIT_WALL_TIME: {
        const float none = 0.0F;
        std::memcpy(&option_values[i], &none, sizeof none);
        break;
      }
      default:
        if (options[i] < 0 || options[i] >= CU_JIT_NUM_OPTIONS) return CUDA_ERROR_INVALID_VALUE;
        break;
    }
  }
  const WorkContext current = context_for_work();
  if (current.ctx == nullptr) return current.error;
  last_load_error().clear();
  const CUresult r = load_module(image, 0, current.ctx, "cuModuleLoadDataEx", module);
  write_log(option_values, info_buffer, info_size, "");
  write_log(option_values, error_buffer, error_size, last_load_error());
  return r;
}

CUresult cuModuleUnload(CUmodule module) {
  ModuleRegistry& r = module_registry();
  if (r.modules.count(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (!module->globals.empty() &&
      core::wait_for(all_work(), "cuModuleUnload", false) != core::WaitResult::kDone) {
    return kDeadlockResult;
  }
  unload_module(module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (function == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().modules.count(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  CUfunc_st* found = module_function(module, name);
  if (found == nullptr) return CUDA_ERROR_NOT_FOUND;
  *function = found;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, std::size_t* bytes, CUmodule module,
                              const char* name) {
  if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().modules.count(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  auto global = module->globals.find(std::string_view(name));
  if (global == module->globals.end()) return CUDA_ERROR_NOT_FOUND;
  // cuda.h: "Both parameters dptr and bytes are optional."
  if (dptr != nullptr) *dptr = global->second.address;
  if (bytes != nullptr) *bytes = global->second.bytes;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule module) {
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().modules.count(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  *count = module->code ? static_cast<unsigned>(module->code->kernels.size()) : 0;
  return CUDA_SUCCESS;
}

CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int num_functions,
                                    CUmodule module) {
  if (functions == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module_registry().modules.count(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  const std::size_t count = module->code ? module->code->kernels.size() : 0;
  if (num_functions < count) return CUDA_ERROR_INVALID_VALUE;
  for (std::size_t i = 0; i < count; ++i) {
    functions[i] = module_function(module, module->code->kernels[i].name);
  }
  return CUDA_SUCCESS;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
  if (mode == nullptr) return CUDA_ERROR_INVALID_VALUE;
  const char* setting = std::getenv("CUDA_MODULE_LOADING");
  if (setting == nullptr || *setting == '\0' || std::strcmp(setting, "LAZY") == 0) {
    *mode = CU_MODULE_LAZY_LOADING;
  } else if (std::strcmp(setting, "EAGER") == 0) {
    *mode = CU_MODULE_EAGER_LOADING;
  } else {
    return fail("cuModuleGetLoadingMode", CUDA_ERROR_INVALID_VALUE,
                std::string("CUDA_MODULE_LOADING=") + setting + " is neither EAGER nor LAZY");
  }
  return CUDA_SUCCESS;
}

}  // namespace impl
}  // namespace mockdev::cuda
