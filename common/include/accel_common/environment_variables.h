#pragma once
// The environment variables the project reads, as a C++ table: the rows of
// accel_common/environment_variables.def (its header says what each column means). Code
// that reads a variable names it through environment_variable_name(), so it cannot read
// one the table does not list; `accel --help` and `accel info` print from the table; CMake
// reads the same file for the tests' environment (cmake/environment_variables.cmake).
// Constant data; thread-safe.

#include <cstddef>
#include <string_view>

namespace accel::common {

struct EnvironmentVariable {
  std::string_view name;     // NUL-terminated (a string literal): name.data() is a C string
  std::string_view owner;    // a backend ("cuda", "xpu"), "runtime", "allocator", "mockdev", "tool"
  std::string_view mock;     // "none", "machine", "backend", or a mockdev target name
  bool listed;               // `accel info` lists it, set or not
  int help_line;             // its line in `accel --help`'s environment block; 0: not there
  bool cleared;              // every test unsets it
  std::string_view meaning;  // one line
};

inline constexpr EnvironmentVariable kEnvironmentVariables[] = {
#define ACCEL_ENVIRONMENT_VARIABLE(name, owner, mock, listed, help, cleared, meaning) \
  {#name, #owner, #mock, (listed) != 0, (help), (cleared) != 0, meaning},
#include "accel_common/environment_variables.def"
#undef ACCEL_ENVIRONMENT_VARIABLE
};

// `name` as the table spells it, for getenv and messages. consteval: naming a variable the
// table does not list does not compile (the throw is not a constant expression), so every
// variable the code reads has its row.
consteval const char* environment_variable_name(std::string_view name) {
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    if (variable.name == name) return variable.name.data();
  }
  throw "not a row of accel_common/environment_variables.def";
}

namespace environment_table_checks {

consteval bool names_are_unique() {
  for (const EnvironmentVariable& a : kEnvironmentVariables) {
    std::size_t same = 0;
    for (const EnvironmentVariable& b : kEnvironmentVariables) same += a.name == b.name ? 1 : 0;
    if (same != 1) return false;
  }
  return true;
}

// The N shown rows have the lines 1..N, each once: no gap, no two rows on one line.
consteval bool help_lines_are_a_sequence() {
  std::size_t shown = 0;
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    shown += variable.help_line > 0 ? 1 : 0;
  }
  for (std::size_t line = 1; line <= shown; ++line) {
    std::size_t rows = 0;
    for (const EnvironmentVariable& variable : kEnvironmentVariables) {
      rows += static_cast<std::size_t>(variable.help_line) == line ? 1 : 0;
    }
    if (rows != 1) return false;
  }
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    if (variable.help_line < 0) return false;
  }
  return true;
}

// The owners that are not a backend; any other OWNER is a backend's name (so a new backend
// needs no edit here).
consteval bool is_backend(std::string_view owner) {
  return owner != "runtime" && owner != "allocator" && owner != "mockdev" && owner != "tool";
}

// A mock driver file belongs to a backend: mockdev_environment() sets it for its OWNER.
consteval bool mock_values_are_known() {
  for (const EnvironmentVariable& variable : kEnvironmentVariables) {
    const std::string_view mock = variable.mock;
    if (mock.starts_with("mockdev_") ? !is_backend(variable.owner)
                                     : mock != "none" && mock != "machine" && mock != "backend") {
      return false;
    }
  }
  return true;
}

static_assert(names_are_unique(), "environment_variables.def: a variable has two rows");
static_assert(help_lines_are_a_sequence(),
              "environment_variables.def: the HELP column must number the shown rows 1..N");
static_assert(mock_values_are_known(),
              "environment_variables.def: MOCK must be none, machine, backend or a mockdev_* "
              "target of a backend's row");

}  // namespace environment_table_checks

}  // namespace accel::common
