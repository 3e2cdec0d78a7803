#pragma once
// `accel run --machine M [--schedule S] [--seed N] [--races R] [--leaks L] [--trace FILE] --
// PROGRAM [ARGS...]`: runs any program on the simulated hardware, as if the machine were installed.
//
// The program is not linked with anything of ours: the dynamic loader finds the simulated
// drivers first (LD_LIBRARY_PATH starts with the directory of the mock libcuda.so.1,
// libnvidia-ml.so.1 and libcudart.so.13), the real Level Zero loader loads the mock Level
// Zero driver (ZE_ENABLE_ALT_DRIVERS), a program on the accel runtime is pointed at the
// same files (ACCEL_CUDA_DRIVER, ACCEL_NVML_LIBRARY), and the mock reads the machine and
// the simulation's settings from MOCKDEV_MACHINE, MOCKDEV_SCHEDULE, MOCKDEV_SEED,
// MOCKDEV_RACES, MOCKDEV_LEAKS, MOCKDEV_TRACE. The driver directory is found as `--machine` finds it
// (Note [Finding the mock driver] in mock_machine.cpp: ACCEL_MOCKDEV_DIR, else the
// installed layout beside this executable, else the build tree's).
//
// Before the program starts, the machine is loaded once by the simulated driver in a child
// process (Note [Checking the machine before the program]), so a machine file with an
// error is accel's configuration error (exit 125), not the program's first failed call.
// Then this process becomes the program (execvp): its exit status is the program's
// (Note [The exit status of accel run]). Not thread-safe (setenv, fork); call from main().

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "command_line.h"
#include "mock_machine.h"

namespace accel::tools {

// accel run's own exit statuses: the rest are the program's.
inline constexpr int kExitRunConfig = 125;    // the machine or the drivers: nothing was run
inline constexpr int kExitRunNotFound = 127;  // the program cannot be found or run

// A configuration problem found before the program starts (exit kExitRunConfig).
class RunConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One variable `accel run` sets for the program.
struct RunAssignment {
  std::string variable;
  std::string value;
};

// What `accel run` sets, in order: LD_LIBRARY_PATH (the driver directory, then
// `ld_library_path` when it is not empty: the user's entries are kept, after ours), then
// mock_assignments(selection), then MOCKDEV_SCHEDULE, MOCKDEV_SEED, MOCKDEV_RACES,
// MOCKDEV_LEAKS and MOCKDEV_TRACE for the options `line` gives, then ACCEL_TOOL_LIBRARY
// (the runtime's tool interface, accel_abi/tool_interface.h) naming the simulated driver
// file, whose simulated hardware is a tool: a program on the accel runtime then has its
// streams named by their runtime ids in race reports and the trace, and the caching
// allocator's bytes as trace counters. Not set when `tool_library` (the user's
// ACCEL_TOOL_LIBRARY) is not empty: the user's tool is kept. Pure.
std::vector<RunAssignment> run_assignments(const MockSelection& selection, const CommandLine& line,
                                           std::string_view ld_library_path,
                                           std::string_view tool_library = {});

// Throws RunConfigError when `machine` names neither a preset of `presets` nor a file: a
// value without a '/' that is not a .yaml/.yml file name is a preset name, and the error
// names the closest presets (by edit distance), or all of them when none is close.
void check_machine_name(std::string_view machine, const std::vector<std::string>& presets);

// Runs `line.program` on the simulated machine: checks the machine, sets
// run_assignments() in this process and execs the program. Returns only an exit status
// of accel's own (kExitRunConfig, kExitRunNotFound), after printing why on stderr.
int run_program(const CommandLine& line);

}  // namespace accel::tools
