#pragma once
// What the module entry points share (driver_module.cpp, driver_library.cpp,
// driver_link.cpp, driver_function.cpp, driver_launch.cpp): the module, function, library
// and kernel objects, their registry, loading an image into a context, and what a
// function's attributes are. Callers hold the engine lock.
//
// Objects are never freed (handles stay safe to compare; Note [Leaky state]); the registry
// knows which are live, so an unloaded or earlier machine's handle is rejected.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "accel_abi/cuda_driver.h"
#include "core/engine_lock.h"
#include "cuda/cuda_state.h"
#include "cuda/module_image.h"

namespace mockdev::cuda {

using accel::cuda_abi::CUdeviceptr;
using accel::cuda_abi::CUfunc_st;
using accel::cuda_abi::CUfunction;
using accel::cuda_abi::CUkern_st;
using accel::cuda_abi::CUlib_st;
using accel::cuda_abi::CUmod_st;
using accel::cuda_abi::CUresult;

// What cuFuncSetAttribute / cuKernelSetAttribute may change (cuda.h lists the settable
// attributes), with the defaults a loaded function starts from.
struct FunctionSettings {
  int max_dynamic_shared = -1;  // -1: the device's default (see dynamic_shared_default)
  int carveout = -1;            // CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
  int cluster[3] = {0, 0, 0};   // REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH; 0: none
  int non_portable_cluster = 0;
  int cluster_policy = 0;
  int cache_config = 0;  // CUfunc_cache
};

// A module global: its device (or managed) memory in the module's context.
struct ModuleGlobal {
  CUdeviceptr address = 0;
  std::size_t bytes = 0;
  bool managed = false;
};

}  // namespace mockdev::cuda

struct accel::cuda_abi::CUmod_st {
  CUctx_st* ctx = nullptr;
  // The code chosen for the context's device (its payload pointers are cleared: the
  // program's bytes may be gone); null for an image that declares nothing.
  std::shared_ptr<const mockdev::cuda::image::Code> code;
  std::map<std::string, CUfunc_st*, std::less<>> functions;  // handed out, by name
  std::map<std::string, mockdev::cuda::ModuleGlobal, std::less<>> globals;
  CUlib_st* library = nullptr;  // set when a library loaded it into its context
};

struct accel::cuda_abi::CUfunc_st {
  CUmod_st* module = nullptr;
  std::string name;
  const char* op_name = "";  // the timeline's and race report's name: static text
  const mockdev::cuda::image::Kernel* kernel = nullptr;  // in module->code; null: registered only
  mockdev::cuda::FunctionSettings settings;
  // A library kernel's function shares its kernel's settings for the device
  // (cuKernelSetAttribute applies to it); null for a module's own function.
  mockdev::cuda::FunctionSettings* shared_settings = nullptr;
};

namespace mockdev::cuda {

// The live module, function, library and kernel handles of the installed machine.
struct ModuleRegistry {
  std::uint64_t generation = 0;
  std::set<const accel::cuda_abi::CUmod_st*> modules;
  std::set<const accel::cuda_abi::CUfunc_st*> functions;
  std::set<const accel::cuda_abi::CUlib_st*> libraries;
  std::set<const accel::cuda_abi::CUkern_st*> kernels;
};
ModuleRegistry& module_registry() MOCKDEV_REQUIRES(core::g_engine_mutex);

// Reads `bytes` (size 0: unknown, Note [Module images]) and loads it into `ctx`: chooses the
// code for its device, allocates and initialises its globals. On failure returns the
// driver's code and prints why on stderr, naming `entry_point`:
// CUDA_ERROR_INVALID_IMAGE (a binary layout not understood), CUDA_ERROR_INVALID_PTX (text
// that is not PTX), CUDA_ERROR_NO_BINARY_FOR_GPU (no code for the device),
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION (PTX newer than the driver), CUDA_ERROR_NOT_SUPPORTED
// (only a compressed entry fits), CUDA_ERROR_OUT_OF_MEMORY (its globals do not fit).
CUresult load_module(const void* bytes, std::size_t size, CUctx_st* ctx, const char* entry_point,
                     CUmod_st** out) MOCKDEV_REQUIRES(core::g_engine_mutex);
// The same from an image already read (a library's).
CUresult load_code(const image::Image& image, CUctx_st* ctx, const char* entry_point,
                   CUmod_st** out) MOCKDEV_REQUIRES(core::g_engine_mutex);
// Forgets `module` and frees its globals' memory (the caller has completed pending work).
void unload_module(CUmod_st* module) MOCKDEV_REQUIRES(core::g_engine_mutex);

// The function of `module` named `name`, created on first use: a kernel the code declares or
// one registered with mockdev::kernels; null when neither.
CUfunc_st* module_function(CUmod_st* module, std::string_view name)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// A live function handle, or the function of a live CUkernel (cuda.h: "f may also be a
// CUkernel") in `ctx`'s copy of its library (loading it there first); null when `handle` is
// neither. `error` gets the code when loading fails.
CUfunc_st* resolve_function(CUfunction handle, CUctx_st* ctx, CUresult* error)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// The settings cuFuncSetAttribute changes for `f` (its own, or its library kernel's).
inline FunctionSettings& settings_of(CUfunc_st* f) {
  return f->shared_settings != nullptr ? *f->shared_settings : f->settings;
}

// Function attributes (driver_function.cpp, Note [Function attributes]): the value of
// `attribute` for `kernel` (null: a registered kernel the image does not declare) of `code`
// (null: an image that declares nothing) on physical device `physical`; and setting one.
// CUDA_ERROR_INVALID_VALUE for a number cuda.h does not define, a read-only attribute, or
// a value out of its range.
CUresult function_attribute(const image::Code* code, const image::Kernel* kernel,
                            const FunctionSettings& settings, int physical, int attribute,
                            int* value) MOCKDEV_REQUIRES(core::g_engine_mutex);
CUresult set_function_attribute(FunctionSettings& settings, const image::Kernel* kernel,
                                int physical, int attribute, int value)
    MOCKDEV_REQUIRES(core::g_engine_mutex);

// Device attribute `attribute` of physical device `physical` (device_attributes.h's answer
// for the installed machine).
int device_value(int physical, int attribute) MOCKDEV_REQUIRES(core::g_engine_mutex);

// What a launch checks (driver_function.cpp, Note [Occupancy]): `f`'s largest block, its
// largest dynamic shared memory, its active blocks per multiprocessor, its largest cluster.
int function_max_threads(const CUfunc_st* f) MOCKDEV_REQUIRES(core::g_engine_mutex);
int function_max_dynamic_shared(CUfunc_st* f) MOCKDEV_REQUIRES(core::g_engine_mutex);
int function_active_blocks(CUfunc_st* f, int block_size, std::size_t dynamic_shared)
    MOCKDEV_REQUIRES(core::g_engine_mutex);
int function_max_cluster(CUfunc_st* f);

// Reads a whole file (cuModuleLoad, cuLibraryLoadFromFile, cuLinkAddFile); false when it
// cannot be opened.
bool read_file(const char* path, std::vector<std::byte>& out);

// The PTX ISA version (times 10) the simulated driver's version accepts.
int max_ptx_version(int driver_version);

}  // namespace mockdev::cuda
