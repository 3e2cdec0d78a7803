#include "backend_profile.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>

#include "child_process.h"
#include "mockdev/control.h"

#ifndef ACCEL_CONFORMANCE_MOCK_CUDA_DRIVER
#error "ACCEL_CONFORMANCE_MOCK_CUDA_DRIVER must name the mock libcuda.so.1 (tests/conformance)"
#endif
#ifndef ACCEL_CONFORMANCE_MOCK_NVML
#error "ACCEL_CONFORMANCE_MOCK_NVML must name the mock libnvidia-ml.so.1 (tests/conformance)"
#endif

namespace accel::test {

PhysicalDevices nvml_ground_truth(const BackendProfile& profile);        // below
PhysicalDevices level_zero_ground_truth(const BackendProfile& profile);  // ground_truth_ze.cpp

namespace {

// PyTorch's text (torch/cuda/__init__.py, torch/xpu/__init__.py: _lazy_init), with the
// backend's name.
std::string fork_message_for(std::string_view upper_name) {
  return "Cannot re-initialize " + std::string(upper_name) + " in forked subprocess. To use " +
         std::string(upper_name) + " with multiprocessing, you must use the 'spawn' start method";
}

// CUDA_VISIBLE_DEVICES (torch/cuda/__init__.py, PyTorch's _parse_visible_devices): the
// list keeps its order, a duplicate hides everything, the first bad entry ends the list.
std::vector<VisibilityRow> cuda_visibility_rows() {
  return {
      {"reordered_ordinals", "1,0", {1, 0}, 2, {}, "the list's order is the visible order"},
      {"duplicate_hides_every_device", "0,0", {}, 1, {}, "a duplicate ordinal hides everything"},
      {"negative_ends_the_list", "1,-1,0", {1}, 2, {}, "a negative ordinal ends the list"},
      {"empty_hides_every_device", "", {}, 1, {}, "an empty value hides every device"},
      {"past_the_last_device_ends_the_list",
       "1,<N>,0",
       {1},
       2,
       {},
       "the first ordinal that is not a device ends the list"},
      // A regression row: a parser that saturates ordinals at INT_MAX sees two distinct
      // out-of-range ordinals as duplicates (count 0 before init, 1 after).
      {"huge_distinct_ordinals_are_not_duplicates",
       "0,3000000000,4000000000",
       {0},
       1,
       {},
       "an out-of-range ordinal ends the list; it is not a duplicate"},
  };
}

#ifdef ACCEL_CONFORMANCE_MOCK_LEVEL_ZERO_DRIVER
// ZE_AFFINITY_MASK (Level Zero Programming Guide; torch/xpu/__init__.py): applied by the
// driver in the hierarchy in force; it never reorders, drops duplicates, skips entries that
// are out of range instead of ending the list, and an empty value shows everything.
// Indices below are into the ground truth listed in the row's own environment (tiles in
// FLAT, cards in COMPOSITE).
std::vector<VisibilityRow> level_zero_visibility_rows() {
  const std::vector<std::pair<std::string, std::string>> composite = {
      {"ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE"}};
  return {
      {"mask_never_reorders", "1,0", {0, 1}, 2, {}, "D-6: the mask's order never reorders"},
      {"duplicate_is_dropped",
       "0,0",
       {0},
       1,
       {},
       "D-6/§3.6: a duplicate entry is dropped (CUDA hides everything instead)"},
      {"negative_is_skipped",
       "1,-1,0",
       {0, 1},
       2,
       {},
       "D-8/§3.6: a negative entry is skipped, not a terminator"},
      {"empty_shows_every_device", "", {-1}, 1, {}, "D-6: an empty mask shows every device"},
      {"past_the_last_device_is_skipped",
       "1,<N>,0",
       {0, 1},
       2,
       {},
       "D-8: an out-of-range entry is skipped, the rest stays"},
      {"huge_ordinals_are_skipped",
       "0,3000000000,4000000000",
       {0},
       1,
       {},
       "D-8: out-of-range entries are skipped"},
      {"spaces_after_commas", "0, 2", {0, 2}, 3, {}, "D-6: spaces after commas are tolerated"},
      {"tile_entry_is_invalid_in_flat",
       "0.1",
       {},
       1,
       {{"ZE_FLAT_DEVICE_HIERARCHY", "FLAT"}},
       "D-7/D-9: N.M entries are skipped in FLAT; nothing left is visible"},
      {"composite_card_index", "1", {1}, 2, composite, "D-7: in COMPOSITE N is a card"},
      {"composite_out_of_range_card_skipped",
       "2,0",
       {0},
       1,
       composite,
       "D-9: card 2 does not exist, card 0 stays"},
      {"composite_tiles_of_one_card",
       "1.1,1.0",
       {1},
       2,
       composite,
       "D-9: both tiles of card 1 make card 1 visible as index 0"},
  };
}

#endif

BackendProfile cuda_profile(std::string name, bool on_mock) {
  BackendProfile profile;
  profile.name = std::move(name);
  profile.backend = "cuda";
  profile.device_type = DeviceType::kCUDA;
  profile.device_type_name = "cuda";
  profile.error_name = "CUDA";
  profile.fork_message = fork_message_for("CUDA");
  profile.visibility_variable = "CUDA_VISIBLE_DEVICES";
  profile.on_mock = on_mock;
  profile.vendor_title = "CUDA";
  profile.physical_devices = nvml_ground_truth;
  profile.init_entry_point = "cuInit";
  profile.stream_create_entry_point = "cuStreamCreateWithPriority";
  profile.event_create_entry_point = "cuEventCreate";
  profile.reserve_entry_point = "cuMemAddressReserve";
  profile.device_alloc_entry_point = "cuMemAlloc";
  profile.unmap_entry_point = "cuMemUnmap";
  profile.elapsed_across_devices_message = "event_elapsed_time: cuEventElapsedTime: CUDA error: ";
  profile.peers.query_entry_point = "cuDeviceCanAccessPeer";
  profile.peers.diagonal_asks_driver = true;
  profile.peers.fault_code = 999;  // CUDA_ERROR_UNKNOWN
  profile.peers.query_error = "can_device_access_peer: cuDeviceCanAccessPeer: CUDA error:";
  profile.peers.no_peer_machine = "mixed";
  // Physical 0-1 linked (NVLink), 2 alone; visible 2,0,1 -> 0 = phys 2, 1 = phys 0, 2 = phys 1.
  profile.peers.topology_machine = ACCEL_CONFORMANCE_DATA_DIR "/peers_3gpu.yaml";
  profile.peers.topology_visibility = "2,0,1";
  profile.peers.topology_matrix = {{0, 1, false}, {0, 2, false}, {1, 2, true}, {2, 1, true}};
  profile.peers.linked_device = 1;
  profile.peers.linked_peer = 2;
  profile.peers.linked_info = PeerLinkInfo{true, true, 0};  // NVLink: rank 0, native atomics
  // The second attribute asked (access, then atomics) fails.
  profile.peers.link_fault_entry_point = "cuDeviceGetP2PAttribute";
  profile.peers.link_fault_nth = 2;
  profile.peers.link_fault_error =
      "peer_link_info: cuDeviceGetP2PAttribute(NATIVE_ATOMIC_SUPPORTED, peer=1): ";
  profile.mock_driver_initialized = [] { return mockdev::control::driver_initialized(); };
  profile.init_failure_code = 999;  // CUDA_ERROR_UNKNOWN
  profile.init_failure_name = "CUDA_ERROR_UNKNOWN";
  profile.visibility_rows = cuda_visibility_rows();
  profile.environment.push_back({"ACCEL_BACKEND", "cuda"});
  if (on_mock) {
    // The same variables cmake/backend_environment.cmake sets for ctest; the defaults are
    // this build tree's facades, so the binary also runs by hand.
    profile.environment.push_back({"ACCEL_CUDA_DRIVER", ACCEL_CONFORMANCE_MOCK_CUDA_DRIVER});
    profile.environment.push_back({"ACCEL_NVML_LIBRARY", ACCEL_CONFORMANCE_MOCK_NVML});
    profile.environment.push_back({"MOCKDEV_MACHINE", "4xh100"});
  } else {
    // The system's driver: ACCEL_CUDA_DRIVER / ACCEL_NVML_LIBRARY only when the user set
    // them (e.g. a driver outside the loader path).
    profile.environment.push_back({"ACCEL_CUDA_DRIVER", std::nullopt});
    profile.environment.push_back({"ACCEL_NVML_LIBRARY", std::nullopt});
  }
  return profile;
}

#ifdef ACCEL_CONFORMANCE_MOCK_LEVEL_ZERO_DRIVER
BackendProfile xpu_profile(std::string name, bool on_mock) {
  BackendProfile profile;
  profile.name = std::move(name);
  profile.backend = "xpu";
  profile.device_type = DeviceType::kXPU;
  profile.device_type_name = "xpu";
  profile.error_name = "XPU";
  profile.fork_message = fork_message_for("XPU");
  profile.visibility_variable = "ZE_AFFINITY_MASK";
  profile.on_mock = on_mock;
  profile.vendor_title = "Level Zero";
  profile.physical_devices = level_zero_ground_truth;
  profile.init_entry_point = "zeInit";
  profile.stream_create_entry_point = "zeCommandListCreateImmediate";
  profile.event_create_entry_point = "zeEventPoolCreate";
  profile.reserve_entry_point = "zeVirtualMemReserve";
  profile.device_alloc_entry_point = "zeMemAllocDevice";
  profile.unmap_entry_point = "zeVirtualMemUnmap";
  profile.elapsed_across_devices_kind = ErrorKind::kValue;
  profile.elapsed_across_devices_message =
      "event_elapsed_time: the events belong to devices 0 and 1; timestamps of two devices "
      "cannot be compared";
  profile.peers.query_entry_point = "zeDeviceCanAccessPeer";
  profile.peers.diagonal_asks_driver = false;
  profile.peers.fault_code = 0x7ffffffe;  // ZE_RESULT_ERROR_UNKNOWN
  profile.peers.query_error =
      "can_device_access_peer: zeDeviceCanAccessPeer (peer=0): Level Zero error "
      "ZE_RESULT_ERROR_UNKNOWN";
  profile.peers.no_peer_machine = ACCEL_CONFORMANCE_DATA_DIR "/no_peers_2xpu.yaml";
  // Physical 1-3 linked (PCIe); the mask never reorders: 1,2,3 -> 0 = phys 1, 1 = phys 2,
  // 2 = phys 3.
  profile.peers.topology_machine = ACCEL_CONFORMANCE_DATA_DIR "/peers_4xpu.yaml";
  profile.peers.topology_visibility = "1,2,3";
  profile.peers.topology_matrix = {{0, 1, false}, {1, 2, false}, {0, 2, true}, {2, 0, true}};
  profile.peers.linked_device = 0;
  profile.peers.linked_peer = 2;
  // Level Zero reports access and atomics, no rank; a PCIe link has no native atomics.
  profile.peers.linked_info = PeerLinkInfo{true, false, std::nullopt};
  profile.peers.link_fault_entry_point = "zeDeviceGetP2PProperties";
  profile.peers.link_fault_nth = 1;
  profile.peers.link_fault_error =
      "peer_link_info: zeDeviceGetP2PProperties (peer=0): Level Zero error ";
  profile.mock_driver_initialized = [] { return mockdev::control::call_count("zeInit") > 0; };
  profile.init_failure_is_retryable = false;
  profile.driver_init_calls_per_init = 2;
  profile.init_failure_code = 0x78000001;  // ZE_RESULT_ERROR_UNINITIALIZED
  profile.init_failure_name = "ZE_RESULT_ERROR_UNINITIALIZED";
  profile.init_failure_kind = ErrorKind::kUnavailable;
  // Level Zero has no stream capture: Graph::capture_begin is kUnsupported (the Level Zero
  // API has no capture; PyTorch XPU graphs are not in the torch.accelerator surface either).
  profile.has_graphs = false;
  profile.properties_are_machine_attributes = false;
  profile.uuid_prefix = "";
  // Level Zero has no current context: selecting a device creates nothing (the backend
  // records the index per thread, ze_backend.h).
  profile.has_primary_contexts = false;
  profile.visibility_rows = level_zero_visibility_rows();
  profile.visibility_accepts_uuids = false;
  profile.environment.push_back({"ACCEL_BACKEND", "xpu"});
  if (on_mock) {
    // Two 2-tile Data Center GPU Max 1550 cards; FLAT by default: 4 devices.
    profile.environment.push_back(
        {"ZE_ENABLE_ALT_DRIVERS", ACCEL_CONFORMANCE_MOCK_LEVEL_ZERO_DRIVER});
    profile.environment.push_back({"MOCKDEV_MACHINE", "2xmax1550"});
  } else {
    // The system's Level Zero drivers as the loader finds them; ACCEL_LEVEL_ZERO_LOADER
    // only when the user set it.
    profile.environment.push_back({"ACCEL_LEVEL_ZERO_LOADER", std::nullopt});
  }
  return profile;
}
#endif

}  // namespace

const std::vector<BackendProfile>& all_profiles() {
  static const std::vector<BackendProfile>* const kProfiles = new std::vector<BackendProfile>{
      cuda_profile("cuda_mock", /*on_mock=*/true),
#ifdef ACCEL_CONFORMANCE_MOCK_LEVEL_ZERO_DRIVER
      xpu_profile("xpu_mock", /*on_mock=*/true),
#endif
      cuda_profile("cuda_real", /*on_mock=*/false),
#ifdef ACCEL_CONFORMANCE_MOCK_LEVEL_ZERO_DRIVER
      xpu_profile("xpu_real", /*on_mock=*/false),
#endif
  };
  return *kProfiles;
}

std::vector<const BackendProfile*> selected_profiles() {
  std::vector<const BackendProfile*> selected;
  const char* wanted = std::getenv("ACCEL_CONFORMANCE_PROFILE");
  if (wanted == nullptr || *wanted == '\0') {
    for (const BackendProfile& profile : all_profiles()) selected.push_back(&profile);
    return selected;
  }
  std::string_view list(wanted);
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view name = list.substr(0, comma);
    bool found = false;
    for (const BackendProfile& profile : all_profiles()) {
      if (profile.name == name) {
        selected.push_back(&profile);
        found = true;
      }
    }
    if (!found) {
      std::fprintf(stderr, "ACCEL_CONFORMANCE_PROFILE: unknown profile '%.*s' (known:",
                   static_cast<int>(name.size()), name.data());
      for (const BackendProfile& profile : all_profiles()) {
        std::fprintf(stderr, " %s", profile.name.c_str());
      }
      std::fprintf(stderr, ")\n");
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return selected;
}

namespace {
// The user's values of every profile variable (nullopt: unset), taken once.
std::map<std::string, std::optional<std::string>>& user_environment() {
  static auto* const kSnapshot = new std::map<std::string, std::optional<std::string>>;
  return *kSnapshot;
}
bool g_snapshot_taken = false;
}  // namespace

void snapshot_user_environment() {
  if (g_snapshot_taken) return;
  g_snapshot_taken = true;
  for (const BackendProfile& profile : all_profiles()) {
    for (const ProfileVariable& variable : profile.environment) {
      const char* value = std::getenv(variable.name.c_str());
      user_environment()[variable.name] =
          value != nullptr ? std::optional<std::string>(value) : std::nullopt;
    }
  }
}

void apply_profile_environment(const BackendProfile& profile) {
  for (const auto& [name, value] : user_environment()) {
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
  for (const ProfileVariable& variable : profile.environment) {
    if (variable.default_value) {
      setenv(variable.name.c_str(), variable.default_value->c_str(), /*overwrite=*/0);
    }
  }
}

namespace {

// The few NVML entry points the suite asks directly (nvmlReturn_t is int-sized; 0 is
// NVML_SUCCESS), declared here so the suite does not depend on the project's ABI header.
struct Nvml {
  int (*init)() = nullptr;
  int (*count)(unsigned int*) = nullptr;
  int (*handle_by_index)(unsigned int, void**) = nullptr;
  int (*uuid)(void*, char*, unsigned int) = nullptr;
};

bool load_nvml(Nvml* nvml, std::string* error) {
  const char* path = std::getenv("ACCEL_NVML_LIBRARY");
  const std::string file =
      path != nullptr && *path != '\0' ? std::string(path) : "libnvidia-ml.so.1";
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    *error = file + ": " + (why ? why : "dlopen failed");
    return false;
  }
  nvml->init = reinterpret_cast<int (*)()>(dlsym(handle, "nvmlInit_v2"));
  nvml->count = reinterpret_cast<int (*)(unsigned int*)>(dlsym(handle, "nvmlDeviceGetCount_v2"));
  nvml->handle_by_index = reinterpret_cast<int (*)(unsigned int, void**)>(
      dlsym(handle, "nvmlDeviceGetHandleByIndex_v2"));
  nvml->uuid =
      reinterpret_cast<int (*)(void*, char*, unsigned int)>(dlsym(handle, "nvmlDeviceGetUUID"));
  if (!nvml->init || !nvml->count || !nvml->handle_by_index || !nvml->uuid) {
    *error = file + ": an NVML entry point the suite needs is not exported";
    return false;
  }
  if (int rc = nvml->init(); rc != 0) {
    *error = file + ": nvmlInit_v2 returned " + std::to_string(rc);
    return false;
  }
  return true;
}

}  // namespace

// NVML is fork-safe and never initialises the CUDA driver: asked in the caller's process.
PhysicalDevices nvml_ground_truth(const BackendProfile&) {
  PhysicalDevices result;
  Nvml nvml;
  if (!load_nvml(&nvml, &result.error)) return result;
  unsigned int devices = 0;
  if (int rc = nvml.count(&devices); rc != 0) {
    result.error = "nvmlDeviceGetCount_v2 returned " + std::to_string(rc);
    return result;
  }
  for (unsigned int i = 0; i < devices; ++i) {
    void* device = nullptr;
    char text[96] = {};
    if (int rc = nvml.handle_by_index(i, &device); rc != 0) {
      result.error = "nvmlDeviceGetHandleByIndex_v2 returned " + std::to_string(rc);
      return result;
    }
    if (int rc = nvml.uuid(device, text, sizeof text); rc != 0) {
      result.error = "nvmlDeviceGetUUID returned " + std::to_string(rc);
      return result;
    }
    result.uuids.emplace_back(text);
  }
  result.count = static_cast<int>(devices);
  return result;
}

PhysicalDevices physical_devices(const BackendProfile& profile) {
  // The visibility variable is unset in the asker's view only: NVML ignores it anyway, and
  // the Level Zero probe is a child that unsets it for itself.
  return profile.physical_devices(profile);
}

int physical_device_count(const BackendProfile& profile, std::string* error) {
  const PhysicalDevices devices = physical_devices(profile);
  if (devices.count < 0 && error != nullptr) *error = devices.error;
  return devices.count;
}

std::vector<std::string> physical_device_uuids(const BackendProfile& profile, std::string* error) {
  PhysicalDevices devices = physical_devices(profile);
  if (devices.count < 0 && error != nullptr) *error = devices.error;
  return devices.count < 0 ? std::vector<std::string>{} : std::move(devices.uuids);
}

std::vector<MockDevice> mock_visible_devices(const BackendProfile& profile,
                                             const mockdev::MachineSpec& machine) {
  const bool level_zero = profile.backend == "xpu";
  std::string hierarchy = machine.level_zero.default_hierarchy;
  if (const char* value = std::getenv("ZE_FLAT_DEVICE_HIERARCHY");
      value != nullptr &&
      (std::string_view(value) == "COMPOSITE" || std::string_view(value) == "FLAT" ||
       std::string_view(value) == "COMBINED")) {
    hierarchy = value;  // any other value falls back to the default
  }
  std::vector<MockDevice> devices;
  for (const mockdev::DeviceSpec& device : machine.devices) {
    if (!level_zero) {
      if (device.vendor == mockdev::Vendor::kNvidia) {
        devices.push_back({&device, -1, device.memory_bytes});
      }
    } else if (device.vendor == mockdev::Vendor::kIntel) {
      if (device.tiles > 0 && hierarchy != "COMPOSITE") {
        for (int tile = 0; tile < device.tiles; ++tile) {
          devices.push_back({&device, tile, device.memory_bytes / device.tiles});
        }
      } else {
        devices.push_back({&device, -1, device.memory_bytes});
      }
    }
  }
  return devices;
}

int mock_visible_count(const BackendProfile& profile, const mockdev::MachineSpec& machine) {
  return static_cast<int>(mock_visible_devices(profile, machine).size());
}

bool real_hardware_present(const BackendProfile& profile, std::string* why) {
  if (profile.on_mock) return true;
  static std::map<std::string, std::pair<bool, std::string>>* const kAnswers =
      new std::map<std::string, std::pair<bool, std::string>>;
  if (auto found = kAnswers->find(profile.name); found != kAnswers->end()) {
    *why = found->second.second;
    return found->second.first;
  }
  bool present = false;
  std::string answer;
  // Asked in a throw-away child with the profile's environment, so neither the test
  // process's environment nor its driver state changes.
  int fds[2];
  if (pipe(fds) != 0) {
    *why = "pipe() failed";
    return false;
  }
  const ChildStatus status = run_in_child(
      [&] {
        close(fds[0]);
        apply_profile_environment(profile);
        std::string text;
        // A real-driver profile must never be answered by the simulated hardware.
        const char* alt = std::getenv("ZE_ENABLE_ALT_DRIVERS");
        const char* cuda = std::getenv("ACCEL_CUDA_DRIVER");
        const char* nvml = std::getenv("ACCEL_NVML_LIBRARY");
        if (profile.backend == "xpu" && alt != nullptr && *alt != '\0') {
          text = "0ZE_ENABLE_ALT_DRIVERS is set (" + std::string(alt) +
                 "): that is not the system's Level Zero driver";
        } else if (profile.backend == "cuda" &&
                   ((cuda != nullptr &&
                     std::string_view(cuda) == ACCEL_CONFORMANCE_MOCK_CUDA_DRIVER) ||
                    (nvml != nullptr && std::string_view(nvml) == ACCEL_CONFORMANCE_MOCK_NVML))) {
          text = "0ACCEL_CUDA_DRIVER/ACCEL_NVML_LIBRARY name the simulated driver";
        } else {
          const PhysicalDevices devices = profile.physical_devices(profile);
          if (devices.count > 0) {
            text = "1" + std::to_string(devices.count) +
                   " device(s): " + (devices.uuids.empty() ? std::string() : devices.uuids.front());
          } else if (devices.count == 0) {
            text = "0the driver reports no device";
          } else {
            text = "0" + devices.error;
          }
        }
        ssize_t written = write(fds[1], text.data(), text.size());
        (void)written;
      },
      30);
  close(fds[1]);
  char buffer[600];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) answer.append(buffer, n);
  close(fds[0]);
  if (!status.ok() || answer.empty()) {
    present = false;
    answer = "the hardware probe child " + status.describe();
  } else {
    present = answer[0] == '1';
    answer.erase(0, 1);
  }
  kAnswers->emplace(profile.name, std::make_pair(present, answer));
  *why = answer;
  return present;
}

}  // namespace accel::test
