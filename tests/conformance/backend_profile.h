#pragma once
// BackendProfile: everything the conformance suite needs to know about one backend, so the
// suite is written once and instantiated per backend (docs/decisions/032-one-conformance-
// suite.md, tests/conformance/README.md).
//
// A profile says how to select the backend (environment variables, applied in each test's
// fresh child process: a value the user set wins, so ctest's mockdev_environment() entries
// and a user's own settings are honoured), its device-type name, the exact ForkError
// message, its visible-devices rules, where the ground truth for the device count comes
// from, and whether it runs on the simulated hardware (then the mock's control API describes
// the driver) or a real driver (then tests that need the control API skip, loudly, and the
// whole profile skips with "no real <vendor> device: hardware conformance did not run" on a
// machine without one).
//
// Note [Backend branches]
// Every behaviour that differs between backends is a field below with its reason, never an
// `if (name == ...)` in a test: the graph tests read has_graphs, the visibility tests read
// visibility_rows, the call-count checks read init_entry_point, and so on. A test that does
// not apply to a backend skips with the field's reason (GTEST_SKIP, listed by ci/test).
//
// Which profiles a process instantiates: ACCEL_CONFORMANCE_PROFILE (a comma list of names)
// when set; otherwise every profile this build knows. ctest registers the mock profiles
// under conformance.<name> and the real-driver ones under the `hardware` label too
// (tests/conformance/CMakeLists.txt). Values only; built once and never changed.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "accel/device.h"
#include "accel/error.h"
#include "accel/peer_link.h"
#include "mockdev/machine.h"

namespace accel::test {

struct ProfileVariable {
  std::string name;
  // The value used when the variable is not already set; nullopt: leave it alone
  // (documented as a variable of the backend, but not forced).
  std::optional<std::string> default_value;
};

// One row of the visible-devices table (visibility_test.cpp): the variable's value, the
// physical devices (indices into the ground-truth list, in that order) the runtime must
// show, and the devices the row needs. `environment` adds variables for the row (e.g.
// ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE); the ground truth is asked in the same environment.
struct VisibilityRow {
  std::string name;   // gtest-safe: ends the test name
  std::string value;  // what the visibility variable is set to; "<N>" = the device count
  std::vector<int> expected;
  int minimum_devices = 1;
  std::vector<std::pair<std::string, std::string>> environment;
  std::string why;    // the rule, printed on failure
};

// The ground truth about the physical devices, asked bypassing the runtime.
struct PhysicalDevices {
  int count = -1;                  // -1: could not be asked (error says why)
  std::vector<std::string> uuids;  // in the driver's order, as the runtime spells them
  std::string error;
};

// The peer rows' data on the simulated hardware (peer_test.cpp): which entry point answers the
// peer matrix, whether the diagonal reaches the driver, a fault to script, the backend's words
// for a failed query, and machine files whose visible devices put a linked and an unlinked
// pair at known ordinals (so reading visible indices as physical ones would answer wrong).
struct PeerRows {
  std::string query_entry_point;     // cuDeviceCanAccessPeer / zeDeviceCanAccessPeer
  bool diagonal_asks_driver = true;  // CUDA asks for (d, d); the Level Zero backend does not
  int fault_code = 0;                // a result code of the backend's API for scripted faults
  std::string query_error;           // the start of a failed query's message for (1, 0)
  std::string no_peer_machine;       // a machine (preset or file) with no links at all
  std::string topology_machine;      // a machine file with a partial topology
  std::string topology_visibility;   // the visibility variable's value on it
  struct Pair {
    int device;
    int peer;
    bool peers;
  };
  std::vector<Pair> topology_matrix;  // visible pairs and whether they are peers
  int linked_device = 0;             // a visible linked pair and what peer_link_info says
  int linked_peer = 0;
  PeerLinkInfo linked_info;
  std::string link_fault_entry_point;  // the call of peer_link_info(linked_peer, linked_device)
  std::uint64_t link_fault_nth = 1;    // that fails, and the start of its message
  std::string link_fault_error;
};

struct BackendProfile;
using GroundTruth = std::function<PhysicalDevices(const BackendProfile&)>;

struct BackendProfile {
  std::string name;               // "cuda_mock": appears in every test name
  std::string backend;            // "cuda", "xpu": the ACCEL_BACKEND value
  DeviceType device_type;         // DeviceType::kCUDA
  std::string device_type_name;   // "cuda", as accel::to_string(device_type)
  std::vector<ProfileVariable> environment;  // how to select the backend
  std::string error_name;         // "CUDA": how the runtime names the backend in messages
  std::string fork_message;       // ForkError::what() in a bad-fork child
  std::string visibility_variable;  // "CUDA_VISIBLE_DEVICES"
  bool on_mock = false;           // the simulated hardware (control API) or a real driver
  std::string vendor_title;       // "CUDA", "Level Zero": in the "no real device" skip

  // Ground truth (Note [Backend branches]): CUDA asks NVML (fork-safe, no cuInit); Level
  // Zero asks the loader in a throw-away child (zeInit there, never in the test's process).
  // On the mock both are also checked against the machine (mock_visible_count).
  GroundTruth physical_devices;
  // The entry point whose mock call count proves a query did not initialise the driver:
  // "cuInit" (CUDA: NVML counts), "zeInit" (Level Zero: Sysman or a probe child counts).
  std::string init_entry_point;
  // The entry points whose mock call counts show a runtime stream or event being made: CUDA
  // one cuStreamCreateWithPriority per pool stream and one cuEventCreate per event; Level Zero
  // one zeCommandListCreateImmediate per pool stream and one zeEventPoolCreate per pool of
  // event slots, made when the first event of a device is recorded (ze_streams.cpp).
  std::string stream_create_entry_point;
  std::string event_create_entry_point;
  // The entry points the expandable-segment row counts: reserving an address range, a plain
  // device allocation (an expandable segment makes none), unmapping pages. CUDA
  // cuMemAddressReserve / cuMemAlloc / cuMemUnmap; Level Zero zeVirtualMemReserve /
  // zeMemAllocDevice / zeVirtualMemUnmap.
  std::string reserve_entry_point;
  std::string device_alloc_entry_point;
  std::string unmap_entry_point;
  // elapsed_time between events of two devices: the error kind and the start of its message.
  // CUDA asks the driver, which refuses (cuEventElapsedTime: CUDA_ERROR_INVALID_HANDLE on
  // the real driver, kDriver); Level Zero kernel timestamps of two devices have no common
  // clock, so the backend refuses before asking (kValue, ze_events.cpp).
  ErrorKind elapsed_across_devices_kind = ErrorKind::kDriver;
  std::string elapsed_across_devices_message;
  PeerRows peers;
  // On the mock: how many driver init calls one successful runtime initialisation makes.
  // CUDA: one cuInit. Level Zero over loader 1.8.12: two, because the loader's first zeInit
  // calls the driver's zeInit once to check it (zelLoaderDriverCheck) and then forwards
  // the caller's (oneapi-src/level-zero 1.8.12, source/loader/ze_loader.cpp).
  std::uint64_t driver_init_calls_per_init = 1;
  // On the mock: whether the driver finished its initialisation in this process (CUDA:
  // cuInit succeeded; Level Zero: zeInit reached the driver, the control API has no finer
  // flag for it).
  std::function<bool()> mock_driver_initialized;
  // Whether init() can succeed after the driver's initialisation failed once. CUDA: yes
  // (cuInit is asked again). Level Zero over loader 1.8.12: no, the loader unloads a driver
  // whose zeInit failed and never asks it again (the same loader source), so the
  // process stays without devices.
  bool init_failure_is_retryable = true;
  // The driver code the mock's init fault uses, the name the runtime prints for it and the
  // error kind: CUDA kDriver; Level Zero kUnavailable ("No XPU devices are available"),
  // because ZE_RESULT_ERROR_UNINITIALIZED is also how a driver says it has no device.
  ErrorKind init_failure_kind = ErrorKind::kDriver;
  int init_failure_code = 0;
  std::string init_failure_name;
  // UUID text the runtime reports: prefix + the 36-character 8-4-4-4-12 form. CUDA: "GPU-"
  // (nvidia-smi's spelling); Level Zero: none (PyTorch XPU prints the 16 bytes bare).
  std::string uuid_prefix = "GPU-";
  // The device's compute capability, multiprocessor count and UUID come straight from the
  // machine file (CUDA attributes); Level Zero derives its own (tile UUIDs, EU counts), so
  // the mock comparison checks name and memory only there.
  bool properties_are_machine_attributes = true;
  // Level Zero has no stream capture (no cudaStreamBeginCapture equivalent in
  // the Level Zero API): Graph::capture_begin answers "not supported" there.
  bool has_graphs = true;
  // A second device is reached without a context switch on Level Zero (no current
  // context), so "leaving a guard creates no context" is CUDA-only.
  bool has_primary_contexts = true;
  // Visible-devices table: CUDA_VISIBLE_DEVICES rows (reorder, duplicates hide everything,
  // UUIDs, a bad entry ends the list) vs ZE_AFFINITY_MASK rows (never reorders, duplicates
  // dropped, out-of-range entries skipped, N.M entries, FLAT vs COMPOSITE).
  std::vector<VisibilityRow> visibility_rows;
  // UUIDs select devices in the visibility variable (CUDA_VISIBLE_DEVICES=GPU-...); the
  // affinity mask has no UUID syntax.
  bool visibility_accepts_uuids = true;
  // Rows (by name) that a known defect of the simulated driver makes fail on the mock: they
  // skip there, loudly, naming the defect (they still run on real drivers).
  std::map<std::string, std::string> known_mock_defects;
};

// Every profile this build knows, selected or not.
const std::vector<BackendProfile>& all_profiles();
// The profiles this process instantiates (see above). Unknown names in
// ACCEL_CONFORMANCE_PROFILE are reported on stderr and yield no profile, so the run fails
// with "no tests" rather than pass on the wrong backend.
std::vector<const BackendProfile*> selected_profiles();

// Remembers the user's values of every profile variable, once, before anything applies a
// profile (main() calls it first): each child starts from them, so one profile's defaults
// never leak into another profile's child (a real-driver profile must never inherit the
// mock driver's path from a mock profile applied earlier in the same process).
void snapshot_user_environment();
// Restores the snapshot, then applies the profile's environment (values the user set win).
// Call in the test's child before the first runtime call.
void apply_profile_environment(const BackendProfile& profile);

// The ground truth with the visibility variable unset in the asker's view.
PhysicalDevices physical_devices(const BackendProfile& profile);
// Its count; -1 with `error` set when it cannot be asked.
int physical_device_count(const BackendProfile& profile, std::string* error);
// Its UUIDs; empty with `error` set when they cannot be asked.
std::vector<std::string> physical_device_uuids(const BackendProfile& profile,
                                               std::string* error);

// On the mock: the devices this profile's backend must see on `machine`, in order, with the
// current environment's hierarchy and no visibility variable (CUDA: the NVIDIA devices;
// Level Zero: the Intel devices, each tile a device unless COMPOSITE), and what
// each must report.
struct MockDevice {
  const mockdev::DeviceSpec* card = nullptr;  // the machine-file device (the card)
  int tile = -1;                              // the tile, or -1 for a whole device
  std::uint64_t memory_bytes = 0;             // a tile has the card's memory / tiles
};
std::vector<MockDevice> mock_visible_devices(const BackendProfile& profile,
                                             const mockdev::MachineSpec& machine);
// On the mock: how many devices this profile's backend must see on `machine` with the
// current environment's hierarchy and no visibility variable (CUDA: the NVIDIA devices;
// Level Zero: the Intel devices, tiles counted as devices unless COMPOSITE).
int mock_visible_count(const BackendProfile& profile, const mockdev::MachineSpec& machine);

// Real-driver profiles: whether a real device of the vendor is there (asked once per
// process, bypassing the runtime); `why` says what was found. Always true on the mock.
bool real_hardware_present(const BackendProfile& profile, std::string* why);

}  // namespace accel::test
