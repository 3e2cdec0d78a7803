#pragma once
// BackendProfile: everything the conformance suite needs to know about one backend, so the
// suite is written once and instantiated per backend (docs/ARCHITECTURE.md, "Conformance
// profiles").
//
// A profile says how to select the backend (environment variables, applied in each test's
// fresh child process: a value already in the environment wins, so ctest's
// mockdev_environment() entries and a user's own settings are honoured), its device-type
// name, the exact ForkError message, its visible-devices variable, and whether it runs on
// the simulated hardware (then the mock's control API describes the driver) or a real
// driver (then tests that need the control API skip, loudly).
//
// Which profiles a process instantiates: ACCEL_CONFORMANCE_PROFILE (a comma list of names)
// when set; otherwise every profile that runs on the simulated hardware. The real-hardware
// profiles are therefore never registered in ctest; run them by hand:
//   ACCEL_CONFORMANCE_PROFILE=cuda_real <build>/tests/conformance/accel_conformance_tests
// Values only; the registry is built once and never changes. Not thread-safe to apply.

#include <optional>
#include <string>
#include <vector>

#include "accel/device.h"

namespace accel::test {

struct ProfileVariable {
  std::string name;
  // The value used when the variable is not already set; nullopt: leave it alone
  // (documented as a variable of the backend, but not forced).
  std::optional<std::string> default_value;
};

struct BackendProfile {
  std::string name;               // "cuda_mock": appears in every test name
  DeviceType device_type;         // DeviceType::kCUDA
  std::string device_type_name;   // "cuda", as accel::to_string(device_type)
  std::vector<ProfileVariable> environment;  // how to select the backend
  std::string error_name;         // "CUDA": how the runtime names the backend in messages
  std::string fork_message;       // ForkError::what() in a bad-fork child
  std::string visibility_variable;  // "CUDA_VISIBLE_DEVICES"
  bool on_mock = false;           // the simulated hardware (control API) or a real driver
  // How to reach NVML-like ground truth for the physical device count, bypassing the
  // runtime: the library path variable and its default file.
  std::string count_library_variable;  // "ACCEL_NVML_LIBRARY"
  std::string count_library_default;   // "libnvidia-ml.so.1"
};

// Every profile this build knows, selected or not.
const std::vector<BackendProfile>& all_profiles();
// The profiles this process instantiates (see above). Unknown names in
// ACCEL_CONFORMANCE_PROFILE are reported on stderr and yield no profile, so the run fails
// with "no tests" rather than pass on the wrong backend.
std::vector<const BackendProfile*> selected_profiles();

// Applies the profile's environment (values already set win). Call in the test's child
// before the first runtime call.
void apply_profile_environment(const BackendProfile& profile);

// The physical device count, asked from the count library (NVML) directly with the
// visibility variable unset in the caller's view: the ground truth the suite compares the
// runtime with. -1 with `error` set when it cannot be asked.
int physical_device_count(const BackendProfile& profile, std::string* error);

// The physical devices' UUIDs ("GPU-..."), in NVML order, from the same library; empty
// with `error` set when they cannot be asked.
std::vector<std::string> physical_device_uuids(const BackendProfile& profile,
                                               std::string* error);

}  // namespace accel::test
