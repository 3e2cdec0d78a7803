// What the scenario reader refuses before anything runs, each with file:line and the
// value: files that are not regular files (Note [Bounded readers]), YAML it must not read
// (Note [Bounded YAML]), environment values the runtime or the simulated driver would
// refuse once the run started (Note [Environment values are checked when read]), physical
// device indices the scenario's machine does not have, and names with control characters.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "scenario_file.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::string& text) {
  try {
    (void)parse_scenario(text, "s.yaml", ".", StepRegistry::global());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string load_error(const std::string& path) {
  try {
    (void)load_scenario(path, StepRegistry::global());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string with_environment(const std::string& variable, const std::string& value) {
  return "machine: 4xh100\nenvironment:\n  " + variable + ": " + value + "\nsteps:\n  - init:\n";
}

TEST(ScenarioReaderEnvironment, ValuesAreCheckedWithTheRuntimesAndTheMocksRules) {
  EXPECT_EQ(error_of(with_environment("ACCEL_REQUIRE_DEVICES", "lots")),
            "s.yaml:3: environment.ACCEL_REQUIRE_DEVICES: ACCEL_REQUIRE_DEVICES='lots': expected "
            "the number of devices the program requires (a whole number from 0 to 1000000, such "
            "as 2)");
  EXPECT_EQ(error_of(with_environment("ACCEL_REQUIRE_DEVICES", "'-1'")),
            "s.yaml:3: environment.ACCEL_REQUIRE_DEVICES: ACCEL_REQUIRE_DEVICES='-1': expected "
            "the number of devices the program requires (a whole number from 0 to 1000000, such "
            "as 2)");
  EXPECT_EQ(
      error_of(with_environment("ACCEL_BACKEND", "rocm"))
          .rfind("s.yaml:3: environment.ACCEL_BACKEND: expected a compiled backend (cuda, ", 0),
      0u);
  EXPECT_EQ(error_of(with_environment("MOCKDEV_SCHEDULE", "lazy")),
            "s.yaml:3: environment.MOCKDEV_SCHEDULE: expected eager, random or adversarial, got "
            "'lazy'");
  EXPECT_EQ(error_of(with_environment("MOCKDEV_SEED", "'-3'")),
            "s.yaml:3: environment.MOCKDEV_SEED: expected an unsigned decimal integer from 0 to "
            "18446744073709551615 (2^64 - 1), got '-3'");
  EXPECT_EQ(error_of(with_environment("MOCKDEV_SEED", "'18446744073709551616'")),
            "s.yaml:3: environment.MOCKDEV_SEED: expected an unsigned decimal integer from 0 to "
            "18446744073709551615 (2^64 - 1), got '18446744073709551616'");
  EXPECT_EQ(error_of(with_environment("MOCKDEV_RACES", "loud")),
            "s.yaml:3: environment.MOCKDEV_RACES: expected report, fail, abort or off, got 'loud'");
  EXPECT_EQ(error_of(with_environment("CUDA_VISIBLE_DEVICES", "\"0\\01\"")),
            "s.yaml:3: environment.CUDA_VISIBLE_DEVICES: expected a value without a NUL character "
            "(the environment cannot hold one), got '0\\01'");
}

// set_environment scripts misconfigurations at run time, so only a NUL is refused there.
TEST(ScenarioReaderEnvironment, SetEnvironmentRefusesOnlyANul) {
  EXPECT_EQ(
      error_of("machine: 4xh100\nsteps:\n  - set_environment: {ACCEL_REQUIRE_DEVICES: lots}\n"),
      "(no error)");
  EXPECT_EQ(
      error_of("machine: 4xh100\nsteps:\n  - set_environment: {ACCEL_BACKEND: \"cu\\0da\"}\n"),
      "s.yaml:3: steps[0].set_environment.ACCEL_BACKEND: expected a value without a NUL "
      "character (the environment cannot hold one), got 'cu\\0da'");
}

TEST(ScenarioReaderEnvironment, WhatTheReadersAcceptIsAccepted) {
  for (const auto& [variable, value] : std::vector<std::pair<std::string, std::string>>{
           {"ACCEL_REQUIRE_DEVICES", "'8'"},  // more than the machine has: the runtime's error
           {"ACCEL_REQUIRE_DEVICES", "''"},   // empty: no requirement
           {"ACCEL_BACKEND", "cuda"},
           {"ACCEL_BACKEND", "none"},
           {"ACCEL_BACKEND", "''"},  // empty: unset
           {"MOCKDEV_SCHEDULE", "adversarial"},
           {"MOCKDEV_SEED", "'18446744073709551615'"},
           {"MOCKDEV_RACES", "''"},  // empty: the machine's policy
           {"MOCKDEV_RACES", "off"},
           {"MOCKDEV_RACES", "fail"},
           {"MOCKDEV_SCHEDULE", "''"},  // empty: the machine's schedule
           {"MOCKDEV_SEED", "''"},      // empty: the machine's seed
           {"CUDA_VISIBLE_DEVICES", "'junk,0,0'"},  // the driver's rules decide
       }) {
    EXPECT_EQ(error_of(with_environment(variable, value)), "(no error)") << variable << value;
  }
}

TEST(ScenarioReaderDevices, PhysicalIndicesAreCheckedAgainstTheMachine) {
  EXPECT_EQ(error_of("machine: 4xh100\nsteps:\n  - sticky_error: {device: 99, code: 700}\n"),
            "s.yaml:3: steps[0].sticky_error.device: expected a physical device index of the "
            "machine (0 to 3), got '99'");
  EXPECT_EQ(error_of("machine: 4xh100\nsteps:\n  - sticky_error: {device: -1, code: 700}\n"),
            "s.yaml:3: steps[0].sticky_error.device: expected a physical device index of the "
            "machine (0 to 3), got '-1'");
  EXPECT_EQ(error_of("machine: mixed_vendors\nsteps:\n  - sticky_error: {device: 1, code: 700}\n"),
            "s.yaml:3: steps[0].sticky_error.device: expected an NVIDIA device of the machine "
            "(CUDA serves it; device 1 is intel), got '1'");
  EXPECT_EQ(error_of("machine: none\nsteps:\n  - sticky_error: {device: 0, code: 700}\n"),
            "s.yaml:3: steps[0].sticky_error.device: expected a physical device index, but the "
            "machine has no devices, got '0'");
  EXPECT_EQ(error_of("machine: 4xh100\nsteps:\n  - check:\n    expect: {used_bytes: {4: 0}}\n"),
            "s.yaml:4: steps[0].expect.used_bytes: expected a physical device index of the "
            "machine (0 to 3), got '4'");
  EXPECT_EQ(error_of("machine: 4xh100\nsteps:\n  - sticky_error: {device: 3, code: 700}\n"
                     "  - check:\n    expect: {used_bytes: {3: 0}}\n"),
            "(no error)");
}

TEST(ScenarioReaderNames, NamesThatReportsPrintHaveNoControlCharacters) {
  EXPECT_EQ(error_of("name: \"a\\nb\"\nmachine: 1xa100\nsteps:\n  - init:\n"),
            "s.yaml:1: name: expected a name without control characters, got 'a\\nb'");
  EXPECT_EQ(error_of("machine: 1xa100\nthreads: [\"w\\e[0m\"]\nsteps:\n  - init:\n"),
            "s.yaml:2: threads: expected a thread name without control characters, got "
            "'w\\x1b[0m'");
  EXPECT_EQ(error_of("machine: 1xa100\ntags: [\"t\\t\"]\nsteps:\n  - init:\n"),
            "s.yaml:2: tags: expected a tag without control characters, got 't\\t'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - stream: {name: \"s\\r\"}\n"),
            "s.yaml:3: steps[0].stream.name: expected a stream name without control characters, "
            "got 's\\r'");
}

TEST(ScenarioReaderYaml, WhatYamlLoadWouldMisreadIsRefused) {
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - init:\n---\nmachine: 4xh100\n"),
            "s.yaml:4: (document): expected one YAML document, got a second one (a '---' line "
            "starts it)");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - set_device_index: !!int 1\n"),
            "s.yaml:3: (document): expected a value without a YAML tag (no !!binary, !!str or "
            "!name), got '!!int'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps: &s\n  - guard: {index: 0, steps: *s}\n"),
            "s.yaml:3: (document): expected an alias to a complete node, got '*s' inside the node "
            "it names (a cycle)");
  EXPECT_EQ(error_of("steps: ["),
            "s.yaml:1: (document): expected valid YAML, got 'end of sequence flow not found'");
}

// Found by the scenario-file fuzzer: an empty file has no node and so no line; it is
// reported at line 1 (line 0 would make it a file-level error without the file's name).
TEST(ScenarioReaderYaml, AnEmptyDocumentIsReportedAtLineOne) {
  EXPECT_EQ(error_of(""), "s.yaml:1: (document): expected a map with steps:, got ''");
  EXPECT_EQ(error_of("# nothing\n"), "s.yaml:1: (document): expected a map with steps:, got ''");
}

// The alias bomb of nested guards that once ran for minutes and died with std::bad_alloc.
TEST(ScenarioReaderYaml, AnAliasBombOfGuardsIsRefusedAtTheAliasThatCrossesTheLimit) {
  std::string text = "machine: 1xa100\nsteps:\n  - &s0 {guard: {index: 0, steps: [{init: }]}}\n";
  for (int i = 1; i < 10; ++i) {
    text += "  - &s" + std::to_string(i) + " {guard: {index: 0, steps: [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *s" : "*s") + std::to_string(i - 1);
    text += "]}}\n";
  }
  EXPECT_EQ(error_of(text),
            "s.yaml:7: (document): expected at most 100000 nodes with every alias expanded, got "
            "aliases that expand to more than 100000 nodes ('*s3' here)");
}

// An entry-point name is checked through a probe machine; no text in it can change the
// probe (it is emitted as a quoted string).
TEST(ScenarioReaderNames, EntryPointNamesCannotChangeTheProbe) {
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - call_count: 'cuInit\", nth: 0}'\n"),
            "s.yaml:3: steps[0].call_count: expected an entry point of the mock's APIs, by "
            "exported symbol (cuMemAlloc_v2) or base name (cuMemAlloc), got 'cuInit\", nth: 0}'");
}

// A fault's code is read as its entry point's API writes its codes (the machine-file
// reader's resolution of the entry point): Level Zero names, numbers and hex for ze* and
// zes* entries, NVML names for nvml* ones; another API's name is refused, naming the value
// and the API's codes.
TEST(ScenarioReaderFaults, CodesAreReadByTheEntryPointsApi) {
  auto fault = [](const std::string& machine, const std::string& entry, const std::string& code) {
    return error_of("machine: " + machine + "\nsteps:\n  - fail_call: {entry: " + entry +
                    ", nth: 1, code: " + code + "}\n");
  };
  EXPECT_EQ(fault("2xmax1550", "zeMemAllocDevice", "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"),
            "(no error)");
  EXPECT_EQ(fault("2xmax1550", "zeMemAllocDevice", "0x70000003"), "(no error)");
  EXPECT_EQ(fault("2xmax1550", "zeInit", "2013265921"), "(no error)");
  EXPECT_EQ(fault("2xmax1550", "zesDeviceGetProperties", "ZE_RESULT_ERROR_UNKNOWN"), "(no error)");
  EXPECT_EQ(fault("1xa100", "nvmlInit_v2", "NVML_ERROR_UNKNOWN"), "(no error)");
  EXPECT_EQ(fault("1xa100", "cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY"), "(no error)");
  EXPECT_EQ(fault("2xmax1550", "zeMemAllocDevice", "CUDA_ERROR_OUT_OF_MEMORY"),
            "s.yaml:3: steps[0].fail_call.code: expected a non-zero ZE result code (name or "
            "number), got 'CUDA_ERROR_OUT_OF_MEMORY'");
  EXPECT_EQ(fault("2xmax1550", "zeMemAllocDevice", "ZE_RESULT_SUCCESS"),
            "s.yaml:3: steps[0].fail_call.code: expected a non-zero ZE result code (name or "
            "number), got 'ZE_RESULT_SUCCESS'");
  EXPECT_EQ(fault("2xmax1550", "zeMemAllocDevice", "0x80000000"),
            "s.yaml:3: steps[0].fail_call.code: expected a non-zero ZE result code (name or "
            "number), got '0x80000000'");
  EXPECT_EQ(fault("1xa100", "cuMemAlloc", "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"),
            "s.yaml:3: steps[0].fail_call.code: expected a non-zero CUDA result code (name or "
            "number), got 'ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY'");
  EXPECT_EQ(fault("1xa100", "nvmlInit_v2", "CUDA_ERROR_UNKNOWN"),
            "s.yaml:3: steps[0].fail_call.code: expected a non-zero NVML result code (name or "
            "number), got 'CUDA_ERROR_UNKNOWN'");
  // sticky_error stays CUDA's: its device is an NVIDIA one.
  EXPECT_EQ(error_of("machine: 4xh100\nsteps:\n  - sticky_error: {device: 0, code: "
                     "ZE_RESULT_ERROR_DEVICE_LOST}\n"),
            "s.yaml:3: steps[0].sticky_error.code: expected a non-zero CUDA result code (name or "
            "number), got 'ZE_RESULT_ERROR_DEVICE_LOST'");
}

class ScenarioFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "scenario_files_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ScenarioFiles, OnlyARegularFileOfBoundedSizeIsRead) {
  EXPECT_EQ(load_error("/dev/zero"),
            "scenario file '/dev/zero': is a character device, not a regular file");
  const std::string fifo = (dir_ / "fifo.yaml").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(load_error(fifo),
            "scenario file '" + fifo + "': is a FIFO (named pipe), not a regular file");
  EXPECT_EQ(load_error(dir_.string()),
            "scenario file '" + dir_.string() + "': is a directory, not a regular file");
  const std::string big = (dir_ / "big.yaml").string();
  std::ofstream(big) << std::string((std::size_t{4} << 20) + 1, '#');
  EXPECT_EQ(load_error(big), "scenario file '" + big +
                                 "': is 4.0 MiB, over the limit of 4 MiB");
}

TEST_F(ScenarioFiles, CollectingNamesWhatIsMissingAndKeepsFifosForTheReaderToRefuse) {
  const std::string missing = (dir_ / "missing.yaml").string();
  try {
    (void)collect_scenario_files({missing});
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(), ("scenario file '" + missing + "': no such file or directory").c_str());
  }
  try {
    (void)collect_scenario_files({dir_.string()});
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(
        e.what(),
        ("scenario directory '" + dir_.string() + "': has no scenario files (*.yaml)").c_str());
  }
  // A FIFO given by name, or found in a directory, is kept: reading it is what says what it is.
  const std::string fifo = (dir_ / "fifo.yaml").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(collect_scenario_files({fifo}), std::vector<std::string>{fifo});
  EXPECT_EQ(collect_scenario_files({dir_.string()}), std::vector<std::string>{fifo});
}

}  // namespace
}  // namespace accel::scenario
