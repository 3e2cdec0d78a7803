// Events: the public API of accel/event.h as steps. Events are kept by name in the run's
// StreamObjects (`event: {name: done}`); streams are named as in steps_streams.cpp, and a
// step without `stream:` uses the thread's current stream of its current device, as the
// API does.
#include <optional>

#include "accel/event.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

bool flag(const StepArgs& a, const char* key) {
  return a.node[key] ? a.reader.boolean(a.node[key], Reader::join(a.path, key)) : false;
}

// {event: NAME, stream: NAME or null}
struct EventOnStream {
  std::string event;
  std::optional<std::string> stream;
};
EventOnStream event_on_stream(const StepArgs& a) {
  a.reader.require_map(a.node, a.path, "{event: NAME, stream: NAME (default: the current stream)}");
  a.reader.check_keys(a.node, a.path, {"event", "stream"});
  if (!a.node["event"]) a.reader.fail(a.node, Reader::join(a.path, "event"), "an event name (required)", "");
  EventOnStream out;
  out.event = object_name(a, a.node["event"], Reader::join(a.path, "event"), "event", false);
  if (a.node["stream"] && !a.node["stream"].IsNull()) {
    out.stream = object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
  }
  return out;
}

std::optional<Stream> stream_of(StepEnv& env, const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  return env.stream_objects().stream(*name);
}

Action on_event(const StepArgs& a, std::function<json(Event&)> body) {
  const std::string name = object_name(a, a.node, a.path, "event", false);
  return [name, body](StepEnv& env) { return body(env.stream_objects().event(name)); };
}

const StepRegistrar registrar({
    {"event",
     "{name: NAME, enable_timing: bool, blocking: bool, interprocess: bool}: a new event "
     "(nothing is created until its first record), kept as NAME",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{name: NAME, enable_timing, blocking, interprocess}");
       a.reader.check_keys(a.node, a.path, {"name", "enable_timing", "blocking", "interprocess"});
       if (!a.node["name"]) a.reader.fail(a.node, Reader::join(a.path, "name"), "an event name (required)", "");
       const std::string name = object_name(a, a.node["name"], Reader::join(a.path, "name"), "event", true);
       EventOptions options;
       options.enable_timing = flag(a, "enable_timing");
       options.blocking = flag(a, "blocking");
       options.interprocess = flag(a, "interprocess");
       return [name, options](StepEnv& env) {
         env.stream_objects().events[name] = std::make_unique<Event>(options);
         return json(nullptr);
       };
     }},
    {"record",
     "{event: NAME, stream: NAME}: records the work queued on the stream so far (default: the "
     "current stream)",
     false,
     [](const StepArgs& a) -> Action {
       const EventOnStream e = event_on_stream(a);
       return [e](StepEnv& env) {
         env.stream_objects().event(e.event).record(stream_of(env, e.stream));
         return json(nullptr);
       };
     }},
    {"wait",
     "{event: NAME, stream: NAME}: later work on the stream (default: the current stream) waits "
     "for the event",
     false,
     [](const StepArgs& a) -> Action {
       const EventOnStream e = event_on_stream(a);
       return [e](StepEnv& env) {
         env.stream_objects().event(e.event).wait(stream_of(env, e.stream));
         return json(nullptr);
       };
     }},
    {"event_query", "an event name; returns true when its recorded work has completed", true,
     [](const StepArgs& a) -> Action {
       return on_event(a, [](Event& e) { return json(e.query()); });
     }},
    {"event_synchronize", "an event name; waits for its recorded work", false,
     [](const StepArgs& a) -> Action {
       return on_event(a, [](Event& e) {
         e.synchronize();
         return json(nullptr);
       });
     }},
    {"event_device", "an event name; returns its device index, null before its first record", true,
     [](const StepArgs& a) -> Action {
       return on_event(a, [](Event& e) {
         const std::optional<int> d = e.device_index();
         return d ? json(*d) : json(nullptr);
       });
     }},
    {"elapsed_time",
     "{start: NAME, end: NAME}: returns the milliseconds between two events (scenarios expect "
     "its errors; timings are not asserted)",
     true,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{start: NAME, end: NAME}");
       a.reader.check_keys(a.node, a.path, {"start", "end"});
       if (!a.node["start"] || !a.node["end"]) {
         a.reader.fail(a.node, a.path, "start and end (both required)", "{...}");
       }
       const std::string start = object_name(a, a.node["start"], Reader::join(a.path, "start"), "event", false);
       const std::string end = object_name(a, a.node["end"], Reader::join(a.path, "end"), "event", false);
       return [start, end](StepEnv& env) {
         StreamObjects& objects = env.stream_objects();
         return json(objects.event(start).elapsed_time(objects.event(end)));
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
