// accel_common/environment_variables.h: the one table of the variables the project reads.
// The exact lists below are what `accel info`, `accel --help`, `--machine` and the tests'
// environment show today; a row dropped or moved in environment_variables.def changes them
// all at once, so it fails here by name (the tools' own tests match only some lines).
#include "accel_common/environment_variables.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifndef ACCEL_TEST_CMAKE_CLEARED_ENVIRONMENT
#error "tests/unit/common/CMakeLists.txt passes CMake's ACCEL_TEST_CLEARED_ENVIRONMENT"
#endif

namespace accel::common {
namespace {

static_assert(std::string_view(environment_variable_name("ZE_AFFINITY_MASK")) ==
              "ZE_AFFINITY_MASK");

std::vector<std::string> names_where(bool (*keep)(const EnvironmentVariable&)) {
  std::vector<std::string> names;
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    if (keep(variable)) names.emplace_back(variable.name);
  }
  return names;
}

TEST(EnvironmentTable, AccelInfoListsTheseVariablesInThisOrder) {
  EXPECT_EQ(names_where([](const EnvironmentVariable& v) { return v.listed; }),
            (std::vector<std::string>{
                "CUDA_VISIBLE_DEVICES", "ACCEL_BACKEND", "ACCEL_CUDA_DRIVER", "ACCEL_NVML_LIBRARY",
                "ACCEL_REQUIRE_DEVICES", "ACCEL_MOCKDEV_DIR", "MOCKDEV_MACHINE",
                "ZE_ENABLE_ALT_DRIVERS", "ZE_AFFINITY_MASK", "ZE_FLAT_DEVICE_HIERARCHY"}));
}

TEST(EnvironmentTable, TheHelpShowsTheseVariablesInThisOrder) {
  std::vector<std::pair<int, std::string>> shown;
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    if (variable.help_line > 0) shown.emplace_back(variable.help_line, variable.name);
  }
  std::sort(shown.begin(), shown.end());
  std::vector<std::string> names;
  for (const auto& [line, name] : shown) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"ACCEL_BACKEND", "ACCEL_CUDA_DRIVER",
                                             "ACCEL_NVML_LIBRARY", "MOCKDEV_MACHINE",
                                             "ACCEL_MOCKDEV_DIR", "CUDA_VISIBLE_DEVICES",
                                             "ZE_AFFINITY_MASK", "ZE_ENABLE_ALT_DRIVERS"}));
}

TEST(EnvironmentTable, EveryTestClearsTheseVariables) {
  EXPECT_EQ(
      names_where([](const EnvironmentVariable& v) { return v.cleared; }),
      (std::vector<std::string>{"CUDA_VISIBLE_DEVICES", "ACCEL_BACKEND", "ACCEL_CUDA_DRIVER",
                                "ACCEL_NVML_LIBRARY", "ACCEL_REQUIRE_DEVICES", "ACCEL_MOCKDEV_DIR",
                                "MOCKDEV_MACHINE", "ZE_ENABLE_ALT_DRIVERS", "ZE_AFFINITY_MASK",
                                "ZE_FLAT_DEVICE_HIERARCHY", "ACCEL_TOOL_LIBRARY", "MOCKDEV_SCHEDULE",
                                "MOCKDEV_SEED", "MOCKDEV_RACES", "MOCKDEV_LEAKS",
                                "MOCKDEV_TRACE"}));
}

// CMake reads the .def file with its own parser (cmake/environment_variables.cmake): both
// must find the same CLEARED rows.
TEST(EnvironmentTable, CMakeClearsTheSameVariables) {
  std::string from_table;
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    if (!variable.cleared) continue;
    if (!from_table.empty()) from_table += ',';
    from_table += std::string(variable.name) + "=unset:";
  }
  EXPECT_EQ(from_table, ACCEL_TEST_CMAKE_CLEARED_ENVIRONMENT);
}

// What the simulated hardware sets (mockdev_environment(), `accel --machine`).
TEST(EnvironmentTable, TheSimulatedHardwareSetsTheseVariables) {
  std::vector<std::string> set;
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    if (variable.mock != "none") {
      set.push_back(std::string(variable.name) + " " + std::string(variable.owner) + " " +
                    std::string(variable.mock));
    }
  }
  EXPECT_EQ(set, (std::vector<std::string>{
                     "ACCEL_BACKEND runtime backend", "ACCEL_CUDA_DRIVER cuda mockdev_cuda",
                     "ACCEL_NVML_LIBRARY cuda mockdev_nvml", "MOCKDEV_MACHINE mockdev machine",
                     "ZE_ENABLE_ALT_DRIVERS xpu mockdev_level_zero"}));
}

TEST(EnvironmentTable, EveryMeaningIsOneLine) {
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    EXPECT_FALSE(variable.meaning.empty()) << variable.name;
    EXPECT_EQ(variable.meaning.find('\n'), std::string_view::npos) << variable.name;
  }
}

}  // namespace
}  // namespace accel::common
