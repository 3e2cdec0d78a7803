// Kernel launches of the mock Level Zero driver (Note [Level Zero launches] in ze_kernels.h):
// the command zeCommandListAppendLaunchKernel and the indirect launches append, and the engine
// operation it becomes, over the kernels tests register (mockdev/kernels.h,
// core/kernel_registry.h).
//
// Codes [inferred unless the specification gives one]: a null group count is
// INVALID_NULL_POINTER (specification); a kernel of another context, or of a module built for
// a device other than the list's device or the card it is a tile of, an argument never set, or a
// registration whose parameter count or sizes differ from the module's, is INVALID_ARGUMENT
// with one stderr line naming the kernel. A group count of 0 in any dimension is a launch of no
// groups: an ordering-only operation whose body does not run.

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <set>

#include "core/engine.h"
#include "core/kernel_registry.h"
#include "core/memory.h"
#include "level_zero/ze_kernels.h"

namespace mockdev::level_zero {
namespace {

// "kernel <name>" as static text (OpDesc::name must outlive the operation).
const char* kernel_op_name(const std::string& name) MOCKDEV_ZE_LOCKED {
  static auto* names = new std::set<std::string>();  // Note [Leaky state]
  return names->insert("kernel " + name).first->c_str();
}

ze_result_t bad_launch(const std::string& kernel, const std::string& why) {
  report("launch of kernel " + kernel + ": " + why);
  return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

// Whether [address, address + bytes) is memory a body may touch: device memory (or mapped
// memory) anywhere, or a host or shared allocation of `context`.
bool reachable(const _ze_context_handle_t* context, std::uint64_t address,
               std::uint64_t bytes) MOCKDEV_ZE_LOCKED {
  if (core::find_containing(address, bytes, nullptr)) return true;
  if (context == nullptr || !is_handle(context, HandleKind::kContext)) return false;
  const ZeAllocation* a = containing_allocation(*context, address, bytes, nullptr);
  return a != nullptr && a->kind != MemKind::kDevice;
}

// Device memory as a body sees it (kernels::DeviceMemory): the engine's bytes, or the host
// bytes of host and shared allocations. Runs from the operation's completion with the engine
// lock held, which the analysis cannot see through the function pointer.
class BodyMemory final : public kernels::DeviceMemory {
 public:
  BodyMemory(const std::string& kernel, const _ze_context_handle_t* context)
      : kernel_(kernel), context_(context) {}
  MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
  void read(std::uint64_t address, void* dst, std::uint64_t bytes) override {
    if (bytes == 0 || !inside(address, bytes, "read")) return;
    if (core::find_containing(address, bytes, nullptr)) {
      core::read_bytes(address, dst, bytes);
    } else {
      std::memcpy(dst, reinterpret_cast<const void*>(address), bytes);
    }
  }
  MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
  void write(std::uint64_t address, const void* src, std::uint64_t bytes) override {
    if (bytes == 0 || !inside(address, bytes, "write")) return;
    if (core::find_containing(address, bytes, nullptr)) {
      core::write_bytes(address, src, bytes);
    } else {
      std::memcpy(reinterpret_cast<void*>(address), src, bytes);
    }
  }

 private:
  MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
  bool inside(std::uint64_t address, std::uint64_t bytes, const char* what) {
    if (reachable(context_, address, bytes)) return true;
    char text[160];
    std::snprintf(text, sizeof text,
                  "%s of [0x%" PRIx64 ", +%" PRIu64
                  " bytes) is outside every allocation: an "
                  "illegal address, dropped",
                  what, address, bytes);
    report("kernel " + kernel_ + ": " + text);
    return false;
  }
  const std::string& kernel_;
  const _ze_context_handle_t* context_;
};

// Reads `bytes` at an endpoint when the operation runs (false: the memory is gone).
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
bool read_endpoint(const Endpoint& at, std::uint64_t offset, void* out, std::uint64_t bytes) {
  const std::uint64_t address = at.address + offset;
  if (at.device) {
    if (!core::find_containing(address, bytes, nullptr)) return false;
    core::read_bytes(address, out, bytes);
  } else {
    std::memcpy(out, reinterpret_cast<const void*>(address), bytes);
  }
  return true;
}

MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_body(const LaunchedKernel& k, const kernels::Launch& launch,
              const _ze_context_handle_t* context) {
  if (k.spec == nullptr || !k.spec->body) return;
  if (k.faults) {
    report("kernel " + k.name +
           ": a declared access is outside every allocation: an illegal "
           "address; the body does not run");
    return;
  }
  if (launch.grid[0] == 0 || launch.grid[1] == 0 || launch.grid[2] == 0) return;
  BodyMemory memory(k.name, context);
  try {
    k.spec->body(launch, memory);
  } catch (const std::exception& e) {
    report("kernel " + k.name + ": the body threw: " + e.what());
  } catch (...) {
    report("kernel " + k.name + ": the body threw");
  }
}

// Runs at completion (ActionKind::kLockedCall) with the engine lock held.
MOCKDEV_NO_THREAD_SAFETY_ANALYSIS
void run_launch(std::uintptr_t job_address, std::uintptr_t, std::uintptr_t) {
  const auto& job = *reinterpret_cast<const LaunchJob*>(job_address);
  std::size_t count = job.kernels.size();
  if (job.multiple) {
    std::uint32_t n = 0;
    if (!read_endpoint(job.count, 0, &n, sizeof n)) return;
    count = std::min<std::size_t>(count, n);
  }
  for (std::size_t i = 0; i < count; ++i) {
    const LaunchedKernel& k = job.kernels[i];
    kernels::Launch launch = k.launch;
    if (job.indirect) {
      ze_group_count_t groups{};
      if (!read_endpoint(job.counts, i * sizeof groups, &groups, sizeof groups)) return;
      launch.grid[0] = groups.groupCountX;
      launch.grid[1] = groups.groupCountY;
      launch.grid[2] = groups.groupCountZ;
    }
    run_body(k, launch, job.context);
  }
}

}  // namespace

ze_result_t build_launch(_ze_command_list_handle_t& list,
                         const std::vector<_ze_kernel_handle_t*>& kernels,
                         const ze_group_count_t* counts, Command& command) {
  auto job = std::make_shared<LaunchJob>();
  job->context = list.context;
  const ZeDevice& device = *list.stream.device;
  for (std::size_t n = 0; n < kernels.size(); ++n) {
    const _ze_kernel_handle_t& kernel = *kernels[n];
    const _ze_module_handle_t& module = *kernel.module;
    const spirv::Kernel& entry = module.kernels[kernel.index];
    if (module.context != list.context) {
      return bad_launch(entry.name, "its module belongs to another context than the list's");
    }
    if (module.device->card != device.card ||
        (module.device->tile >= 0 && module.device->tile != device.tile)) {
      return bad_launch(entry.name, "its module was built for another device than the list's");
    }
    LaunchedKernel k;
    k.name = entry.name;
    k.op_name = kernel_op_name(entry.name);
    for (std::size_t i = 0; i < kernel.args.size(); ++i) {
      if (!kernel.args[i])
        return bad_launch(entry.name, "argument " + std::to_string(i) + " is not set");
      k.launch.args.push_back(*kernel.args[i]);
    }
    std::copy(kernel.group.begin(), kernel.group.end(), k.launch.block);
    if (counts != nullptr) {
      k.launch.grid[0] = counts->groupCountX;
      k.launch.grid[1] = counts->groupCountY;
      k.launch.grid[2] = counts->groupCountZ;
    }
    k.spec = core::find_kernel(entry.name);
    if (k.spec) {
      bool same = k.spec->param_sizes.size() == k.launch.args.size();
      for (std::size_t i = 0; same && i < k.launch.args.size(); ++i) {
        same = k.spec->param_sizes[i] == k.launch.args[i].size();
      }
      if (!same) {
        return bad_launch(entry.name, "the registered kernel declares " +
                                          std::to_string(k.spec->param_sizes.size()) +
                                          " parameters of other sizes than the " +
                                          std::to_string(k.launch.args.size()) +
                                          " arguments of the module's entry point");
      }
      if (k.spec->accesses && counts != nullptr) {
        try {
          k.accesses = k.spec->accesses(k.launch);
        } catch (const std::exception& e) {
          return bad_launch(entry.name, std::string("the access function threw: ") + e.what());
        }
        for (const auto* ranges : {&k.accesses.reads, &k.accesses.writes}) {
          for (const kernels::Range& r : *ranges) {
            if (r.bytes != 0 && !reachable(list.context, r.begin, r.bytes)) k.faults = true;
          }
        }
      }
    }
    job->kernels.push_back(std::move(k));
  }
  command.kind = CommandKind::kLaunch;
  command.launch = std::move(job);
  return ZE_RESULT_SUCCESS;
}

// Indirect launches are set up by the caller (LaunchJob::indirect and the buffers) after
// build_launch; see ze_command_lists.cpp.
void describe_launch(const Command& c, core::OpDesc& desc) {
  const LaunchJob& job = *c.launch;
  desc.kind = core::OpKind::kKernel;
  desc.name = job.kernels.size() == 1 ? job.kernels.front().op_name : c.name;
  const std::uint64_t kernel_ns = core::engine().machine.streams.timing.kernel_ns;
  bool any_body = false;
  for (const LaunchedKernel& k : job.kernels) {
    const bool empty =
        !job.indirect && (k.launch.grid[0] == 0 || k.launch.grid[1] == 0 || k.launch.grid[2] == 0);
    if (empty) continue;
    desc.duration_ns += k.spec && k.spec->duration_ns != 0 ? k.spec->duration_ns : kernel_ns;
    any_body = any_body || (k.spec && k.spec->body);
    if (!k.spec || job.indirect) {
      desc.unknown_accesses = true;  // Note [Level Zero launches]
      continue;
    }
    if (k.faults) continue;
    for (const kernels::Range& r : k.accesses.reads) {
      if (r.bytes != 0)
        desc.more_reads.push_back(
            {r.begin, r.bytes, !core::find_containing(r.begin, r.bytes, nullptr)});
    }
    for (const kernels::Range& r : k.accesses.writes) {
      if (r.bytes != 0)
        desc.more_writes.push_back(
            {r.begin, r.bytes, !core::find_containing(r.begin, r.bytes, nullptr)});
    }
  }
  if (job.indirect) {
    desc.read = core::AccessRange{job.counts.address, job.kernels.size() * sizeof(ze_group_count_t),
                                  !job.counts.device};
    if (job.multiple) {
      desc.more_reads.push_back(
          core::AccessRange{job.count.address, sizeof(std::uint32_t), !job.count.device});
    }
  }
  if (any_body || job.indirect) {
    desc.action.kind = core::ActionKind::kLockedCall;
    desc.action.call = run_launch;
    desc.action.args[0] = reinterpret_cast<std::uintptr_t>(&job);
    desc.action.keep = std::const_pointer_cast<LaunchJob>(c.launch);
  }
}

}  // namespace mockdev::level_zero
