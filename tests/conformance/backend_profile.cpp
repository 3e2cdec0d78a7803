#include "backend_profile.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>

#ifndef ACCEL_CONFORMANCE_MOCK_CUDA_DRIVER
#error "ACCEL_CONFORMANCE_MOCK_CUDA_DRIVER must name the mock libcuda.so.1 (tests/conformance)"
#endif
#ifndef ACCEL_CONFORMANCE_MOCK_NVML
#error "ACCEL_CONFORMANCE_MOCK_NVML must name the mock libnvidia-ml.so.1 (tests/conformance)"
#endif

namespace accel::test {

namespace {

// PyTorch's text (torch/cuda/__init__.py, _lazy_init), with the backend's name.
std::string fork_message_for(std::string_view upper_name) {
  return "Cannot re-initialize " + std::string(upper_name) + " in forked subprocess. To use " +
         std::string(upper_name) + " with multiprocessing, you must use the 'spawn' start method";
}

BackendProfile cuda_profile(std::string name, bool on_mock) {
  BackendProfile profile;
  profile.name = std::move(name);
  profile.device_type = DeviceType::kCUDA;
  profile.device_type_name = "cuda";
  profile.error_name = "CUDA";
  profile.fork_message = fork_message_for("CUDA");
  profile.visibility_variable = "CUDA_VISIBLE_DEVICES";
  profile.on_mock = on_mock;
  profile.count_library_variable = "ACCEL_NVML_LIBRARY";
  profile.count_library_default = "libnvidia-ml.so.1";
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

}  // namespace

const std::vector<BackendProfile>& all_profiles() {
  // Level Zero adds {"level_zero_mock", ...} and {"level_zero_real", ...} here.
  static const std::vector<BackendProfile>* const kProfiles = new std::vector<BackendProfile>{
      cuda_profile("cuda_mock", /*on_mock=*/true),
      cuda_profile("cuda_real", /*on_mock=*/false),
  };
  return *kProfiles;
}

std::vector<const BackendProfile*> selected_profiles() {
  std::vector<const BackendProfile*> selected;
  const char* wanted = std::getenv("ACCEL_CONFORMANCE_PROFILE");
  if (wanted == nullptr || *wanted == '\0') {
    for (const BackendProfile& profile : all_profiles()) {
      if (profile.on_mock) selected.push_back(&profile);
    }
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

void apply_profile_environment(const BackendProfile& profile) {
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

bool load_nvml(const BackendProfile& profile, Nvml* nvml, std::string* error) {
  const char* path = std::getenv(profile.count_library_variable.c_str());
  const std::string file =
      path != nullptr && *path != '\0' ? std::string(path) : profile.count_library_default;
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* why = dlerror();
    if (error) *error = file + ": " + (why ? why : "dlopen failed");
    return false;
  }
  nvml->init = reinterpret_cast<int (*)()>(dlsym(handle, "nvmlInit_v2"));
  nvml->count = reinterpret_cast<int (*)(unsigned int*)>(dlsym(handle, "nvmlDeviceGetCount_v2"));
  nvml->handle_by_index = reinterpret_cast<int (*)(unsigned int, void**)>(
      dlsym(handle, "nvmlDeviceGetHandleByIndex_v2"));
  nvml->uuid =
      reinterpret_cast<int (*)(void*, char*, unsigned int)>(dlsym(handle, "nvmlDeviceGetUUID"));
  if (!nvml->init || !nvml->count || !nvml->handle_by_index || !nvml->uuid) {
    if (error) *error = file + ": an NVML entry point the suite needs is not exported";
    return false;
  }
  if (int rc = nvml->init(); rc != 0) {
    if (error) *error = file + ": nvmlInit_v2 returned " + std::to_string(rc);
    return false;
  }
  return true;
}

}  // namespace

namespace {
int count_devices(const Nvml& nvml, std::string* error) {
  unsigned int devices = 0;
  if (int rc = nvml.count(&devices); rc != 0) {
    if (error) *error = "nvmlDeviceGetCount_v2 returned " + std::to_string(rc);
    return -1;
  }
  return static_cast<int>(devices);
}
}  // namespace

int physical_device_count(const BackendProfile& profile, std::string* error) {
  Nvml nvml;
  return load_nvml(profile, &nvml, error) ? count_devices(nvml, error) : -1;
}

std::vector<std::string> physical_device_uuids(const BackendProfile& profile, std::string* error) {
  Nvml nvml;
  if (!load_nvml(profile, &nvml, error)) return {};
  const int count = count_devices(nvml, error);
  if (count < 0) return {};
  std::vector<std::string> uuids;
  for (int i = 0; i < count; ++i) {
    void* device = nullptr;
    char text[96] = {};
    if (int rc = nvml.handle_by_index(static_cast<unsigned int>(i), &device); rc != 0) {
      if (error) *error = "nvmlDeviceGetHandleByIndex_v2 returned " + std::to_string(rc);
      return {};
    }
    if (int rc = nvml.uuid(device, text, sizeof text); rc != 0) {
      if (error) *error = "nvmlDeviceGetUUID returned " + std::to_string(rc);
      return {};
    }
    uuids.emplace_back(text);
  }
  return uuids;
}

}  // namespace accel::test
