// The pinned host caching allocator as steps (accel/memory.h's pinned host memory; PyTorch's
// CachingHostAllocator and torch.cuda.host_memory_stats): named pinned blocks, frees, uses
// on streams, the cache and the statistics with expectations on any key.
//
// Blocks are kept by name as raw pointers (HostPtr::release), freed with raw_host_delete,
// for the reason steps_memory.cpp gives.
#include <map>

#include "accel/memory.h"
#include "allocator/host_stats.h"
#include "memory_steps.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

std::map<std::string, void*>& host_blocks() {
  static std::map<std::string, void*> blocks;
  return blocks;
}

void* host_block(const std::string& name) {
  const auto it = host_blocks().find(name);
  if (it == host_blocks().end()) throw UserError("no live pinned allocation '" + name + "'");
  return it->second;
}

json expected_host_stats(const Reader& reader, const YAML::Node& node, const std::string& path) {
  static const auto keys = detail::alloc::flatten(detail::alloc::HostStats{});
  return expected_statistics(reader, node, path, keys);
}

const ExpectedValueRegistrar value_registrar({{"host_memory_stats", expected_host_stats}});

Action no_argument_call(const StepArgs& a, void (*call)()) {
  no_argument(a);
  return [call](StepEnv&) -> json {
    call();
    return nullptr;
  };
}

const StepRegistrar registrar({
    {"host_allocate",
     "{name: NAME, size: SIZE}: a pinned host block (rounded up to a power of two), kept as "
     "NAME; returns {size}",
     true,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{name, size}");
       a.reader.check_keys(a.node, a.path, {"name", "size"});
       if (!a.node["name"] || !a.node["size"]) {
         a.reader.fail(a.node, a.path, "name and size (both required)", "{...}");
       }
       const std::string name =
           object_name(a, a.node["name"], Reader::join(a.path, "name"), "pinned allocation", true);
       const std::uint64_t size = a.reader.size(a.node["size"], Reader::join(a.path, "size"));
       return [name, size](StepEnv&) -> json {
         HostPtr block = allocate_host(size);
         host_blocks()[name] = block.release();
         return json{{"size", size}};
       };
     }},
    {"host_free", "a pinned allocation NAME; returns it to the cache (raw_host_delete)", false,
     [](const StepArgs& a) -> Action {
       const std::string name = object_name(a, a.node, a.path, "pinned allocation", false);
       return [name](StepEnv&) -> json {
         raw_host_delete(host_block(name));
         host_blocks().erase(name);
         return nullptr;
       };
     }},
    {"record_host_use",
     "{alloc: NAME, stream: S}: the pinned block is used by S's work (reused only once that "
     "work, queued before its free, has completed)",
     false,
     [](const StepArgs& a) -> Action {
       const AllocationOnStream arg = allocation_on_stream(a, "pinned allocation");
       return [name = arg.alloc, stream = arg.stream](StepEnv& env) -> json {
         record_host_use(host_block(name), env.stream_objects().stream(stream));
         return nullptr;
       };
     }},
    {"empty_host_cache", "no argument; releases every cached, unused pinned block", false,
     [](const StepArgs& a) -> Action { return no_argument_call(a, &empty_host_cache); }},
    {"host_memory_stats",
     "no argument; returns torch.cuda.host_memory_stats()'s keys ({} before initialisation); "
     "expect: {value: {KEY: N}} checks the keys given",
     true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(host_memory_stats()); };
     }},
    {"reset_peak_host_memory_stats", "no argument; every host peak becomes its current value",
     false,
     [](const StepArgs& a) -> Action {
       return no_argument_call(a, &reset_peak_host_memory_stats);
     }},
    {"reset_accumulated_host_memory_stats",
     "no argument; the host allocated/freed counts and counters become 0", false,
     [](const StepArgs& a) -> Action {
       return no_argument_call(a, &reset_accumulated_host_memory_stats);
     }},
});

}  // namespace
}  // namespace accel::scenario
