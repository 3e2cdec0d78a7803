// The `streams` section of a machine file (sections.h): the scheduler, its seed, the race
// policy, the stream priority range and the timing model (docs/MACHINE_FILES.md, "Streams").
// MOCKDEV_SCHEDULE and MOCKDEV_SEED override schedule and seed at load time
// (core::apply_stream_environment), not here: parsing stays pure. Also the spellings both
// share (parse_schedule, parse_seed in mockdev/machine.h), which the scenario reader uses to
// check the variables before a run.

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "machine/sections.h"

namespace mockdev::machine_file {
namespace {

// A finite decimal number > 0 (a bandwidth in GB/s).
double positive_number(const YamlReader& reader, const YAML::Node& node, const std::string& path) {
  constexpr std::string_view what = "a number above 0 (GB/s, 1 GB = 1e9 bytes)";
  const std::string text = reader.scalar(node, path, what);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE ||
      !std::isfinite(value) || value <= 0) {
    reader.fail(node, path, what, text);
  }
  return value;
}

// An integer in [min, max], sign allowed (priorities are negative).
int signed_integer(const YamlReader& reader, const YAML::Node& node, const std::string& path,
                   int min, int max) {
  const std::string what = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  const std::string text = reader.scalar(node, path, what);
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || value < min ||
      value > max) {
    reader.fail(node, path, what, text);
  }
  return static_cast<int>(value);
}

void read_timing(const YamlReader& reader, const YAML::Node& node, StreamSettings::Timing& t) {
  const std::string path = "streams.timing";
  if (!node.IsMap()) reader.fail(node, path, "a mapping of timing values", YamlReader::shown(node));
  reader.check_keys(node, path,
                    {"launch_latency_ns", "htod_gb_per_s", "dtoh_gb_per_s", "dtod_gb_per_s",
                     "peer_gb_per_s", "memset_gb_per_s", "kernel_ns", "host_function_ns"});
  constexpr std::uint64_t kMaxNs = std::uint64_t{1} << 40;  // about 18 minutes
  auto ns = [&](std::string_view key, std::uint64_t& out) {
    if (YAML::Node v = node[std::string(key)])
      out = reader.integer(v, YamlReader::join(path, key), 0, kMaxNs);
  };
  auto rate = [&](std::string_view key, double& out) {
    if (YAML::Node v = node[std::string(key)])
      out = positive_number(reader, v, YamlReader::join(path, key));
  };
  ns("launch_latency_ns", t.launch_latency_ns);
  rate("htod_gb_per_s", t.htod_gb_per_s);
  rate("dtoh_gb_per_s", t.dtoh_gb_per_s);
  rate("dtod_gb_per_s", t.dtod_gb_per_s);
  rate("peer_gb_per_s", t.peer_gb_per_s);
  rate("memset_gb_per_s", t.memset_gb_per_s);
  ns("kernel_ns", t.kernel_ns);
  ns("host_function_ns", t.host_function_ns);
}

}  // namespace

}  // namespace mockdev::machine_file

namespace mockdev {

std::optional<StreamSettings::Schedule> parse_schedule(std::string_view text) {
  if (text == "eager") return StreamSettings::Schedule::kEager;
  if (text == "random") return StreamSettings::Schedule::kRandom;
  if (text == "adversarial") return StreamSettings::Schedule::kAdversarial;
  return std::nullopt;
}

std::optional<std::uint64_t> parse_seed(std::string_view text) {
  std::uint64_t seed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return seed;
}

}  // namespace mockdev

namespace mockdev::machine_file {

void read_streams(const YamlReader& reader, const YAML::Node& node, MachineSpec& spec) {
  const std::string path = "streams";
  if (!node.IsMap()) {
    reader.fail(node, path,
                "a mapping with keys schedule, seed, races, least_priority, "
                "greatest_priority, timing",
                YamlReader::shown(node));
  }
  reader.check_keys(node, path,
                    {"schedule", "seed", "races", "least_priority", "greatest_priority", "timing"});
  StreamSettings& s = spec.streams;
  if (YAML::Node v = node["schedule"]) {
    constexpr std::string_view what = "eager, random or adversarial";
    const std::string name = reader.scalar(v, "streams.schedule", what);
    const std::optional<StreamSettings::Schedule> schedule = parse_schedule(name);
    if (!schedule) reader.fail(v, "streams.schedule", what, name);
    s.schedule = *schedule;
  }
  if (YAML::Node v = node["seed"]) s.seed = reader.integer(v, "streams.seed", 0, UINT64_MAX);
  if (YAML::Node v = node["races"]) {
    constexpr std::string_view what = "report, fail, abort or off";
    const std::string name = reader.scalar(v, "streams.races", what);
    if (name == "report") {
      s.races = RacePolicy::kReport;
    } else if (name == "fail") {
      s.races = RacePolicy::kFail;
    } else if (name == "abort") {
      s.races = RacePolicy::kAbort;
    } else if (name == "off") {
      s.races = RacePolicy::kOff;
    } else {
      reader.fail(v, "streams.races", what, name);
    }
  }
  if (YAML::Node v = node["least_priority"]) {
    s.least_priority = signed_integer(reader, v, "streams.least_priority", -100, 100);
  }
  if (YAML::Node v = node["greatest_priority"]) {
    s.greatest_priority = signed_integer(reader, v, "streams.greatest_priority", -100, 100);
    // Lower number = higher priority: the greatest priority is at most the least.
    if (s.greatest_priority > s.least_priority) {
      reader.fail(v, "streams.greatest_priority",
                  "an integer at most least_priority (" + std::to_string(s.least_priority) + ")",
                  std::to_string(s.greatest_priority));
    }
  }
  if (YAML::Node v = node["timing"]) read_timing(reader, v, s.timing);
}

}  // namespace mockdev::machine_file
