// Lazy initialisation, deferred calls and fork (accel/lazy_init.h).
#include <sys/wait.h>
#include <unistd.h>

#include "accel/lazy_init.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

const StepRegistrar registrar({
    {"init", "no argument; initialises the runtime", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         init();
         return json(nullptr);
       };
     }},
    {"is_initialized", "no argument; returns true or false", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(is_initialized()); };
     }},
    {"is_in_bad_fork", "no argument; returns true or false", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(is_in_bad_fork()); };
     }},
    {"lazy_call",
     "{label: NAME, raise: MESSAGE (optional)}: queues a callback that records NAME in the "
     "lazy log (and then throws MESSAGE), or runs it now when initialised",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{label: NAME, raise: MESSAGE}");
       a.reader.check_keys(a.node, a.path, {"label", "raise"});
       if (!a.node["label"]) {
         a.reader.fail(a.node, Reader::join(a.path, "label"), "a label (required)", "");
       }
       const std::string label =
           a.reader.name(a.node["label"], Reader::join(a.path, "label"), "a label");
       std::optional<std::string> raise;
       if (a.node["raise"]) {
         raise = a.reader.text(a.node["raise"], Reader::join(a.path, "raise"), "a message");
       }
       return [label, raise](StepEnv& env) {
         std::vector<std::string>* log = &env.lazy_log();
         lazy_call([log, label, raise] {
           log->push_back(label);
           if (raise) throw UserError(*raise);
         });
         return json(nullptr);
       };
     }},
    {"lazy_log", "no argument; returns the labels of the lazy_call callbacks run so far", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv& env) { return json(env.lazy_log()); };
     }},
    {"fork",
     "{steps: [...]}: forks; the child runs the steps on its only thread and exits 0 when "
     "every one held (else the step fails with error kind \"child\"); returns nothing",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{steps: [...]}");
       a.reader.check_keys(a.node, a.path, {"steps"});
       if (!a.node["steps"]) {
         a.reader.fail(a.node, Reader::join(a.path, "steps"), "the child's steps (required)", "");
       }
       std::vector<Step> steps = a.reader.steps(a.node["steps"], Reader::join(a.path, "steps"), {});
       return [steps](StepEnv& env) -> json {
         const int status = env.run_child(steps);
         if (status != 0) {
           throw ChildFailed("the forked child failed (" +
                                    (status > 0 ? "exit status " + std::to_string(status)
                                                : "signal " + std::to_string(-status)) +
                                    ")");
         }
         return nullptr;
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
