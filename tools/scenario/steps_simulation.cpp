// The stream simulation under the runtime, through mockdev's control API: the races its
// detector found (mockdev/races.h), its settings and counters (mockdev/streams.h), and
// `driver_memset`, device work queued on a named stream through the driver file the
// runtime loaded, so a scenario can make two streams touch driver memory the runtime's
// allocator does not own (the runtime's copies and fills are steps_copies.cpp). The schedule and
// seed come from the scenario's environment (MOCKDEV_SCHEDULE, MOCKDEV_SEED) or its machine's
// `streams:` section.
#include "accel_abi/cuda_driver.h"
#include "mockdev/races.h"
#include "mockdev/streams.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

using nlohmann::json;
namespace abi = accel::cuda_abi;

const char* schedule_name(mockdev::StreamSettings::Schedule s) {
  switch (s) {
    case mockdev::StreamSettings::Schedule::kEager:
      return "eager";
    case mockdev::StreamSettings::Schedule::kRandom:
      return "random";
    case mockdev::StreamSettings::Schedule::kAdversarial:
      return "adversarial";
  }
  return "unknown";
}

// `stream`: the runtime's name of the queue ("cuda:0 stream id=3 (priority 0)"), which the
// runner's attached tool interface gives every pool stream; null for a queue it did not name.
json access_json(const mockdev::control::RaceAccess& a) {
  return json{{"name", a.name},
              {"queue", a.queue},
              {"stream", a.runtime_name.empty() ? json(nullptr) : json(a.runtime_name)},
              {"device", a.device},
              {"writes", a.writes},
              {"unknown", a.unknown}};
}

const StepRegistrar registrar({
    {"races",
     "no argument; returns the races found so far [{kind, first, second, begin, bytes, host}] "
     "(first/second: {name, queue, stream (the runtime's name, or null), device, writes, unknown})",
     true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         json out = json::array();
         for (const mockdev::control::Race& r : mockdev::control::races()) {
           out.push_back(
               {{"kind", r.kind == mockdev::control::RaceKind::kDataRace ? "data_race"
                                                                         : "unknown_accesses"},
                {"first", access_json(r.first)},
                {"second", access_json(r.second)},
                {"begin", r.begin},
                {"bytes", r.bytes},
                {"host", r.host}});
         }
         return out;
       };
     }},
    {"clear_races", "no argument; forgets the races found so far", false,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         mockdev::control::clear_races();
         return json(nullptr);
       };
     }},
    {"stream_settings", "no argument; returns the simulation's {schedule, seed, races}", true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         const mockdev::StreamSettings s = mockdev::streams::settings();
         return json{
             {"schedule", schedule_name(s.schedule)},
             {"seed", s.seed},
             {"races", std::string(mockdev::race_policy_name(mockdev::control::race_policy()))}};
       };
     }},
    {"stream_stats",
     "no argument; returns the simulation's {enqueued, completed, pending, queues} since the "
     "machine was installed",
     true,
     [](const StepArgs& a) -> Action {
       no_argument(a);
       return [](StepEnv&) {
         const mockdev::streams::Stats s = mockdev::streams::stats();
         return json{{"enqueued", s.enqueued},
                     {"completed", s.completed},
                     {"pending", s.pending},
                     {"queues", s.queues}};
       };
     }},
    {"driver_memset",
     "{alloc: NAME, stream: NAME, value: 0-255, size: SIZE, offset: SIZE}: cuMemsetD8Async of "
     "a driver_alloc allocation on a named stream (default: the current stream)",
     false,
     [](const StepArgs& a) -> Action {
       a.reader.require_map(a.node, a.path, "{alloc, stream, value, size, offset}");
       a.reader.check_keys(a.node, a.path, {"alloc", "stream", "value", "size", "offset"});
       if (!a.node["alloc"] || !a.node["size"]) {
         a.reader.fail(a.node, a.path, "alloc and size (both required)", "{...}");
       }
       const std::string alloc =
           a.reader.name(a.node["alloc"], Reader::join(a.path, "alloc"), "an allocation name");
       std::optional<std::string> stream;
       if (a.node["stream"] && !a.node["stream"].IsNull()) {
         stream = object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false);
       }
       const auto value = static_cast<unsigned char>(
           a.node["value"]
               ? a.reader.integer(a.node["value"], Reader::join(a.path, "value"), 0, 255)
               : 0);
       const std::uint64_t size = a.reader.size(a.node["size"], Reader::join(a.path, "size"));
       const std::uint64_t offset =
           a.node["offset"] ? a.reader.size(a.node["offset"], Reader::join(a.path, "offset")) : 0;
       return [alloc, stream, value, size, offset](StepEnv& env) -> json {
         auto it = env.allocations().find(alloc);
         if (it == env.allocations().end())
           throw UserError("driver_memset: no allocation '" + alloc + "'");
         const Stream s = stream ? env.stream_objects().stream(*stream) : current_stream();
         auto memset =
             reinterpret_cast<abi::CUresult (*)(abi::CUdeviceptr, unsigned char, std::size_t,
                                                abi::CUstream)>(driver_symbol("cuMemsetD8Async"));
         const abi::CUresult r = memset(it->second + offset, value, size,
                                        reinterpret_cast<abi::CUstream>(s.native_handle()));
         if (r != abi::CUDA_SUCCESS) driver_error("cuMemsetD8Async", r);
         return nullptr;
       };
     }},
});

}  // namespace
}  // namespace accel::scenario
