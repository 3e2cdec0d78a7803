// Graphs: the public API of accel/graph.h as steps. Graphs are kept by name in the run's
// StreamObjects (`graph: {name: g}`); a capture takes the thread's current stream, so a
// scenario makes a stream current first (set_stream, stream_guard).
#include "accel/error.h"
#include "accel/graph.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

Action on_graph(const StepArgs& a, std::function<void(Graph&)> body) {
  const std::string name = object_name(a, a.node, a.path, "graph", false);
  return [name, body](StepEnv& env) {
    body(env.stream_objects().graph(name));
    return json(nullptr);
  };
}

const StepRegistrar registrar({
    {"graph", "{name: NAME, keep_graph: bool}: a new Graph, kept as NAME", false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{name: NAME, keep_graph: true|false}");
       a.reader.check_keys(a.node, a.path, {"name", "keep_graph"});
       if (!a.node["name"]) a.reader.fail(a.node, Reader::join(a.path, "name"), "a graph name (required)", "");
       const std::string name = object_name(a, a.node["name"], Reader::join(a.path, "name"), "graph", true);
       const bool keep =
           a.node["keep_graph"] ? a.reader.boolean(a.node["keep_graph"], Reader::join(a.path, "keep_graph")) : false;
       return [name, keep](StepEnv& env) {
         env.stream_objects().graphs[name] = std::make_unique<Graph>(keep);
         return json(nullptr);
       };
     }},
    {"capture_begin",
     "a graph name, or {graph: NAME, mode: default|global|thread_local|relaxed}: begins "
     "capturing the current stream",
     false,
     [](const StepArgs& a) -> Action {
       // Node::operator= would write into the node it refers to: choose by construction.
       const YAML::Node name_node = a.node.IsMap() ? a.node["graph"] : a.node;
       const std::string name_path = a.node.IsMap() ? Reader::join(a.path, "graph") : a.path;
       CaptureErrorMode mode = CaptureErrorMode::kDefault;
       if (a.node.IsMap()) {
         a.reader.check_keys(a.node, a.path, {"graph", "mode"});
         if (!a.node["graph"]) {
           a.reader.fail(a.node, Reader::join(a.path, "graph"), "a graph name (required)", "");
         }
         if (a.node["mode"]) {
           const std::string p = Reader::join(a.path, "mode");
           const std::string text = a.reader.text(a.node["mode"], p, "a capture mode");
           try {
             mode = parse_capture_error_mode(text);
           } catch (const Error&) {
             a.reader.fail(a.node["mode"], p, "default, global, thread_local or relaxed", text);
           }
         }
       }
       const std::string name = object_name(a, name_node, name_path, "graph", false);
       return [name, mode](StepEnv& env) {
         env.stream_objects().graph(name).capture_begin({0, 0}, mode);
         return json(nullptr);
       };
     }},
    {"capture_end", "a graph name; ends its capture (and instantiates unless keep_graph)", false,
     [](const StepArgs& a) -> Action { return on_graph(a, [](Graph& g) { g.capture_end(); }); }},
    {"instantiate", "a graph name (keep_graph); builds its executable graph", false,
     [](const StepArgs& a) -> Action { return on_graph(a, [](Graph& g) { g.instantiate(); }); }},
    {"replay", "a graph name; launches it on the current stream", false,
     [](const StepArgs& a) -> Action { return on_graph(a, [](Graph& g) { g.replay(); }); }},
    {"graph_reset", "a graph name; ends a capture in progress and destroys the graph", false,
     [](const StepArgs& a) -> Action { return on_graph(a, [](Graph& g) { g.reset(); }); }},
});

}  // namespace
}  // namespace accel::scenario
