// Changing the environment mid-run: what a program does between queries and
// initialisation (PyTorch PR 122815: the device count must not be cached before init,
// because CUDA_VISIBLE_DEVICES may still change). Steps run one at a time, so no other
// scenario thread reads the environment while a step changes it.
#include <cstdlib>

#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

const StepRegistrar registrar({
    {"set_environment",
     "{VARIABLE: value or null, ...}: sets (or unsets) CUDA_VISIBLE_DEVICES, ACCEL_BACKEND, "
     "ACCEL_REQUIRE_DEVICES, ZE_AFFINITY_MASK or ZE_FLAT_DEVICE_HIERARCHY in this process",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "a map of variable: value (null unsets it)");
       a.reader.check_keys(a.node, a.path,
                           {"CUDA_VISIBLE_DEVICES", "ACCEL_BACKEND", "ACCEL_REQUIRE_DEVICES",
                            "ZE_AFFINITY_MASK", "ZE_FLAT_DEVICE_HIERARCHY"});
       std::vector<std::pair<std::string, std::optional<std::string>>> changes;
       for (const auto& entry : a.node) {
         const std::string name = entry.first.Scalar();
         if (entry.second.IsNull()) {
           changes.emplace_back(name, std::nullopt);
         } else {
           changes.emplace_back(
               name, a.reader.environment_value(entry.second, Reader::join(a.path, name)));
         }
       }
       return [changes](StepEnv&) {
         for (const auto& [name, value] : changes) {
           if (value) {
             setenv(name.c_str(), value->c_str(), 1);
           } else {
             unsetenv(name.c_str());
           }
         }
         return json(nullptr);
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
