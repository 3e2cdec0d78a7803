// Guards: DeviceIndexGuard as a scope with a body (`guard`), or opened and closed by
// separate steps (`guard_enter` / `guard_exit`), and `raise`, a user exception that leaves
// a guard's body the way an exception leaves a `with` block.
#include "accel/device_index_guard.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

std::optional<int> guard_index(const Reader& reader, const YAML::Node& node,
                               const std::string& path) {
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;  // device_index(None)
  return static_cast<int>(reader.integer(node, path, INT32_MIN, INT32_MAX));
}

const StepRegistrar registrar({
    {"guard",
     "{index: N or null, steps: [...]}: runs the steps inside a DeviceIndexGuard; an error a "
     "body step does not expect leaves the guard and becomes this step's error",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{index: N or null, steps: [...]}");
       a.reader.check_keys(a.node, a.path, {"index", "steps"});
       if (!a.node["index"]) {
         a.reader.fail(a.node, Reader::join(a.path, "index"),
                       "an index or null (required; null is device_index(None))", "");
       }
       const std::optional<int> index =
           guard_index(a.reader, a.node["index"], Reader::join(a.path, "index"));
       std::vector<Step> body;
       if (a.node["steps"]) body = a.reader.steps(a.node["steps"], Reader::join(a.path, "steps"), {});
       return [index, body](StepEnv& env) {
         DeviceIndexGuard guard(index);
         env.run_body(body);
         return json(nullptr);
       };
     }},
    {"guard_enter", "an index or null; opens a DeviceIndexGuard on this thread", false,
     [](const StepArgs& a) -> Action {
       const std::optional<int> index = guard_index(a.reader, a.node, a.path);
       return [index](StepEnv& env) {
         auto open = std::make_unique<OpenGuard>();
         open->streams_at_entry = thread_stream_snapshot(kSnapshotDevices);
         open->device = std::make_unique<DeviceIndexGuard>(index);
         env.open_guards().push_back(std::move(open));
         return json(nullptr);
       };
     }},
    {"guard_exit", "no argument; closes this thread's innermost open guard", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv& env) -> json {
         auto& guards = env.open_guards();
         if (guards.empty()) throw UserError("guard_exit: this thread has no open guard");
         if (!guards.back()->device) {
           throw UserError("guard_exit: this thread's innermost open guard is a stream guard "
                           "(close it with stream_guard_exit first)");
         }
         guards.pop_back();
         return nullptr;
       };
     }},
    {"raise", "a message; throws a user exception (error kind \"user\")", false,
     [](const StepArgs& a) -> Action {
       const std::string message = a.reader.text(a.node, a.path, "a message");
       return [message](StepEnv&) -> json { throw UserError(message); };
     }},
});

}  // namespace
}  // namespace accel::scenario
