// The device caching allocator as steps (accel/memory.h; PyTorch's torch.cuda.memory): named
// allocations on a device or stream, frees, record_stream, the cache, the statistics with
// expectations on any key, the fraction limit, the settings, snapshots, the summary table,
// and graph private pools (accel/graph.h). Expected values and the `invariants:` watch are
// memory_checks.cpp's (memory_steps.h).
//
// Allocations are kept by name as raw pointers (DataPtr::release), freed with raw_delete:
// a table of DataPtrs would free at static destruction, after the runtime's own statics.
#include <map>
#include <optional>
#include <variant>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/graph.h"
#include "accel/memory.h"
#include "memory_steps.h"
#include "step_registry.h"

namespace accel::scenario {

namespace {

using nlohmann::json;

// The run's named allocations and pools (see the file comment).
struct MemoryObjects {
  std::map<std::string, void*> allocations;
  std::map<std::string, MempoolId> pools;
};
MemoryObjects& objects() {
  static MemoryObjects o;
  return o;
}

void* allocation(const std::string& name) {
  const auto it = objects().allocations.find(name);
  // The step that made it failed, or a forked child's steps made it.
  if (it == objects().allocations.end()) throw UserError("no live allocation '" + name + "'");
  return it->second;
}

// The device a reset step reset, for the invariants' history.
int resolved_index(const DeviceArg& device) {
  std::optional<int> index;
  if (const int* i = std::get_if<int>(&device.value())) index = *i;
  if (const Device* d = std::get_if<Device>(&device.value())) index = d->index();
  if (const std::string* s = std::get_if<std::string>(&device.value())) {
    index = Device::parse(*s).index();
  }
  return index ? *index : current_device_index();
}

StepArgs sub(const StepArgs& a, const char* key) {
  return StepArgs{a.reader, a.node[key], Reader::join(a.path, key), a.threads};
}

json segments_json(const MemorySnapshot& snapshot, std::optional<int> device) {
  json out = json::array();
  for (const SegmentSnapshot& seg : snapshot.segments) {
    if (device && seg.device != *device) continue;
    json blocks = json::array();
    for (const BlockSnapshot& b : seg.blocks) {
      blocks.push_back({{"address", b.address},
                        {"size", b.size},
                        {"requested_size", b.requested_size},
                        {"state", b.state}});
    }
    const bool private_pool = seg.segment_pool_id != MempoolId{0, 0};
    out.push_back({{"device", seg.device},
                   {"address", seg.address},
                   {"total_size", seg.total_size},
                   {"stream", seg.stream},
                   {"segment_type", seg.segment_type},
                   {"allocated_size", seg.allocated_size},
                   {"active_size", seg.active_size},
                   {"requested_size", seg.requested_size},
                   {"is_expandable", seg.is_expandable},
                   {"segment_pool_id", {seg.segment_pool_id.first, seg.segment_pool_id.second}},
                   {"private_pool", private_pool},
                   {"blocks", blocks}});
  }
  return out;
}

// A step whose argument is a device (or nothing: the current device).
Action on_device(const StepArgs& a, std::function<json(const DeviceArg&)> body) {
  const DeviceArg device = device_arg(a);
  return [device, body](StepEnv&) { return body(device); };
}

const StepRegistrar registrar({
    {"allocate",
     "{name: NAME, size: SIZE, device: D | stream: S}: a block from the caching allocator on "
     "the stream (default: the current stream of the device, default the current one), kept "
     "as NAME; returns {device, size}",
     true,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{name, size, device or stream}");
       a.reader.check_keys(a.node, a.path, {"name", "size", "device", "stream"});
       if (!a.node["name"] || !a.node["size"]) {
         a.reader.fail(a.node, a.path, "name and size (both required)", "{...}");
       }
       if (a.node["device"] && a.node["stream"]) {
         a.reader.fail(a.node["device"], Reader::join(a.path, "device"),
                       "either a device or a stream (a stream names its device)", "{...}");
       }
       const std::string name =
           object_name(a, a.node["name"], Reader::join(a.path, "name"), "device allocation", true);
       const std::uint64_t size = a.reader.size(a.node["size"], Reader::join(a.path, "size"));
       const DeviceArg device = device_arg(sub(a, "device"));
       std::optional<std::string> stream;
       if (a.node["stream"]) {
         stream = object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
       }
       return [name, size, device, stream](StepEnv& env) -> json {
         const Stream s = stream ? env.stream_objects().stream(*stream) : current_stream(device);
         DataPtr data = allocate(size, s);
         const int index = data ? data.device() : s.device_index();
         objects().allocations[name] = data.release();
         return json{{"device", index}, {"size", size}};
       };
     }},
    {"free", "an allocation NAME; returns its block to the cache (raw_delete)", false,
     [](const StepArgs& a) -> Action {
       const std::string name = object_name(a, a.node, a.path, "device allocation", false);
       return [name](StepEnv&) -> json {
         raw_delete(allocation(name));
         objects().allocations.erase(name);
         return nullptr;
       };
     }},
    {"record_stream",
     "{alloc: NAME, stream: S}: the block is also used on S (not reused until S's work queued "
     "before its free has completed)",
     false,
     [](const StepArgs& a) -> Action {
       const AllocationOnStream arg = allocation_on_stream(a, "device allocation");
       return [name = arg.alloc, stream = arg.stream](StepEnv& env) -> json {
         record_stream(allocation(name), env.stream_objects().stream(stream));
         return nullptr;
       };
     }},
    {"empty_cache", "no argument; releases every wholly free cached segment to the driver", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) -> json {
         empty_cache();
         return nullptr;
       };
     }},
    {"memory_stats",
     "D; returns the device's 122 statistics ({} before initialisation); expect: {value: "
     "{KEY: N}} checks the keys given",
     true,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) { return json(memory_stats(d)); });
     }},
    {"memory_allocated", "D; returns allocated_bytes.all.current", true,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) { return json(memory_allocated(d)); });
     }},
    {"max_memory_allocated", "D; returns allocated_bytes.all.peak", true,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) { return json(max_memory_allocated(d)); });
     }},
    {"memory_reserved", "D; returns reserved_bytes.all.current", true,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) { return json(memory_reserved(d)); });
     }},
    {"max_memory_reserved", "D; returns reserved_bytes.all.peak", true,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) { return json(max_memory_reserved(d)); });
     }},
    {"reset_peak_memory_stats", "D; every peak becomes its current value", false,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) {
         reset_peak_memory_stats(d);
         note_stats_reset(resolved_index(d), true);
         return json(nullptr);
       });
     }},
    {"reset_accumulated_memory_stats", "D; allocated/freed counts and event counters become 0",
     false,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) {
         reset_accumulated_memory_stats(d);
         note_stats_reset(resolved_index(d), false);
         return json(nullptr);
       });
     }},
    {"set_per_process_memory_fraction",
     "{fraction: F, device: D}: reserved memory on the device is capped at F * total", false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{fraction, device}");
       a.reader.check_keys(a.node, a.path, {"fraction", "device"});
       if (!a.node["fraction"]) a.reader.fail(a.node, a.path, "fraction (required)", "{...}");
       const std::string p = Reader::join(a.path, "fraction");
       const std::string text = a.reader.scalar(a.node["fraction"], p, "a number");
       double fraction = 0;
       try {
         fraction = a.node["fraction"].as<double>();  // out of [0, 1] is the runtime's error
       } catch (const YAML::Exception&) {
         a.reader.fail(a.node["fraction"], p, "a number (the runtime checks its range)", text);
       }
       const DeviceArg device = device_arg(sub(a, "device"));
       return [fraction, device](StepEnv&) -> json {
         set_per_process_memory_fraction(fraction, device);
         return nullptr;
       };
     }},
    {"get_per_process_memory_fraction", "D; returns the fraction in force (1.0 until set)", true,
     [](const StepArgs& a) -> Action {
       return on_device(
           a, [](const DeviceArg& d) { return json(get_per_process_memory_fraction(d)); });
     }},
    {"set_allocator_settings",
     "settings in ACCEL_ALLOC_CONF syntax (\"expandable_segments:True\"); a malformed one is "
     "the runtime's config error",
     false,
     [](const StepArgs& a) -> Action {
       const std::string text = a.reader.text(a.node, a.path, "allocator settings");
       return [text](StepEnv&) -> json {
         set_allocator_settings(text);
         return nullptr;
       };
     }},
    {"get_allocator_settings", "no argument; returns the settings in force, every key", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(get_allocator_settings()); };
     }},
    {"memory_snapshot",
     "a device index or nothing (every device); returns the segments, each with its blocks "
     "and their states",
     true,
     [](const StepArgs& a) -> Action {
       std::optional<int> device;
       if (a.node.IsDefined() && !a.node.IsNull()) {
         device = static_cast<int>(a.reader.integer(a.node, a.path, 0, INT32_MAX));
       }
       return [device](StepEnv&) { return segments_json(memory_snapshot(), device); };
     }},
    {"memory_summary",
     "{device: D, abbreviated: B} or D; returns torch.cuda.memory_summary()'s table", true,
     [](const StepArgs& a) -> Action {
       bool abbreviated = false;
       DeviceArg device;
       if (a.node.IsMap()) {
         a.reader.check_keys(a.node, a.path, {"device", "abbreviated"});
         device = device_arg(sub(a, "device"));
         if (a.node["abbreviated"]) {
           abbreviated =
               a.reader.boolean(a.node["abbreviated"], Reader::join(a.path, "abbreviated"));
         }
       } else {
         device = device_arg(a);
       }
       return [device, abbreviated](StepEnv&) { return json(memory_summary(device, abbreviated)); };
     }},
    {"graph_pool_handle", "{name: P}: a fresh pool id to share between graphs, kept as P", true,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{name}");
       a.reader.check_keys(a.node, a.path, {"name"});
       if (!a.node["name"]) a.reader.fail(a.node, a.path, "name (required)", "{...}");
       const std::string name =
           object_name(a, a.node["name"], Reader::join(a.path, "name"), "pool", true);
       return [name](StepEnv&) -> json {
         const MempoolId id = generate_graph_pool_handle();
         objects().pools[name] = id;
         return json::array({id.first, id.second});
       };
     }},
    {"graph_pool", "{graph: G, name: P}: the private pool G's capture used, kept as P", true,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{graph, name}");
       a.reader.check_keys(a.node, a.path, {"graph", "name"});
       if (!a.node["graph"] || !a.node["name"]) {
         a.reader.fail(a.node, a.path, "graph and name (both required)", "{...}");
       }
       const std::string graph =
           object_name(a, a.node["graph"], Reader::join(a.path, "graph"), "graph", false);
       const std::string name =
           object_name(a, a.node["name"], Reader::join(a.path, "name"), "pool", true);
       return [graph, name](StepEnv& env) -> json {
         const MempoolId id = env.stream_objects().graph(graph).pool();
         objects().pools[name] = id;
         return json::array({id.first, id.second});
       };
     }},
    {"capture_begin_in_pool",
     "{graph: G, pool: P, mode: M}: capture_begin allocating from pool P (shared with the "
     "graphs that use it)",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{graph, pool, mode}");
       a.reader.check_keys(a.node, a.path, {"graph", "pool", "mode"});
       if (!a.node["graph"] || !a.node["pool"]) {
         a.reader.fail(a.node, a.path, "graph and pool (both required)", "{...}");
       }
       const std::string graph =
           object_name(a, a.node["graph"], Reader::join(a.path, "graph"), "graph", false);
       const std::string pool =
           object_name(a, a.node["pool"], Reader::join(a.path, "pool"), "pool", false);
       CaptureErrorMode mode = CaptureErrorMode::kDefault;
       if (a.node["mode"]) {
         const std::string p = Reader::join(a.path, "mode");
         const std::string text = a.reader.text(a.node["mode"], p, "a capture mode");
         try {
           mode = parse_capture_error_mode(text);
         } catch (const Error&) {
           a.reader.fail(a.node["mode"], p, "default, global, thread_local or relaxed", text);
         }
       }
       return [graph, pool, mode](StepEnv& env) -> json {
         const auto it = objects().pools.find(pool);
         if (it == objects().pools.end()) throw UserError("no pool '" + pool + "'");
         env.stream_objects().graph(graph).capture_begin(it->second, mode);
         return nullptr;
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
