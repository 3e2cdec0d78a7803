// Unit tests of the scenario reader and runner pieces that need no child process: the
// strict reader's errors (file:line, closest names), JUnit escaping, file discovery. The
// runner's options, selection and preflight checks: runner_options_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "junit.h"
#include "reader.h"
#include "runner.h"
#include "scenario_file.h"
#include "step_registry.h"

namespace accel::scenario {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_scenario(text, "s.yaml", ".", StepRegistry::global());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ScenarioReader, ReadsStepsThreadsAndExpectations) {
  const Scenario s = parse_scenario(
      "name: n\nmachine: 2xa100\nthreads: [w]\nenvironment: {CUDA_VISIBLE_DEVICES: '1', "
      "ACCEL_BACKEND: null}\ntimeout: 5\nsteps:\n  - set_device_index: 1\n    thread: w\n"
      "  - current_device_index:\n    expect: {value: 0, calls: {cuInit: 1}}\n",
      "s.yaml", ".", StepRegistry::global());
  EXPECT_EQ(s.name, "n");
  EXPECT_EQ(s.machine.devices.size(), 2u);
  EXPECT_EQ(s.machine_env, "2xa100");
  EXPECT_EQ(s.threads, (std::vector<std::string>{"main", "w"}));
  EXPECT_EQ(s.environment.at("CUDA_VISIBLE_DEVICES"), std::optional<std::string>("1"));
  EXPECT_EQ(s.environment.at("ACCEL_BACKEND"), std::nullopt);
  EXPECT_EQ(s.timeout_seconds, 5);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].thread, "w");
  EXPECT_EQ(s.steps[0].line, 7);
  EXPECT_EQ(s.steps[0].shown, "set_device_index: 1");
  EXPECT_EQ(s.steps[1].expect.value, nlohmann::json(0));
  EXPECT_EQ(s.steps[1].expect.calls.at("cuInit"), 1u);
}

TEST(ScenarioReader, ErrorsNameFileLineAndClosestNames) {
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - curent_device_index:\n"),
            "s.yaml:3: steps[0]: expected a step name or thread/expect (closest: "
            "current_device_index, set_device_index, event_device), got "
            "'curent_device_index'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - init:\n    expect: {eror: driver}\n"),
            "s.yaml:4: steps[0].expect: expected a known key (closest: error, live, value), got "
            "'eror'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - init:\n    expect: {error: drivr}\n"),
            "s.yaml:4: steps[0].expect.error: expected an error kind (closest: driver, user, "
            "child), got 'drivr'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - init:\n    expect: {message: x}\n"),
            "s.yaml:4: steps[0].expect.message: expected expect.error beside it (a message "
            "belongs to an error), got 'x'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - device_count:\n    expect: {value: 1, "
                     "error: driver}\n"),
            "s.yaml:4: steps[0].expect.error: expected either a value or an error, never both "
            "(a step that fails has no value), got 'driver'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - device_count: 3\n"),
            "s.yaml:3: steps[0].device_count: expected no argument, got '3'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps: []\n"),
            "s.yaml:2: steps: expected at least one step, got '[]'");
  EXPECT_EQ(error_of("machine: 1xa100\ntimeout: 0\nsteps:\n  - init:\n"),
            "s.yaml:2: timeout: expected an integer from 1 to 3600, got '0'");
  EXPECT_EQ(error_of("machine: 1xa100\nenvironment: {CUDA_VISIBLE_DEVICE: 0}\nsteps:\n  - init:\n"),
            "s.yaml:2: environment: expected a known key (closest: CUDA_VISIBLE_DEVICES, "
            "ACCEL_REQUIRE_DEVICES, MOCKDEV_SCHEDULE), got 'CUDA_VISIBLE_DEVICE'");
  EXPECT_EQ(error_of("machine: 9xnothing\nsteps:\n  - init:\n").rfind(
                "s.yaml:1: machine: cannot load '9xnothing': ", 0),
            0u);
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - fail_call: {entry: cuInit, code: CUDA_ERROR_NOPE}\n"),
            "s.yaml:3: steps[0].fail_call.code: expected a non-zero CUDA result code (name or "
            "number), got 'CUDA_ERROR_NOPE'");
  EXPECT_EQ(error_of("machine: 1xa100\nsteps:\n  - guard: {index: 1, steps: [{init: , thread: main}, "
                     "{init: , thread: w}]}\n"),
            "s.yaml:3: steps[0].guard.steps[1].thread: expected no thread here: nested steps run "
            "on their parent's thread, got 'w'");
  EXPECT_EQ(error_of("steps: [").rfind("s.yaml:", 0), 0u);
  EXPECT_NE(error_of("steps: [").find("expected valid YAML"), std::string::npos);
}

TEST(ScenarioReader, ClosestNamesRanksByEditDistanceIgnoringCase) {
  EXPECT_EQ(closest_names("INIT", {"init", "is_initialized", "seed", "sleep"}),
            "init, seed, sleep");
  EXPECT_EQ(closest_names("x", {"a"}), "a");
  EXPECT_EQ(closest_names("x", {}), "");
}

TEST(ScenarioRunner, JunitEscapesAndCounts) {
  EXPECT_EQ(xml_escape("a<b>&\"c'\x01\nd"), "a&lt;b&gt;&amp;&quot;c&apos;\nd");
  std::ostringstream out;
  write_junit(out,
              JunitSuite{"suite", {{"ok", "a.yaml", 0.5, "", false, ""},
                                   {"bad", "b.yaml", 1, "failed", false, "FAIL <x>"},
                                   {"slow", "c.yaml", 2, "timed out: stopped after 2 s", true, ""}}},
              7);
  const std::string xml = out.str();
  EXPECT_NE(xml.find("<testsuite name=\"suite\" tests=\"3\" failures=\"1\" errors=\"1\" "
                     "skipped=\"0\" time=\"3.5\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<property name=\"seed\" value=\"7\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"suite\" name=\"ok\" file=\"a.yaml\" time=\"0.5\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"failed\">FAIL &lt;x&gt;</failure>"), std::string::npos);
  EXPECT_NE(xml.find("<error message=\"timed out: stopped after 2 s\"></error>"),
            std::string::npos);
}

TEST(ScenarioRunner, CollectsYamlFilesButNotMachines) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("scenario_collect_" + std::to_string(getpid()));
  fs::create_directories(root / "a" / "machines");
  for (const char* f : {"a/x.yaml", "a/machines/m.yaml", "b.yaml", "a/notes.txt"}) {
    std::ofstream(root / f) << "x";
  }
  const std::vector<std::string> files = collect_scenario_files({root.string()});
  EXPECT_EQ(files, (std::vector<std::string>{(root / "a/x.yaml").string(), (root / "b.yaml").string()}));
  EXPECT_THROW(collect_scenario_files({(root / "nope").string()}), ScenarioError);
  fs::create_directories(root / "empty");
  EXPECT_THROW(collect_scenario_files({(root / "empty").string()}), ScenarioError);
  fs::remove_all(root);
}

}  // namespace
}  // namespace accel::scenario
