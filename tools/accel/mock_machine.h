#pragma once
// Running the `accel` tool on simulated hardware (`--machine FILE|PRESET`) and the preset
// machine files (`accel machines`), without linking the simulation.
//
// The tool never links mockdev: an `accel` process loads the mock only when --machine asks
// for it, and then only the way any program would — the runtime dlopens the file named by
// ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY, and the mock picks its machine from
// MOCKDEV_MACHINE; the real Level Zero loader loads the mock Level Zero driver named by
// ZE_ENABLE_ALT_DRIVERS. `--machine` sets those variables (ZE_ENABLE_ALT_DRIVERS only when
// the mock Level Zero driver was built beside the others); the simulated driver itself
// validates the machine (its "mockdev: cannot load the simulated machine: ..." line on
// stderr names the file, line and field) and the tool turns that failure into exit 2.
// select_mock_machine must run before the first runtime call, because the runtime reads
// the variables when it first loads the driver. Not thread-safe (setenv); call from main()
// before starting threads.

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace accel::tools {

// This install (or build) has no mock driver files, or names a directory without them.
class NoMockError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A preset name that no machine file in the machines directory carries.
class UnknownPresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MockSelection {
  std::string machine;      // the --machine value, as given
  std::string facade_dir;   // where the mock libcuda.so.1 / libnvidia-ml.so.1 live
  std::string driver_path;  // <facade_dir>/libcuda.so.1
  std::string nvml_path;    // <facade_dir>/libnvidia-ml.so.1
  // <facade_dir>/libze_mock.so when that file exists (a build with the Level Zero
  // headers); empty otherwise.
  std::string level_zero_driver_path;
};

// The directory holding the mock driver facades: $ACCEL_MOCKDEV_DIR if set; else
// <dir of this executable>/../<libdir>/accel/mockdev when it exists (installed layout);
// else the build tree's facade directory compiled in ("" when mockdev was not built).
// See Note [Finding the mock driver].
std::string mock_facade_directory();

// The selection for the facades in `facade_dir` ("" when this build has none). Throws
// NoMockError saying the install has no simulated hardware. Reads files only.
MockSelection mock_selection(std::string facade_dir, std::string_view path_or_preset);

// One variable `--machine` sets, and its value.
struct MockAssignment {
  std::string_view variable;  // a name of the table: NUL-terminated
  std::string value;
  bool driver_file;  // the value is a mock driver file (not the machine)
};

// What `--machine` sets for `selection`: each row of accel_common/environment_variables.def
// whose MOCK is the machine or a mock driver file, in the table's order (ACCEL_CUDA_DRIVER,
// ACCEL_NVML_LIBRARY, MOCKDEV_MACHINE and, when there is a mock Level Zero driver,
// ZE_ENABLE_ALT_DRIVERS); a driver file this build lacks is left out.
std::vector<MockAssignment> mock_assignments(const MockSelection& selection);

// mock_selection(mock_facade_directory(), ...), then sets mock_assignments() for this
// process.
MockSelection select_mock_machine(std::string_view path_or_preset);

// The directory of the preset machine files: <dir of this executable>/../<datadir>/accel/
// machines when it exists (installed), else the build tree's copy compiled in. Both hold
// exactly the presets' files (ACCEL_MOCKDEV_PRESETS, the names mockdev's --machine
// accepts without a path): the build tree stages the same files the install copies, so
// `accel machines` lists the same names in both, and every name it lists is a machine
// `--machine` accepts. Empty when neither exists.
std::filesystem::path machines_directory();

// The names of the machine files in machines_directory() (the presets), sorted; empty
// when there is no machines directory.
std::vector<std::string> preset_names();

// One line per machine file in machines_directory(): name, device count, device names
// (read from the file's `devices:` entries; see the note in mock_machine.cpp); a file that
// cannot be read (Note [Bounded readers]) shows the reason instead.
std::string describe_presets();

// The text of <machines_directory>/<name>.yaml. Throws UnknownPresetError naming the
// machines there, or saying why the file cannot be read.
std::string preset_text(std::string_view name);

}  // namespace accel::tools
