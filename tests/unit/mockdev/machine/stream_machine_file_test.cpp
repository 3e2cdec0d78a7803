// The machine file's `streams:` section (docs/MACHINE_FILES.md) and the environment
// variables that override it.

#include <cstdlib>

#include "stream_test.h"

namespace mockdev::testing {
namespace {

constexpr const char* kHead =
    "name: m\ndevices: [{name: d, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1}]\n";

std::string error_of(const std::string& streams) {
  try {
    parse_machine(std::string(kHead) + streams, "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MockStreamsSection, Defaults) {
  const MachineSpec m = parse_machine(kHead, "m.yaml");
  EXPECT_EQ(m.streams.schedule, StreamSettings::Schedule::kEager);  // what older tests expect
  EXPECT_EQ(m.streams.seed, 0u);
  EXPECT_EQ(m.streams.least_priority, 0);
  EXPECT_EQ(m.streams.greatest_priority, -5);
  EXPECT_EQ(m.streams.timing.launch_latency_ns, 4000u);
  EXPECT_EQ(m.streams.races, RacePolicy::kReport);
}

TEST(MockStreamsSection, EveryKey) {
  const MachineSpec m = parse_machine(
      std::string(kHead) +
          "streams:\n  schedule: random\n  seed: 18446744073709551615\n  races: abort\n"
          "  least_priority: 1\n  greatest_priority: -7\n  timing:\n"
          "    launch_latency_ns: 0\n    htod_gb_per_s: 12.5\n    dtoh_gb_per_s: 13\n"
          "    dtod_gb_per_s: 900\n    peer_gb_per_s: 50.5\n    memset_gb_per_s: 1e3\n"
          "    kernel_ns: 7\n    host_function_ns: 8\n",
      "m.yaml");
  const StreamSettings& s = m.streams;
  EXPECT_EQ(s.schedule, StreamSettings::Schedule::kRandom);
  EXPECT_EQ(s.seed, UINT64_MAX);
  EXPECT_EQ(s.races, RacePolicy::kAbort);
  EXPECT_EQ(s.least_priority, 1);
  EXPECT_EQ(s.greatest_priority, -7);
  EXPECT_EQ(s.timing.launch_latency_ns, 0u);
  EXPECT_EQ(s.timing.htod_gb_per_s, 12.5);
  EXPECT_EQ(s.timing.dtoh_gb_per_s, 13.0);
  EXPECT_EQ(s.timing.dtod_gb_per_s, 900.0);
  EXPECT_EQ(s.timing.peer_gb_per_s, 50.5);
  EXPECT_EQ(s.timing.memset_gb_per_s, 1000.0);
  EXPECT_EQ(s.timing.kernel_ns, 7u);
  EXPECT_EQ(s.timing.host_function_ns, 8u);
}

TEST(MockStreamsSection, MalformedValuesNameFileLineAndValue) {
  EXPECT_EQ(error_of("streams: {schedule: lazy}\n"),
            "m.yaml:3: streams.schedule: expected eager, random or adversarial, got 'lazy'");
  EXPECT_EQ(error_of("streams:\n  seed: -1\n"),
            "m.yaml:4: streams.seed: expected an integer from 0 to 18446744073709551615, got '-1'");
  EXPECT_EQ(error_of("streams:\n  races: maybe\n"),
            "m.yaml:4: streams.races: expected report, fail, abort or off, got 'maybe'");
  EXPECT_EQ(parse_machine(std::string(kHead) + "streams: {races: fail}\n", "m.yaml").streams.races,
            RacePolicy::kFail);
  EXPECT_EQ(error_of("streams:\n  timing:\n    htod_gb_per_s: 0\n"),
            "m.yaml:5: streams.timing.htod_gb_per_s: expected a number above 0 (GB/s, 1 GB = "
            "1e9 bytes), got '0'");
  EXPECT_EQ(error_of("streams:\n  timing:\n    dtoh_gb_per_s: fast\n"),
            "m.yaml:5: streams.timing.dtoh_gb_per_s: expected a number above 0 (GB/s, 1 GB = "
            "1e9 bytes), got 'fast'");
  EXPECT_EQ(error_of("streams:\n  timing:\n    memset_gb_per_s: inf\n"),
            "m.yaml:5: streams.timing.memset_gb_per_s: expected a number above 0 (GB/s, 1 GB = "
            "1e9 bytes), got 'inf'");
  EXPECT_EQ(error_of("streams:\n  timing:\n    kernel_ns: 1.5\n"),
            "m.yaml:5: streams.timing.kernel_ns: expected an integer from 0 to 1099511627776, "
            "got '1.5'");
  EXPECT_EQ(error_of("streams:\n  timing: {warp: 1}\n"),
            "m.yaml:4: streams.timing: expected one of the keys launch_latency_ns, htod_gb_per_s, "
            "dtoh_gb_per_s, dtod_gb_per_s, peer_gb_per_s, memset_gb_per_s, kernel_ns, "
            "host_function_ns, got 'warp'");
  EXPECT_EQ(error_of("streams:\n  greatest_priority: 3\n"),
            "m.yaml:4: streams.greatest_priority: expected an integer at most least_priority (0), "
            "got '3'");
  EXPECT_EQ(error_of("streams:\n  least_priority: 1000\n"),
            "m.yaml:4: streams.least_priority: expected an integer from -100 to 100, got '1000'");
  EXPECT_EQ(error_of("streams: [1]\n"),
            "m.yaml:3: streams: expected a mapping with keys schedule, seed, races, "
            "least_priority, greatest_priority, timing, got '[...]'");
}

TEST(MockStreamsSection, EnvironmentOverridesTheFile) {
  setenv("MOCKDEV_SCHEDULE", "adversarial", 1);
  setenv("MOCKDEV_SEED", "77", 1);
  setenv("MOCKDEV_MACHINE", "4xh100", 1);
  control::reset_from_environment();
  EXPECT_EQ(streams::settings().schedule, StreamSettings::Schedule::kAdversarial);
  EXPECT_EQ(streams::settings().seed, 77u);
  setenv("MOCKDEV_SEED", "x", 1);
  EXPECT_THROW(control::reset_from_environment(), std::invalid_argument);
  EXPECT_EQ(streams::settings().seed, 77u);  // nothing changed
  unsetenv("MOCKDEV_SCHEDULE");
  unsetenv("MOCKDEV_SEED");
  control::reset_from_environment();
  EXPECT_EQ(streams::settings().schedule, StreamSettings::Schedule::kEager);
}

}  // namespace
}  // namespace mockdev::testing
