// Kernel launches of the simulated driver (declared in driver_api.h): cuLaunchKernel,
// cuLaunchKernelEx, cuLaunchCooperativeKernel (and their _ptsz forms), over the kernels
// tests register (mockdev/kernels.h, core/kernel_registry.h), the functions modules declare
// (modules.h) and the submit path (stream_objects.h).
//
// Note [Launches]
// A launch is an operation of its stream in virtual time. A kernel registered under the
// function's name runs its host body when the operation completes, with the accesses its
// access function declares; any other kernel is an opaque timed operation (the machine's
// kernel duration, no effect on memory, unknown accesses: the race report says "a kernel
// launched but never registered"). Its parameters are read as the image lays them out
// (Note [Module images]): from kernelParams (one pointer per parameter), or from `extra`'s
// CU_LAUNCH_PARAM_BUFFER_POINTER / CU_LAUNCH_PARAM_BUFFER_SIZE buffer at the image's
// offsets (a registered kernel an image does not declare: each parameter at the next
// multiple of its size, at most 8, as the ABI aligns scalars and pointers). A registered
// kernel reads its declared sizes; where the image declares other sizes, the registration
// is wrong and the launch is CUDA_ERROR_INVALID_VALUE with a message naming both.
// Codes [inferred unless recorded]: dims of 0, more than 1024 threads per block, a block
// dimension above 1024 (z: 64) or grid y/z above 65535, both kernelParams and extra, a null
// kernelParams (or entry) where the kernel has parameters, an `extra` buffer shorter than
// the parameters or without its size, dynamic shared memory above the function's
// MAX_DYNAMIC_SHARED_SIZE_BYTES, a block other than a .reqntid: CUDA_ERROR_INVALID_VALUE; a
// block above the function's MAX_THREADS_PER_BLOCK (launch bounds, registers):
// CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (701); a null, unloaded or unknown function:
// CUDA_ERROR_INVALID_HANDLE (400), as is a function of another context than the stream's.
// A CUkernel launches in the stream's context (its library is loaded there first).
// Cooperative launches (cuLaunchCooperativeKernel, CU_LAUNCH_ATTRIBUTE_COOPERATIVE) need
// the device's COOPERATIVE_LAUNCH (else CUDA_ERROR_NOT_SUPPORTED), and every block resident
// at once: more than the function's active blocks per multiprocessor times the
// multiprocessors is CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (720). A cluster
// (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, or the function's required cluster) needs the
// device's CLUSTER_LAUNCH (else CUDA_ERROR_NOT_SUPPORTED); a cluster larger than 8 blocks
// (16 with non-portable sizes allowed), or a grid that is not a whole number of clusters, is
// CUDA_ERROR_INVALID_CLUSTER_SIZE (912). The other launch attributes are hints and change
// nothing here; an attribute id cuda.h does not define is CUDA_ERROR_INVALID_VALUE.
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
#include <memory>
#include <string>
#include <vector>

#include "core/engine.h"
#include "core/kernel_registry.h"
#include "core/memory.h"
#include "cuda/device_attributes.h"
#include "cuda/driver_api.h"
#include "cuda/driver_call.h"
#include "cuda/modules.h"
#include "cuda/stream_objects.h"

namespace mockdev::cuda {
namespace {

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

struct LaunchRequest {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned shared_bytes = 0;
  CUstream stream = nullptr;
  void** params = nullptr;
  void** extra = nullptr;
  bool cooperative = false;
  unsigned cluster[3] = {0, 0, 0};  // 0: no cluster given
};

CUresult bad_launch(CUfunc_st* f, CUresult code, const std::string& why) {
  std::fprintf(stderr, "mockdev: launch of kernel %s: %s\n", f->name.c_str(), why.c_str());
  return code;
}

// The parameter layout a launch reads (Note [Launches]).
std::vector<image::Param> parameter_layout(const CUfunc_st* f, const kernels::KernelSpec* spec) {
  if (f->kernel != nullptr) return f->kernel->params;
  std::vector<image::Param> layout;
  if (spec == nullptr) return layout;
  std::uint32_t offset = 0;
  for (std::size_t size : spec->param_sizes) {
    const auto align = static_cast<std::uint32_t>(std::min<std::size_t>(size, 8));
    offset = (offset + align - 1) / align * align;
    layout.push_back(image::Param{offset, static_cast<std::uint32_t>(size)});
    offset += static_cast<std::uint32_t>(size);
  }
  return layout;
}

// Each parameter's bytes from kernelParams or `extra`; false (with `code`) when they cannot be
// read.
bool read_arguments(CUfunc_st* f, const std::vector<image::Param>& layout, void** params,
                    void** extra, std::vector<std::vector<std::byte>>& out, CUresult* code) {
  *code = CUDA_ERROR_INVALID_VALUE;
  if (layout.empty()) return true;
  if (extra != nullptr) {
    const void* buffer = nullptr;
    const std::size_t* size = nullptr;
    for (std::size_t i = 0; extra[i] != nullptr; i += 2) {
      const auto key = reinterpret_cast<std::uintptr_t>(extra[i]);
      if (key == 0x01) {
        buffer = extra[i + 1];
      } else if (key == 0x02) {
        size = static_cast<const std::size_t*>(extra[i + 1]);
      } else {
        bad_launch(f, *code, "an `extra` entry " + std::to_string(key) + " cuda.h does not define");
        return false;
      }
    }
    const image::Param& last = layout.back();
    if (buffer == nullptr || size == nullptr || *size < last.offset + last.size) {
      bad_launch(f, *code,
                 "an `extra` argument buffer missing, or shorter than the " +
                     std::to_string(last.offset + last.size) + " bytes of parameters");
      return false;
    }
    for (const image::Param& p : layout) {
      const auto* bytes = static_cast<const std::byte*>(buffer) + p.offset;
      out.emplace_back(bytes, bytes + p.size);
    }
    return true;
  }
  if (params == nullptr) {
    bad_launch(f, *code,
               "no kernelParams for its " + std::to_string(layout.size()) + " parameters");
    return false;
  }
  for (std::size_t i = 0; i < layout.size(); ++i) {
    if (params[i] == nullptr) {
      bad_launch(f, *code, "kernelParams[" + std::to_string(i) + "] is null");
      return false;
    }
    const auto* bytes = static_cast<const std::byte*>(params[i]);
    out.emplace_back(bytes, bytes + layout[i].size);
  }
  return true;
}

CUresult launch_kernel(CUfunction handle, const LaunchRequest& q)
    MOCKDEV_REQUIRES(core::g_engine_mutex) {
  ModuleRegistry& registry = module_registry();
  if (registry.functions.count(handle) == 0 &&
      registry.kernels.count(reinterpret_cast<CUkern_st*>(handle)) == 0) {
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if (!valid_dims(q.grid[0], q.grid[1], q.grid[2], q.block[0], q.block[1], q.block[2])) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (q.params != nullptr && q.extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  const ResolvedStream r = resolve_stream(q.stream);
  if (r.stream == nullptr) return r.error;
  CUresult error = CUDA_SUCCESS;
  CUfunc_st* f = resolve_function(handle, r.stream->ctx, &error);
  if (f == nullptr) return error;
  if (r.stream->ctx != f->module->ctx) return CUDA_ERROR_INVALID_HANDLE;
  const int physical = r.stream->ctx->physical_device;

  const unsigned threads = q.block[0] * q.block[1] * q.block[2];
  if (static_cast<int>(threads) > function_max_threads(f)) {
    return bad_launch(f, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                      std::to_string(threads) + " threads per block, above its maximum of " +
                          std::to_string(function_max_threads(f)));
  }
  if (static_cast<int>(q.shared_bytes) > function_max_dynamic_shared(f)) {
    return bad_launch(f, CUDA_ERROR_INVALID_VALUE,
                      std::to_string(q.shared_bytes) +
                          " bytes of dynamic shared memory, above its "
                          "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES of " +
                          std::to_string(function_max_dynamic_shared(f)));
  }
  if (f->kernel != nullptr && f->kernel->required_block[0] != 0 &&
      (q.block[0] != f->kernel->required_block[0] || q.block[1] != f->kernel->required_block[1] ||
       q.block[2] != f->kernel->required_block[2])) {
    return bad_launch(f, CUDA_ERROR_INVALID_VALUE, "a block other than its .reqntid");
  }
  unsigned cluster[3] = {q.cluster[0], q.cluster[1], q.cluster[2]};
  if (cluster[0] == 0) {
    const FunctionSettings& s = settings_of(f);
    for (int i = 0; i < 3; ++i) cluster[i] = static_cast<unsigned>(s.cluster[i]);
  }
  if (cluster[0] != 0 || cluster[1] != 0 || cluster[2] != 0) {
    if (device_value(physical, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH) == 0)
      return CUDA_ERROR_NOT_SUPPORTED;
    for (unsigned& c : cluster) c = std::max(c, 1u);
    const unsigned size = cluster[0] * cluster[1] * cluster[2];
    if (size > static_cast<unsigned>(function_max_cluster(f)) || q.grid[0] % cluster[0] != 0 ||
        q.grid[1] % cluster[1] != 0 || q.grid[2] % cluster[2] != 0) {
      return bad_launch(f, CUDA_ERROR_INVALID_CLUSTER_SIZE,
                        "a cluster of " + std::to_string(cluster[0]) + "x" +
                            std::to_string(cluster[1]) + "x" + std::to_string(cluster[2]) +
                            " blocks for a grid of " + std::to_string(q.grid[0]) + "x" +
                            std::to_string(q.grid[1]) + "x" + std::to_string(q.grid[2]));
    }
  }
  if (q.cooperative) {
    if (device_value(physical, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH) == 0)
      return CUDA_ERROR_NOT_SUPPORTED;
    const std::uint64_t blocks = std::uint64_t{q.grid[0]} * q.grid[1] * q.grid[2];
    const std::uint64_t resident =
        std::uint64_t(function_active_blocks(f, static_cast<int>(threads), q.shared_bytes)) *
        static_cast<std::uint64_t>(
            device_value(physical, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
    if (blocks > resident) {
      return bad_launch(f, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                        "a cooperative grid of " + std::to_string(blocks) + " blocks, where " +
                            std::to_string(resident) + " can be resident at once");
    }
  }

  std::shared_ptr<const kernels::KernelSpec> spec = core::find_kernel(f->name);
  if (spec && f->kernel != nullptr) {
    bool same = spec->param_sizes.size() == f->kernel->params.size();
    for (std::size_t i = 0; same && i < spec->param_sizes.size(); ++i) {
      same = spec->param_sizes[i] == f->kernel->params[i].size;
    }
    if (!same) {
      return bad_launch(f, CUDA_ERROR_INVALID_VALUE,
                        "the registered kernel declares " +
                            std::to_string(spec->param_sizes.size()) +
                            " parameters of other sizes than the image's " +
                            std::to_string(f->kernel->params.size()));
    }
  }
  std::vector<std::vector<std::byte>> args;
  if (!read_arguments(f, parameter_layout(f, spec.get()), q.params, q.extra, args, &error))
    return error;

  core::OpDesc desc;
  desc.kind = core::OpKind::kKernel;
  desc.name = f->op_name;
  desc.duration_ns = core::engine().machine.streams.timing.kernel_ns;
  if (spec) {
    auto run = std::make_shared<KernelRun>();
    run->spec = spec;
    kernels::Launch& launch = run->launch;
    std::copy(q.grid, q.grid + 3, launch.grid);
    std::copy(q.block, q.block + 3, launch.block);
    launch.shared_bytes = q.shared_bytes;
    launch.args = std::move(args);
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
    run->device = physical;
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
    desc.unknown_accesses = true;  // Note [Launches]
  }
  if (auto sticky = sticky_error(physical)) return *sticky;
  return submit(r.stream, std::move(desc)).code;
}

// The request of cuLaunchKernel's and cuLaunchCooperativeKernel's arguments.
LaunchRequest request(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shared_bytes, CUstream stream, void** params, void** extra,
                      bool cooperative) {
  LaunchRequest q;
  q.grid[0] = gx, q.grid[1] = gy, q.grid[2] = gz;
  q.block[0] = bx, q.block[1] = by, q.block[2] = bz;
  q.shared_bytes = shared_bytes;
  q.stream = stream;
  q.params = params;
  q.extra = extra;
  q.cooperative = cooperative;
  return q;
}

}  // namespace

namespace impl {

CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                        unsigned int shared_bytes, CUstream stream, void** params, void** extra) {
  return launch_kernel(f, request(grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes,
                                  stream, params, extra, false));
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y,
                                   unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                                   unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                                   void** params) {
  return launch_kernel(f, request(grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes,
                                  stream, params, nullptr, true));
}

CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  if (config == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (config->numAttrs > 0 && config->attrs == nullptr) return CUDA_ERROR_INVALID_VALUE;
  LaunchRequest q;
  q.grid[0] = config->gridDimX, q.grid[1] = config->gridDimY, q.grid[2] = config->gridDimZ;
  q.block[0] = config->blockDimX, q.block[1] = config->blockDimY, q.block[2] = config->blockDimZ;
  q.shared_bytes = config->sharedMemBytes;
  q.stream = config->hStream;
  q.params = params;
  q.extra = extra;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
        q.cooperative = a.value.cooperative != 0;
        break;
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
        q.cluster[0] = a.value.clusterDim.x;
        q.cluster[1] = a.value.clusterDim.y;
        q.cluster[2] = a.value.clusterDim.z;
        if (q.cluster[0] == 0 || q.cluster[1] == 0 || q.cluster[2] == 0)
          return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        break;
      case CU_LAUNCH_ATTRIBUTE_IGNORE:
      case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
      case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
      case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
      case CU_LAUNCH_ATTRIBUTE_PRIORITY:
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
      case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
      case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
      case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
      case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
      case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
        break;  // hints: nothing observable changes here
      default:
        return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return launch_kernel(f, q);
}

}  // namespace impl
}  // namespace mockdev::cuda
