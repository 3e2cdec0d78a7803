#pragma once
// Running the `accel` tool on simulated hardware: `--machine FILE|PRESET`.
//
// The runtime picks its driver at run time from ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY,
// and the mock driver picks its machine from MOCKDEV_MACHINE. `--machine` only sets
// those three variables (after validating the machine, so a bad file is reported by the
// tool with file:line instead of surfacing later as "driver unavailable"). It must run
// before the first runtime call, because the runtime reads them when it first loads the
// driver. Not thread-safe (setenv); call from main() before starting threads.

#include <string>
#include <string_view>

namespace accel::tools {

struct MockSelection {
  std::string machine;      // the --machine value, as given
  std::string source;       // "preset:4xh100" or the file path
  int device_count = 0;     // devices the machine file declares
  std::string facade_dir;   // where the mock libcuda.so.1 / libnvidia-ml.so.1 live
  std::string driver_path;  // <facade_dir>/libcuda.so.1
  std::string nvml_path;    // <facade_dir>/libnvidia-ml.so.1
};

// The directory holding the mock driver facades: $ACCEL_MOCKDEV_DIR if set; else
// <dir of this executable>/../<libdir>/accel/mockdev when it exists (installed layout);
// else the build tree's facade directory compiled in. See Note [Finding the mock driver].
std::string mock_facade_directory();

// Validates the machine (throws mockdev::MachineFileError), locates the facades (throws
// std::runtime_error naming the paths tried when they are missing), and sets
// MOCKDEV_MACHINE, ACCEL_CUDA_DRIVER and ACCEL_NVML_LIBRARY for this process.
MockSelection select_mock_machine(std::string_view path_or_preset);

// One line per built-in preset: name, device count, device names.
std::string describe_presets();

}  // namespace accel::tools
