// The Level Zero profiles' ground truth: what the loader itself lists, asked in a
// throw-away child (zeInit happens there, never in the test's process, whose fork state
// and call counts the tests examine), bypassing the runtime. The child unsets
// ZE_AFFINITY_MASK for itself (the physical list) and keeps ZE_FLAT_DEVICE_HIERARCHY (the
// list is in the hierarchy the test runs under). It reports over a pipe:
//   COUNT <n>
//   UUID <xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx>   (one per device, zeDeviceGet order,
//                                                 after the profile's uuid_prefix)
//   ERROR <why>
// Which driver: the first with a discrete GPU, else the first with an integrated one (the
// backend's rule, ze_backend.h).
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backend_profile.h"
#include "child_process.h"

namespace accel::test {

namespace {

std::string uuid_text(const ze_device_uuid_t& uuid, const std::string& prefix) {
  char text[64];
  const std::uint8_t* b = uuid.id;
  std::snprintf(text, sizeof text,
                "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix.c_str(), b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

std::string ze_code(ze_result_t rc) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(rc));
  return text;
}

// Runs in the probe child: the listing as text.
std::string list_devices(const std::string& prefix) {
  const char* path = std::getenv("ACCEL_LEVEL_ZERO_LOADER");
  const std::string file =
      path != nullptr && *path != '\0' ? std::string(path) : "libze_loader.so.1";
  void* loader = dlopen(file.c_str(), RTLD_NOW);
  if (loader == nullptr) {
    const char* why = dlerror();
    return "ERROR " + file + ": " + (why ? why : "dlopen failed") + "\n";
  }
  auto init = reinterpret_cast<decltype(&zeInit)>(dlsym(loader, "zeInit"));
  auto driver_get = reinterpret_cast<decltype(&zeDriverGet)>(dlsym(loader, "zeDriverGet"));
  auto device_get = reinterpret_cast<decltype(&zeDeviceGet)>(dlsym(loader, "zeDeviceGet"));
  auto properties =
      reinterpret_cast<decltype(&zeDeviceGetProperties)>(dlsym(loader, "zeDeviceGetProperties"));
  if (!init || !driver_get || !device_get || !properties) {
    return "ERROR " + file + " lacks zeInit/zeDriverGet/zeDeviceGet/zeDeviceGetProperties\n";
  }
  if (ze_result_t rc = init(ZE_INIT_FLAG_GPU_ONLY); rc != ZE_RESULT_SUCCESS) {
    // The loader found no driver with a device (or the driver's zeInit failed): for the
    // ground truth that is "no device", which is what the runtime must report too.
    return "COUNT 0\nNOTE zeInit returned " + ze_code(rc) + "\n";
  }
  std::uint32_t drivers = 0;
  if (ze_result_t rc = driver_get(&drivers, nullptr); rc != ZE_RESULT_SUCCESS) {
    return "ERROR zeDriverGet returned " + ze_code(rc) + "\n";
  }
  std::vector<ze_driver_handle_t> driver_handles(drivers);
  if (drivers > 0 && driver_get(&drivers, driver_handles.data()) != ZE_RESULT_SUCCESS) {
    return "ERROR zeDriverGet (handles) failed\n";
  }
  std::vector<std::string> chosen;
  bool chosen_discrete = false;
  for (ze_driver_handle_t driver : driver_handles) {
    std::uint32_t count = 0;
    if (device_get(driver, &count, nullptr) != ZE_RESULT_SUCCESS) continue;
    std::vector<ze_device_handle_t> devices(count);
    if (count == 0 || device_get(driver, &count, devices.data()) != ZE_RESULT_SUCCESS) continue;
    std::vector<std::string> uuids;
    bool discrete = false;
    for (ze_device_handle_t device : devices) {
      ze_device_properties_t props{};
      props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      if (ze_result_t rc = properties(device, &props); rc != ZE_RESULT_SUCCESS) {
        return "ERROR zeDeviceGetProperties returned " + ze_code(rc) + "\n";
      }
      discrete = discrete || (props.flags & ZE_DEVICE_PROPERTY_FLAG_INTEGRATED) == 0;
      uuids.push_back(uuid_text(props.uuid, prefix));
    }
    if (chosen.empty() || (discrete && !chosen_discrete)) {
      chosen = uuids;
      chosen_discrete = discrete;
    }
    if (chosen_discrete) break;
  }
  std::string out = "COUNT " + std::to_string(chosen.size()) + "\n";
  for (const std::string& uuid : chosen) out += "UUID " + uuid + "\n";
  return out;
}

}  // namespace

PhysicalDevices level_zero_ground_truth(const BackendProfile& profile) {
  // Asked once per process and hierarchy, and inherited by forked children: a child forked
  // after the runtime initialised (the fork table's poisoned children) can no longer ask
  // the driver (its pid gate refuses), and the answer is the same devices anyway.
  static auto* const kCache = new std::map<std::string, PhysicalDevices>;
  const char* hierarchy = std::getenv("ZE_FLAT_DEVICE_HIERARCHY");
  const std::string key = profile.name + "/" + (hierarchy != nullptr ? hierarchy : "<unset>");
  if (auto found = kCache->find(key); found != kCache->end()) return found->second;
  PhysicalDevices result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.error = "pipe() failed";
    return result;
  }
  const ChildStatus status = run_in_child(
      [&] {
        close(fds[0]);
        unsetenv("ZE_AFFINITY_MASK");
        const std::string text = list_devices(profile.uuid_prefix);
        ssize_t written = write(fds[1], text.data(), text.size());
        (void)written;
      },
      30);
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  if (!status.ok()) {
    result.error = "the Level Zero listing child " + status.describe();
    return result;
  }
  std::istringstream lines(text);
  std::string line;
  int count = -1;
  while (std::getline(lines, line)) {
    if (line.rfind("COUNT ", 0) == 0) count = std::atoi(line.c_str() + 6);
    if (line.rfind("UUID ", 0) == 0) result.uuids.push_back(line.substr(5));
    if (line.rfind("ERROR ", 0) == 0) result.error = line.substr(6);
    if (line.rfind("NOTE ", 0) == 0) result.error = line.substr(5);
  }
  if (count < 0 && result.error.empty()) result.error = "the listing child printed: " + text;
  if (count >= 0 && static_cast<int>(result.uuids.size()) != count) {
    result.error = "the listing child's count and UUIDs disagree: " + text;
    count = -1;
  }
  result.count = count;
  if (count >= 0) kCache->emplace(key, result);
  return result;
}

}  // namespace accel::test
