// Per-device RNG (accel/random.h). A seed argument is a number or `run_seed` (the runner's
// --seed), so one scenario can be replayed under several seeds.
#include "accel/random.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;

// A seed: a number, or the word run_seed.
std::function<std::uint64_t(StepEnv&)> seed_arg(const StepArgs& a) {
  const std::string what = "a seed (0 to 2^63-1) or run_seed";
  const std::string s = a.reader.text(a.node, a.path, what);
  if (s == "run_seed") return [](StepEnv& env) { return env.run_seed(); };
  const auto value = static_cast<std::uint64_t>(a.reader.integer(a.node, a.path, 0, INT64_MAX));
  return [value](StepEnv&) { return value; };
}

json state_json(const std::vector<std::uint8_t>& bytes) { return json(bytes); }

const StepRegistrar registrar({
    {"manual_seed", "a seed or run_seed; seeds the current device (deferred before init)", false,
     [](const StepArgs& a) -> Action {
       auto seed = seed_arg(a);
       return [seed](StepEnv& env) {
         random::manual_seed(seed(env));
         return json(nullptr);
       };
     }},
    {"manual_seed_all", "a seed or run_seed; seeds every device (deferred before init)", false,
     [](const StepArgs& a) -> Action {
       auto seed = seed_arg(a);
       return [seed](StepEnv& env) {
         random::manual_seed_all(seed(env));
         return json(nullptr);
       };
     }},
    {"seed", "no argument; seeds the current device non-deterministically", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         random::seed();
         return json(nullptr);
       };
     }},
    {"seed_all", "no argument; seeds every device with one non-deterministic seed", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         random::seed_all();
         return json(nullptr);
       };
     }},
    {"initial_seed", "no argument; returns the current device's seed", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) { return json(random::initial_seed()); };
     }},
    {"get_rng_state", "a device or null; returns the 16 state bytes as a list", true,
     [](const StepArgs& a) -> Action {
       DeviceArg device = device_arg(a);
       return [device](StepEnv&) { return state_json(random::get_rng_state(device)); };
     }},
    {"set_rng_state", "{state: [bytes...], device: D (optional)}; sets a generator's state",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{state: [bytes], device: D}");
       a.reader.check_keys(a.node, a.path, {"state", "device"});
       const std::string sp = Reader::join(a.path, "state");
       const YAML::Node state = a.node["state"];
       if (!state || !state.IsSequence()) {
         a.reader.fail(state, sp, "a list of byte values (required)", Reader::shown(state));
       }
       std::vector<std::uint8_t> bytes;
       for (const auto& b : state) bytes.push_back(static_cast<std::uint8_t>(a.reader.integer(b, sp, 0, 255)));
       StepArgs device_args{a.reader, a.node["device"], Reader::join(a.path, "device"), a.threads};
       DeviceArg device = device_arg(device_args);
       return [bytes, device](StepEnv&) {
         random::set_rng_state(bytes, device);
         return json(nullptr);
       };
     }},
    {"get_rng_state_all", "no argument; returns every device's state, in index order", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         json all = json::array();
         for (const auto& s : random::get_rng_state_all()) all.push_back(state_json(s));
         return all;
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
