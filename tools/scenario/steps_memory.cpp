// The device caching allocator as steps (accel/memory.h; PyTorch's torch.cuda.memory): named
// allocations on a device or stream, frees, record_stream, the cache, the statistics with
// expectations on any key, the fraction limit, the settings, snapshots, the summary table,
// and graph private pools (accel/graph.h). Also the `invariants: memory_stats` setting's
// check (memory_steps.h).
//
// Allocations are kept by name as raw pointers (DataPtr::release), freed with raw_delete:
// a table of DataPtrs would free at static destruction, after the runtime's own statics.
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <variant>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/graph.h"
#include "accel/memory.h"
#include "allocator/device_stats.h"
#include "allocator/stats_invariants.h"
#include "memory_steps.h"
#include "step_registry.h"

namespace accel::scenario {

namespace {

using nlohmann::json;
namespace inv = detail::alloc::invariants;

std::map<std::string, ExpectedValueCheck>& value_checks() {
  static std::map<std::string, ExpectedValueCheck> checks;
  return checks;
}

}  // namespace

const ExpectedValueCheck* expected_value_check(const std::string& step) {
  const auto it = value_checks().find(step);
  return it == value_checks().end() ? nullptr : &it->second;
}

ExpectedValueRegistrar::ExpectedValueRegistrar(
    std::vector<std::pair<std::string, ExpectedValueCheck>> checks) {
  for (auto& [name, check] : checks) value_checks()[name] = std::move(check);
}

const std::vector<std::string>& invariant_names() {
  static const std::vector<std::string> names = {"memory_stats"};
  return names;
}

namespace {

// The run's named allocations, pools and pending statistic resets (see the file comment).
struct MemoryObjects {
  std::map<std::string, void*> allocations;
  std::map<std::string, MempoolId> pools;
  // Note [Resets between invariant checks]: a reset changes what the invariants' history
  // may expect (peaks fall to current, accumulated counts to 0), so a reset step names its
  // device here and the next check applies the reset's own rules instead.
  std::set<int> reset_peak, reset_accumulated;
  std::map<int, std::unique_ptr<inv::StatHistory>> history;
  std::set<int> expandable;  // devices that have had expandable segments
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

// An integer as written ("-1", "4096") or a size with a unit ("1MiB").
json number_or_size(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && ptr == s.data() + s.size()) return value;
  }
  return reader.size(node, path);
}

// `expect: {value: {KEY: N, ...}}` of a statistics step: every key one of `keys`.
json expected_stats(const Reader& reader, const YAML::Node& node, const std::string& path,
                    const std::map<std::string, std::int64_t>& keys) {
  reader.require_map(node, path, "a map of statistic: value (keys as memory_stats() names them)");
  std::vector<std::string> known;
  for (const auto& entry : keys) known.push_back(entry.first);
  json out = json::object();
  for (const auto& entry : node) {
    const std::string key = reader.text(entry.first, path, "a statistic name");
    if (!keys.count(key)) {
      reader.fail(entry.first, path, "a statistic (closest: " + closest_names(key, known) + ")",
                  key);
    }
    out[key] = number_or_size(reader, entry.second, Reader::join(path, key));
  }
  return out;
}

// `expect: {value: [segment, ...]}` of memory_snapshot: the keys a segment and a block have,
// sizes with units, states by name.
json expected_segments(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) reader.fail(node, path, "a list of segments", Reader::shown(node));
  static const std::set<std::string> kSizes = {"address",     "total_size",     "allocated_size",
                                               "active_size", "requested_size", "size"};
  json out = json::array();
  std::size_t i = 0;
  for (const auto& segment : node) {
    const std::string p = path + "[" + std::to_string(i++) + "]";
    reader.require_map(segment, p, "a segment: a map of its fields");
    reader.check_keys(segment, p,
                      {"device", "address", "total_size", "stream", "segment_type",
                       "allocated_size", "active_size", "requested_size", "is_expandable",
                       "segment_pool_id", "private_pool", "blocks"});
    json s = json::object();
    for (const auto& entry : segment) {
      const std::string key = entry.first.Scalar();
      const std::string q = Reader::join(p, key);
      if (key == "blocks") {
        if (!entry.second.IsSequence())
          reader.fail(entry.second, q, "a list of blocks", Reader::shown(entry.second));
        json blocks = json::array();
        std::size_t j = 0;
        for (const auto& block : entry.second) {
          const std::string bp = q + "[" + std::to_string(j++) + "]";
          reader.require_map(block, bp, "a block: a map of address, size, requested_size, state");
          reader.check_keys(block, bp, {"address", "size", "requested_size", "state"});
          json b = json::object();
          for (const auto& field : block) {
            const std::string name = field.first.Scalar();
            const std::string fp = Reader::join(bp, name);
            if (name == "state") {
              const std::string state = reader.text(field.second, fp, "a block state");
              if (state != "active_allocated" && state != "active_pending_free" &&
                  state != "inactive") {
                reader.fail(field.second, fp, "active_allocated, active_pending_free or inactive",
                            state);
              }
              b[name] = state;
            } else {
              b[name] = number_or_size(reader, field.second, fp);
            }
          }
          blocks.push_back(b);
        }
        s[key] = blocks;
      } else if (kSizes.count(key)) {
        s[key] = number_or_size(reader, entry.second, q);
      } else if (key == "segment_type") {
        const std::string type = reader.text(entry.second, q, "small or large");
        if (type != "small" && type != "large")
          reader.fail(entry.second, q, "small or large", type);
        s[key] = type;
      } else if (key == "is_expandable" || key == "private_pool") {
        s[key] = reader.boolean(entry.second, q);
      } else {
        s[key] = Reader::to_json(entry.second);
      }
    }
    out.push_back(s);
  }
  return out;
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

const ExpectedValueRegistrar value_registrar({
    {"memory_stats",
     [](const Reader& r, const YAML::Node& n, const std::string& p) {
       static const auto keys = detail::alloc::flatten(detail::alloc::DeviceStats{});
       return expected_stats(r, n, p, keys);
     }},
    {"memory_snapshot", expected_segments},
    {"get_per_process_memory_fraction",
     [](const Reader& r, const YAML::Node& n, const std::string& p) -> json {
       // YAML reads 0.25 as text; the step returns a number.
       const std::string text = r.scalar(n, p, "a fraction");
       try {
         return n.as<double>();
       } catch (const YAML::Exception&) {
         r.fail(n, p, "a number", text);
       }
     }},
});

}  // namespace

std::vector<std::string> check_memory_invariants() {
  std::vector<std::string> out;
  // Before initialisation there is nothing to read; in a forked child of an initialised
  // parent every memory call is a ForkError (is_allocator_initialized() is false there).
  if (!is_allocator_initialized()) return out;
  MemoryObjects& o = objects();
  const MemorySnapshot snapshot = memory_snapshot();
  const bool setting_expandable =
      get_allocator_settings().find("expandable_segments:True") != std::string::npos;
  for (int d = 0; d < device_count(); ++d) {
    const inv::FlatStats now = memory_stats(d);
    bool has_expandable = setting_expandable;
    for (const SegmentSnapshot& s : snapshot.segments) {
      if (s.device == d && s.is_expandable) has_expandable = true;
    }
    if (has_expandable) o.expandable.insert(d);
    const inv::LayoutRules rules{o.expandable.count(d) > 0, d};
    inv::Violations found = inv::check_stats(now, rules);
    for (std::string& v : inv::check_snapshot(now, snapshot.segments, rules)) found.push_back(v);
    std::unique_ptr<inv::StatHistory>& history = o.history[d];
    inv::Violations past;
    if (!history) {
      history = std::make_unique<inv::StatHistory>(now);
    } else if (o.reset_accumulated.count(d)) {
      past = history->after_reset_accumulated(now);
    } else if (o.reset_peak.count(d)) {
      past = history->after_reset_peak(now);
    } else {
      past = history->observe(now);
    }
    for (std::string& v : past) found.push_back(v);
    for (const std::string& v : found) out.push_back("device " + std::to_string(d) + ": " + v);
  }
  o.reset_peak.clear();
  o.reset_accumulated.clear();
  return out;
}

namespace {

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
       a.reader.require_map(a.node, a.path, "{alloc, stream}");
       a.reader.check_keys(a.node, a.path, {"alloc", "stream"});
       if (!a.node["alloc"] || !a.node["stream"]) {
         a.reader.fail(a.node, a.path, "alloc and stream (both required)", "{...}");
       }
       const std::string name = object_name(a, a.node["alloc"], Reader::join(a.path, "alloc"),
                                            "device allocation", false);
       const std::string stream =
           object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
       return [name, stream](StepEnv& env) -> json {
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
         objects().reset_peak.insert(resolved_index(d));
         return json(nullptr);
       });
     }},
    {"reset_accumulated_memory_stats", "D; allocated/freed counts and event counters become 0",
     false,
     [](const StepArgs& a) -> Action {
       return on_device(a, [](const DeviceArg& d) {
         reset_accumulated_memory_stats(d);
         objects().reset_accumulated.insert(resolved_index(d));
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
