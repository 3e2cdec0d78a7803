// Streams: the public API of accel/stream.h and accel/stream_guard.h as steps. Streams are
// kept by name (`stream: {name: side}`) in the run's StreamObjects; later steps name them.
// A stream's value, wherever a step returns one, is {device, id, priority, is_default,
// name}: `name` is the first name a step gave an equal stream (pool streams are reused
// round robin, so two names can share one stream), null when none did.
#include "accel/stream.h"
#include "accel/stream_guard.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

json stream_json(const Stream& s, const StreamObjects& objects) {
  const std::string name = objects.name_of(s);
  return json{{"device", s.device_index()},
              {"id", s.id()},
              {"priority", s.priority()},
              {"is_default", s.is_default()},
              {"name", name.empty() ? json(nullptr) : json(name)}};
}

// {name: NAME, device: D}: the name the step gives, and the device argument.
struct NamedOnDevice {
  std::string name;
  DeviceArg device;
};
NamedOnDevice named_on_device(const StepArgs& a, const std::vector<std::string>& extra) {
  std::vector<std::string> keys{"name", "device"};
  keys.insert(keys.end(), extra.begin(), extra.end());
  a.reader.require_map(a.node, a.path, "{name: NAME, device: D, ...}");
  a.reader.check_keys(a.node, a.path, keys);
  if (!a.node["name"]) a.reader.fail(a.node, Reader::join(a.path, "name"), "a stream name (required)", "");
  NamedOnDevice out;
  out.name = object_name(a, a.node["name"], Reader::join(a.path, "name"), "stream", true);
  StepArgs device{a.reader, a.node["device"], Reader::join(a.path, "device"), a.threads};
  out.device = device_arg(device);
  return out;
}

void keep(StreamObjects& objects, const std::string& name, const Stream& stream) {
  for (auto& entry : objects.streams) {
    if (entry.first == name) {
      entry.second = stream;  // a step may name a new stream with an old name
      return;
    }
  }
  objects.streams.emplace_back(name, stream);
}

// A step whose argument is one stream name.
Action on_stream(const StepArgs& a, std::function<json(const Stream&, StepEnv&)> body) {
  const std::string name = object_name(a, a.node, a.path, "stream", false);
  return [name, body](StepEnv& env) { return body(env.stream_objects().stream(name), env); };
}

const StepRegistrar registrar({
    {"stream",
     "{name: NAME, device: D, priority: P}: a stream from the device's pool (Stream(device, "
     "priority)), kept as NAME; returns the stream",
     true,
     [](const StepArgs& a) -> Action {
       const NamedOnDevice n = named_on_device(a, {"priority"});
       const int priority =
           a.node["priority"]
               ? static_cast<int>(a.reader.integer(a.node["priority"], Reader::join(a.path, "priority"),
                                                   INT32_MIN, INT32_MAX))
               : 0;
       return [n, priority](StepEnv& env) {
         const Stream s(n.device, priority);
         keep(env.stream_objects(), n.name, s);
         return stream_json(s, env.stream_objects());
       };
     }},
    {"default_stream",
     "{name: NAME, device: D}: the device's default stream, kept as NAME; returns the stream",
     true,
     [](const StepArgs& a) -> Action {
       const NamedOnDevice n = named_on_device(a, {});
       return [n](StepEnv& env) {
         const Stream s = Stream::default_stream(n.device);
         keep(env.stream_objects(), n.name, s);
         return stream_json(s, env.stream_objects());
       };
     }},
    {"current_stream",
     "a device or null; returns this thread's current stream of the device {device, id, "
     "priority, is_default, name}",
     true,
     [](const StepArgs& a) -> Action {
       const DeviceArg device = device_arg(a);
       return [device](StepEnv& env) { return stream_json(current_stream(device), env.stream_objects()); };
     }},
    {"set_stream", "a stream name; makes it current (and its device the current device)", false,
     [](const StepArgs& a) -> Action {
       return on_stream(a, [](const Stream& s, StepEnv&) {
         set_stream(s);
         return json(nullptr);
       });
     }},
    {"stream_guard",
     "{stream: NAME, steps: [...]}: runs the steps inside a StreamGuard; an error a body step "
     "does not expect leaves the guard and becomes this step's error",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{stream: NAME, steps: [...]}");
       a.reader.check_keys(a.node, a.path, {"stream", "steps"});
       if (!a.node["stream"]) {
         a.reader.fail(a.node, Reader::join(a.path, "stream"), "a stream name (required)", "");
       }
       const std::string name =
           object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
       std::vector<Step> body;
       if (a.node["steps"]) body = a.reader.steps(a.node["steps"], Reader::join(a.path, "steps"), {});
       return [name, body](StepEnv& env) {
         StreamGuard guard(env.stream_objects().stream(name));
         env.run_body(body);
         return json(nullptr);
       };
     }},
    {"stream_guard_enter", "a stream name; opens a StreamGuard on this thread", false,
     [](const StepArgs& a) -> Action {
       const std::string name = object_name(a, a.node, a.path, "stream", false);
       return [name](StepEnv& env) {
         auto open = std::make_unique<OpenGuard>();
         open->streams_at_entry = thread_stream_snapshot(kSnapshotDevices);
         open->stream = std::make_unique<StreamGuard>(env.stream_objects().stream(name));
         env.open_guards().push_back(std::move(open));
         return json(nullptr);
       };
     }},
    {"stream_guard_exit", "no argument; closes this thread's innermost open guard, a stream guard",
     false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv& env) -> json {
         auto& guards = env.open_guards();
         if (guards.empty()) throw UserError("stream_guard_exit: this thread has no open guard");
         if (!guards.back()->stream) {
           throw UserError("stream_guard_exit: this thread's innermost open guard is a device "
                           "guard (close it with guard_exit first)");
         }
         guards.pop_back();
         return nullptr;
       };
     }},
    {"synchronize", "a device or null; waits for every stream of the device", false,
     [](const StepArgs& a) -> Action {
       const DeviceArg device = device_arg(a);
       return [device](StepEnv&) {
         synchronize(device);
         return json(nullptr);
       };
     }},
    {"stream_synchronize", "a stream name; waits for the work queued on it", false,
     [](const StepArgs& a) -> Action {
       return on_stream(a, [](const Stream& s, StepEnv&) {
         s.synchronize();
         return json(nullptr);
       });
     }},
    {"stream_query", "a stream name; returns true when its queued work has completed", true,
     [](const StepArgs& a) -> Action {
       return on_stream(a, [](const Stream& s, StepEnv&) { return json(s.query()); });
     }},
    {"wait_stream",
     "{stream: NAME, other: NAME}: later work on `stream` waits for the work queued on `other` "
     "so far",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{stream: NAME, other: NAME}");
       a.reader.check_keys(a.node, a.path, {"stream", "other"});
       if (!a.node["stream"] || !a.node["other"]) {
         a.reader.fail(a.node, a.path, "stream and other (both required)", "{...}");
       }
       const std::string waiter =
           object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
       const std::string other =
           object_name(a, a.node["other"], Reader::join(a.path, "other"), "stream", false);
       return [waiter, other](StepEnv& env) {
         const StreamObjects& objects = env.stream_objects();
         objects.stream(waiter).wait_stream(objects.stream(other));
         return json(nullptr);
       };
     }},
    {"priority_range", "a device or null; returns [least, greatest]", true,
     [](const StepArgs& a) -> Action {
       const DeviceArg device = device_arg(a);
       return [device](StepEnv&) {
         const auto [least, greatest] = priority_range(device);
         return json::array({least, greatest});
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
