// Modules and kernel launches of the simulated driver (declared in driver_api.h):
// cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuLaunchKernel, over the kernels
// tests register (mockdev/kernels.h, core/kernel_registry.h) and the submit path
// (stream_objects.h).
//
// Note [Module images]
// The mock cannot load GPU code, so an image is only a list of names. Any non-null image is
// accepted. Read as NUL-terminated text (PTX is; CUDA requires it for text images), it
// declares every name that follows a `.entry` directive. cuModuleGetFunction finds a name
// when a kernel of that name is registered (registered kernels are linked into every
// module, as if the test had compiled them in) or when the image declares it; anything else
// is CUDA_ERROR_NOT_FOUND (500). A binary image (cubin, fatbin: it starts with bytes that end
// the text at once) declares nothing, so only registered kernels are found in it.
// A declared but unregistered kernel launches as an opaque operation: timed by the
// machine's kernel duration, no effect on memory, unknown accesses (the race detector
// reports it when it is unordered with other work on its device). Its parameters are not
// read, because their sizes are unknown: the mock cannot check them, and accepts the launch
// as the real driver would. A registered kernel's parameters are read with its declared
// sizes, so a null kernelParams (or a null entry) where it declares parameters is
// CUDA_ERROR_INVALID_VALUE.
// Codes [inferred unless recorded]: null output or image, dims of 0, more than 1024
// threads per block, a block dimension above 1024 (z: 64) or grid y/z above 65535, both
// kernelParams and extra: CUDA_ERROR_INVALID_VALUE; `extra` alone: CUDA_ERROR_NOT_SUPPORTED
// (the mock does not parse packed argument buffers); a null, unloaded or unknown module or
// function: CUDA_ERROR_INVALID_HANDLE (400); a launch on a stream of another context than the
// module's: CUDA_ERROR_INVALID_HANDLE (400).
//
// Note [Illegal addresses]
// A registered kernel whose declared accesses, or whose body's reads and writes, leave every
// live allocation faults the way a GPU does: the launch succeeds, and when the kernel runs
// it touches nothing (its body does not run, or its stray access is dropped) and leaves
// CUDA_ERROR_ILLEGAL_ADDRESS (700) sticky on its device: the host wait that completed it
// answers 700, and so does every later call that touches the device (cuda.h: "any further
// CUDA work will return the same error"; the simulation keeps it per device, and a test may
// clear it with control::clear_faults). [inferred] The wait reports it whichever device's
// work it waited for.

#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "core/kernel_registry.h"
#include "core/memory.h"
#include "cuda/contexts.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/stream_objects.h"

struct accel::cuda_abi::CUfunc_st {
  CUmod_st* module = nullptr;
  std::string name;
  const char* op_name = "";  // "kernel <name>": static text for the timeline
};

struct accel::cuda_abi::CUmod_st {
  CUctx_st* ctx = nullptr;
  std::set<std::string, std::less<>> entries;                // declared by the image
  std::map<std::string, CUfunc_st*, std::less<>> functions;  // handed out, by name
};
namespace mockdev::cuda {
namespace {

using accel::cuda_abi::CUfunc_st;
using accel::cuda_abi::CUmod_st;

// Live module and function handles of the installed machine: objects are never freed
// (handles stay safe to compare), an unloaded or earlier machine's handle is rejected.
struct ModuleRegistry {
  std::uint64_t generation = 0;
  std::set<const CUmod_st*> modules;
  std::set<const CUfunc_st*> functions;
};

ModuleRegistry& module_registry() MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static ModuleRegistry* registry = new ModuleRegistry();  // never deleted: Note [Leaky state]
  const std::uint64_t generation = core::engine().generation;
  if (registry->generation != generation) {
    registry->modules.clear();
    registry->functions.clear();
    registry->generation = generation;
  }
  return *registry;
}

// "kernel <name>" as static text (OpDesc::name must outlive the operation).
const char* kernel_op_name(const std::string& name) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  static auto* names = new std::set<std::string>();  // never deleted
  return names->insert("kernel " + name).first->c_str();
}

bool is_identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '%';
}

// Note [Module images]: the names after `.entry` in the NUL-terminated text.
std::set<std::string, std::less<>> declared_entries(const char* text) {
  std::set<std::string, std::less<>> names;
  const std::string_view image(text);
  constexpr std::string_view kEntry = ".entry";
  for (std::size_t at = image.find(kEntry); at != std::string_view::npos;
       at = image.find(kEntry, at + 1)) {
    std::size_t i = at + kEntry.size();
    if (i >= image.size() ||
        (image[i] != ' ' && image[i] != '\t' && image[i] != '\n' && image[i] != '\r')) {
      continue;
    }
    while (i < image.size() &&
           (image[i] == ' ' || image[i] == '\t' || image[i] == '\n' || image[i] == '\r')) {
      ++i;
    }
    const std::size_t begin = i;
    while (i < image.size() && is_identifier_char(image[i])) ++i;
    if (i > begin) names.emplace(image.substr(begin, i - begin));
  }
  return names;
}

// A body's view of device memory: the engine's bytes, within live allocations. Runs from
// the timeline's completion of the launch (ActionKind::kLockedCall), with the engine lock
// held, which the analysis cannot see through the function pointer.
// Note [Illegal addresses]: the device's sticky error, once.
void fault_illegal_address(int device) MOCKDEV_REQUIRES(core::g_engine_mutex) {
  for (const core::ActiveSticky& s : core::engine().sticky) {
    if (s.api == Api::kCuda && s.device == device && s.code == CUDA_ERROR_ILLEGAL_ADDRESS) return;
  }
  core::engine().sticky.push_back(
      core::ActiveSticky{Api::kCuda, device, CUDA_ERROR_ILLEGAL_ADDRESS, 0, 0});
}

class EngineDeviceMemory final : public kernels::DeviceMemory {
 public:
  EngineDeviceMemory(const std::string& kernel, int device) : kernel_(kernel), device_(device) {}
  MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
  void read(std::uint64_t address, void* dst, std::uint64_t bytes) override {
    if (bytes == 0 || !inside(address, bytes, "read")) return;
    core::read_bytes(address, dst, bytes);
  }
  MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
  void write(std::uint64_t address, const void* src, std::uint64_t bytes) override {
    if (bytes == 0 || !inside(address, bytes, "write")) return;
    core::write_bytes(address, src, bytes);
  }

 private:
  MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
  bool inside(std::uint64_t address, std::uint64_t bytes, const char* what) {
    if (core::find_containing(address, bytes, nullptr)) return true;
    std::fprintf(stderr,
                 "mockdev: kernel %s: %s of [0x%" PRIx64 ", +%" PRIu64
                 " bytes) is outside every allocation: an illegal address (700)\n",
                 kernel_.c_str(), what, address, bytes);
    fault_illegal_address(device_);
    return false;
  }
  const std::string& kernel_;
  int device_;
};

struct KernelRun {
  std::shared_ptr<const kernels::KernelSpec> spec;
  kernels::Launch launch;
  int device = 0;       // physical
  bool faults = false;  // a declared access leaves every allocation (Note [Illegal addresses])
};

// Runs with the engine lock held, which the analysis cannot see (see EngineDeviceMemory).
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS void run_kernel(std::uintptr_t run, std::uintptr_t,
                                                  std::uintptr_t) {
  const auto* k = reinterpret_cast<const KernelRun*>(run);
  if (k->faults) {
    fault_illegal_address(k->device);
    return;
  }
  if (!k->spec->body) return;
  EngineDeviceMemory memory(k->spec->name, k->device);
  try {
    k->spec->body(k->launch, memory);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mockdev: kernel %s: the body threw: %s\n", k->spec->name.c_str(),
                 e.what());
  } catch (...) {
    std::fprintf(stderr, "mockdev: kernel %s: the body threw\n", k->spec->name.c_str());
  }
}

bool valid_dims(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0) return false;
  if (bx > 1024 || by > 1024 || bz > 64 || gy > 65535 || gz > 65535) return false;
  return static_cast<std::uint64_t>(bx) * by * bz <= 1024;
}

}  // namespace

void drop_context_modules(const CUctx_st* ctx) {
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
  auto* created = new CUmod_st();  // never freed (see ModuleRegistry)
  core::keep_forever(created);
  created->ctx = current.ctx;
  created->entries = declared_entries(static_cast<const char*>(image));
  module_registry().modules.insert(created);
  *module = created;
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  ModuleRegistry& r = module_registry();
  if (r.modules.erase(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  for (const auto& [name, function] : module->functions) r.functions.erase(function);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  if (function == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  ModuleRegistry& r = module_registry();
  if (r.modules.count(module) == 0) return CUDA_ERROR_INVALID_HANDLE;
  const std::string_view wanted(name);
  auto known = module->functions.find(wanted);
  if (known != module->functions.end()) {
    *function = known->second;
    return CUDA_SUCCESS;
  }
  if (core::find_kernel(wanted) == nullptr && module->entries.count(wanted) == 0) {
    return CUDA_ERROR_NOT_FOUND;
  }
  auto* created = new CUfunc_st{module, std::string(wanted), kernel_op_name(std::string(wanted))};
  module->functions.emplace(created->name, created);
  r.functions.insert(created);
  core::keep_forever(created);
  *function = created;
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                        unsigned int shared_bytes, CUstream stream, void** params, void** extra) {
  if (module_registry().functions.count(f) == 0) return CUDA_ERROR_INVALID_HANDLE;
  if (!valid_dims(grid_x, grid_y, grid_z, block_x, block_y, block_z)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (params != nullptr && extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (extra != nullptr) return CUDA_ERROR_NOT_SUPPORTED;
  const ResolvedStream r = resolve_stream(stream);
  if (r.stream == nullptr) return r.error;
  if (r.stream->ctx != f->module->ctx) return CUDA_ERROR_INVALID_HANDLE;

  core::OpDesc desc;
  desc.kind = core::OpKind::kKernel;
  desc.name = f->op_name;
  const auto& timing = core::engine().machine.streams.timing;
  desc.duration_ns = timing.kernel_ns;
  if (std::shared_ptr<const kernels::KernelSpec> spec = core::find_kernel(f->name)) {
    auto run = std::make_shared<KernelRun>();
    run->spec = spec;
    kernels::Launch& launch = run->launch;
    launch.grid[0] = grid_x, launch.grid[1] = grid_y, launch.grid[2] = grid_z;
    launch.block[0] = block_x, launch.block[1] = block_y, launch.block[2] = block_z;
    launch.shared_bytes = shared_bytes;
    if (!spec->param_sizes.empty() && params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (std::size_t i = 0; i < spec->param_sizes.size(); ++i) {
      if (params[i] == nullptr) return CUDA_ERROR_INVALID_VALUE;
      const auto* bytes = static_cast<const std::byte*>(params[i]);
      launch.args.emplace_back(bytes, bytes + spec->param_sizes[i]);
    }
    kernels::Accesses accesses;
    if (spec->accesses) {
      try {
        accesses = spec->accesses(launch);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "mockdev: kernel %s: the access function threw: %s\n",
                     spec->name.c_str(), e.what());
        return CUDA_ERROR_INVALID_VALUE;
      }
    }
    run->device = r.stream->ctx->physical_device;
    for (const auto* list : {&accesses.reads, &accesses.writes}) {
      for (const kernels::Range& range : *list) {
        if (range.bytes != 0 && !core::find_containing(range.begin, range.bytes, nullptr)) {
          run->faults = true;  // Note [Illegal addresses]: at run time, not here
        }
      }
    }
    if (!run->faults) {
      for (const kernels::Range& range : accesses.reads) {
        if (range.bytes != 0) desc.more_reads.push_back({range.begin, range.bytes, false});
      }
      for (const kernels::Range& range : accesses.writes) {
        if (range.bytes != 0) desc.more_writes.push_back({range.begin, range.bytes, false});
      }
    }
    if (spec->duration_ns != 0) desc.duration_ns = spec->duration_ns;
    if (spec->body || run->faults) {
      desc.action.kind = core::ActionKind::kLockedCall;
      desc.action.call = run_kernel;
      desc.action.args[0] = reinterpret_cast<std::uintptr_t>(run.get());
      desc.action.keep = std::move(run);
    }
  } else {
    desc.unknown_accesses = true;  // Note [Module images]
  }
  if (auto sticky = sticky_error(r.stream->ctx->physical_device)) return *sticky;
  return submit(r.stream, std::move(desc)).code;
}

}  // namespace impl
}  // namespace mockdev::cuda
