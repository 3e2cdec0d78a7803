// accel_ze_rules_probe: asks a Level Zero stack (the loader and whatever driver it finds) how
// it answers the rules the mock driver encodes that are marked [inferred] or that
// docs/HARDWARE.md lists as open, so a run on real Intel hardware settles
// them (ci/hardware; docs/HARDWARE.md). Written only against the loader API, opened at run
// time (ACCEL_LEVEL_ZERO_LOADER, default libze_loader.so.1), so it builds without libze1.
//
// Every row runs in a fresh child (the driver reads ZE_AFFINITY_MASK and
// ZE_FLAT_DEVICE_HIERARCHY once, at zeInit). Devices are named by what they are
// physically, cNtM (card N, tile M) or cN (a whole card), from a COMPOSITE listing made
// first, so rows compare across machines. Output: one line per row, stable (no pointers,
// no times), "name: answer".
//
// Rows:
//   mask.<hierarchy>.<mask>     zeInit result and what zeDeviceGet returns
//   subdevices.<hierarchy>      sub-device counts and the SUBDEVICE flag
//   flat_order                  FLAT order equals card-major, tile-minor
//   timers                      timerResolution (both stypes), valid bits
//   fork.child_zeinit           zeInit and zeDriverGet in a child forked after init
//   sysman.zesinit              whether the loader exports zesInit
// Exit status 0 when it ran (whatever the answers), 2 when no Level Zero driver answered.

#include <dlfcn.h>
#include <level_zero/ze_api.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

struct Loader {
  decltype(&zeInit) init = nullptr;
  decltype(&zeDriverGet) driver_get = nullptr;
  decltype(&zeDeviceGet) device_get = nullptr;
  decltype(&zeDeviceGetSubDevices) sub_devices = nullptr;
  decltype(&zeDeviceGetProperties) properties = nullptr;
  void* handle = nullptr;
  std::string error;
};

Loader open_loader() {
  Loader loader;
  const char* path = std::getenv("ACCEL_LEVEL_ZERO_LOADER");
  const std::string file =
      path != nullptr && *path != '\0' ? std::string(path) : "libze_loader.so.1";
  loader.handle = dlopen(file.c_str(), RTLD_NOW);
  if (loader.handle == nullptr) {
    const char* why = dlerror();
    loader.error = file + ": " + (why ? why : "dlopen failed");
    return loader;
  }
  auto get = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(loader.handle, name));
    if (slot == nullptr) loader.error += std::string(loader.error.empty() ? "" : ", ") + name;
  };
  get(loader.init, "zeInit");
  get(loader.driver_get, "zeDriverGet");
  get(loader.device_get, "zeDeviceGet");
  get(loader.sub_devices, "zeDeviceGetSubDevices");
  get(loader.properties, "zeDeviceGetProperties");
  if (!loader.error.empty()) loader.error = file + " lacks " + loader.error;
  return loader;
}

std::string hex(ze_result_t rc) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", static_cast<unsigned>(rc));
  return rc == ZE_RESULT_SUCCESS ? "SUCCESS" : text;
}

std::string uuid_key(const ze_device_properties_t& props) {
  std::string text;
  char byte[4];
  for (std::uint8_t b : props.uuid.id) {
    std::snprintf(byte, sizeof byte, "%02x", b);
    text += byte;
  }
  return text;
}

// Runs `body` in a child with `environment` applied; returns what it printed (one line).
template <typename Body>
std::string in_child(const std::vector<std::pair<const char*, const char*>>& environment,
                     Body body) {
  int fds[2];
  if (pipe(fds) != 0) return "pipe failed";
  std::fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(60);
    for (const auto& [name, value] : environment) {
      if (value != nullptr) {
        setenv(name, value, 1);
      } else {
        unsetenv(name);
      }
    }
    const std::string text = body();
    ssize_t written = write(fds[1], text.data(), text.size());
    (void)written;
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    text += WIFSIGNALED(status) ? " (child killed by signal " + std::to_string(WTERMSIG(status)) + ")"
                                : " (child exit " + std::to_string(WEXITSTATUS(status)) + ")";
  }
  return text;
}

// The devices of the first driver, in zeDeviceGet order.
bool first_driver_devices(const Loader& l, std::vector<ze_device_handle_t>* devices,
                          std::string* why) {
  const ze_result_t rc = l.init(ZE_INIT_FLAG_GPU_ONLY);
  if (rc != ZE_RESULT_SUCCESS) {
    *why = "zeInit " + hex(rc);
    return false;
  }
  std::uint32_t drivers = 0;
  l.driver_get(&drivers, nullptr);
  if (drivers == 0) {
    *why = "no driver";
    return false;
  }
  std::vector<ze_driver_handle_t> driver(drivers);
  l.driver_get(&drivers, driver.data());
  std::uint32_t count = 0;
  l.device_get(driver[0], &count, nullptr);
  devices->resize(count);
  if (count > 0) l.device_get(driver[0], &count, devices->data());
  return true;
}

ze_device_properties_t properties_of(const Loader& l, ze_device_handle_t device) {
  ze_device_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  l.properties(device, &props);
  return props;
}

// uuid -> cN / cNtM, from a COMPOSITE listing in a child: "uuid=name;" pairs.
std::map<std::string, std::string> physical_names(const Loader& l) {
  const std::string text = in_child({{"ZE_AFFINITY_MASK", nullptr},
                                     {"ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE"}},
                                    [&l]() -> std::string {
    std::vector<ze_device_handle_t> cards;
    std::string why;
    if (!first_driver_devices(l, &cards, &why)) return "";
    std::string out;
    for (std::size_t c = 0; c < cards.size(); ++c) {
      out += uuid_key(properties_of(l, cards[c])) + "=c" + std::to_string(c) + ";";
      std::uint32_t tiles = 0;
      l.sub_devices(cards[c], &tiles, nullptr);
      std::vector<ze_device_handle_t> tile(tiles);
      if (tiles > 0) l.sub_devices(cards[c], &tiles, tile.data());
      for (std::uint32_t t = 0; t < tiles; ++t) {
        out += uuid_key(properties_of(l, tile[t])) + "=c" + std::to_string(c) + "t" +
               std::to_string(t) + ";";
      }
    }
    return out;
  });
  std::map<std::string, std::string> names;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find(';', start);
    if (end == std::string::npos) break;
    const std::string pair = text.substr(start, end - start);
    const std::size_t eq = pair.find('=');
    if (eq != std::string::npos) names[pair.substr(0, eq)] = pair.substr(eq + 1);
    start = end + 1;
  }
  return names;
}

std::string name_of(const std::map<std::string, std::string>& names,
                    const ze_device_properties_t& props) {
  const auto found = names.find(uuid_key(props));
  return found != names.end() ? found->second : "uuid:" + uuid_key(props);
}

void mask_row(const Loader& l, const std::map<std::string, std::string>& names,
              const char* hierarchy, const char* mask) {
  const std::string text = in_child(
      {{"ZE_AFFINITY_MASK", mask}, {"ZE_FLAT_DEVICE_HIERARCHY", hierarchy}},
      [&]() -> std::string {
        std::vector<ze_device_handle_t> devices;
        std::string why;
        if (!first_driver_devices(l, &devices, &why)) return why;
        std::string out = std::to_string(devices.size()) + " [";
        for (std::size_t i = 0; i < devices.size(); ++i) {
          out += (i ? " " : "") + name_of(names, properties_of(l, devices[i]));
          std::uint32_t subs = 0;
          l.sub_devices(devices[i], &subs, nullptr);
          if (subs > 0) out += "(" + std::to_string(subs) + " subs)";
        }
        return out + "]";
      });
  std::printf("mask.%s.'%s': %s\n", hierarchy, mask == nullptr ? "<unset>" : mask, text.c_str());
}

}  // namespace

int main() {
  const Loader l = open_loader();
  if (!l.error.empty()) {
    std::printf("loader: %s\nno Level Zero loader: skipped\n", l.error.c_str());
    return 2;
  }
  const std::map<std::string, std::string> names = physical_names(l);
  if (names.empty()) {
    std::printf("no Level Zero driver with a GPU answered zeInit: skipped\n");
    return 2;
  }
  std::printf("physical devices (COMPOSITE listing): %zu cards and tiles\n", names.size());

  // The Programming Guide's affinity-mask examples and Intel's parser's grammar, in both
  // hierarchies (non-numeric entries included: their answer is open).
  const char* masks[] = {nullptr, "", "0", "1", "0,1", "1,0", "0,0", "0.1", "1.1,1.0",
                         "3", "2,0", "0, 1", "1,-1,0", "0x1", "0,3000000000", "a", "0,a,1"};
  for (const char* hierarchy : {"COMPOSITE", "FLAT", "COMBINED"}) {
    for (const char* mask : masks) mask_row(l, names, hierarchy, mask);
  }

  // Sub-device counts per hierarchy, and the SUBDEVICE flag on zeDeviceGet's devices.
  for (const char* hierarchy : {"COMPOSITE", "FLAT", "COMBINED"}) {
    const std::string text = in_child(
        {{"ZE_AFFINITY_MASK", nullptr}, {"ZE_FLAT_DEVICE_HIERARCHY", hierarchy}},
        [&]() -> std::string {
          std::vector<ze_device_handle_t> devices;
          std::string why;
          if (!first_driver_devices(l, &devices, &why)) return why;
          std::string out;
          for (ze_device_handle_t device : devices) {
            const ze_device_properties_t props = properties_of(l, device);
            std::uint32_t subs = 0;
            l.sub_devices(device, &subs, nullptr);
            out += name_of(names, props) + ":subs=" + std::to_string(subs) +
                   ((props.flags & ZE_DEVICE_PROPERTY_FLAG_SUBDEVICE) ? ",SUBDEVICE " : " ");
          }
          return out;
        });
    std::printf("subdevices.%s: %s\n", hierarchy, text.c_str());
  }

  // Timer resolution in both units, valid bits.
  const std::string timers = in_child({{"ZE_AFFINITY_MASK", nullptr}}, [&]() -> std::string {
    std::vector<ze_device_handle_t> devices;
    std::string why;
    if (!first_driver_devices(l, &devices, &why) || devices.empty()) return why;
    ze_device_properties_t v1 = properties_of(l, devices[0]);
    ze_device_properties_t v12{};
    v12.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2;
    l.properties(devices[0], &v12);
    char text[256];
    std::snprintf(text, sizeof text,
                  "timerResolution %llu (DEVICE_PROPERTIES: ns), %llu (_1_2: cycles/s), "
                  "timestampValidBits %u, kernelTimestampValidBits %u",
                  static_cast<unsigned long long>(v1.timerResolution),
                  static_cast<unsigned long long>(v12.timerResolution), v1.timestampValidBits,
                  v1.kernelTimestampValidBits);
    return text;
  });
  std::printf("timers: %s\n", timers.c_str());

  // A child forked after the parent's zeInit (in a child of its own, so this
  // process stays uninitialised).
  const std::string fork_row = in_child({{"ZE_AFFINITY_MASK", nullptr}}, [&]() -> std::string {
    std::vector<ze_device_handle_t> devices;
    std::string why;
    if (!first_driver_devices(l, &devices, &why)) return "parent: " + why;
    return "parent " + std::to_string(devices.size()) + " devices; child: " +
           in_child({}, [&]() -> std::string {
             const ze_result_t rc = l.init(ZE_INIT_FLAG_GPU_ONLY);
             std::uint32_t drivers = 0;
             const ze_result_t get = l.driver_get(&drivers, nullptr);
             return "zeInit " + hex(rc) + ", zeDriverGet " + hex(get) + " count " +
                    std::to_string(drivers);
           });
  });
  std::printf("fork.child_zeinit: %s\n", fork_row.c_str());

  std::printf("sysman.zesinit: %s\n",
              dlsym(l.handle, "zesInit") != nullptr ? "exported by the loader"
                                                    : "not exported (loader < 1.9)");
  return 0;
}
