#include "mock_machine.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "mockdev/machine.h"

#ifndef ACCEL_TOOLS_MOCKDEV_BUILD_DIR
#define ACCEL_TOOLS_MOCKDEV_BUILD_DIR ""
#endif
#ifndef ACCEL_TOOLS_INSTALL_LIBDIR
#define ACCEL_TOOLS_INSTALL_LIBDIR "lib"
#endif
#ifndef ACCEL_TOOLS_CUDA_FACADE_NAME
#define ACCEL_TOOLS_CUDA_FACADE_NAME "libcuda.so.1"
#endif
#ifndef ACCEL_TOOLS_NVML_FACADE_NAME
#define ACCEL_TOOLS_NVML_FACADE_NAME "libnvidia-ml.so.1"
#endif

namespace accel::tools {
namespace fs = std::filesystem;

// Note [Finding the mock driver]
// The same `accel` binary runs from the build tree (tests, ci/demo) and from an installed
// prefix (a user's package). The facades are found relative to the executable first, so
// an installed copy never loads the build tree's files even when both exist, and the
// build tree's directory (compiled in) is the last resort. ACCEL_MOCKDEV_DIR overrides
// both, e.g. for a relocated package.
std::string mock_facade_directory() {
  if (const char* dir = std::getenv("ACCEL_MOCKDEV_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed =
        exe.parent_path() / ".." / ACCEL_TOOLS_INSTALL_LIBDIR / "accel" / "mockdev";
    if (fs::is_directory(installed, ec)) return fs::weakly_canonical(installed, ec).string();
  }
  return ACCEL_TOOLS_MOCKDEV_BUILD_DIR;
}

MockSelection select_mock_machine(std::string_view path_or_preset) {
  const mockdev::MachineSpec spec = mockdev::load_machine(path_or_preset);

  MockSelection selection;
  selection.machine = std::string(path_or_preset);
  selection.source = spec.source;
  selection.device_count = static_cast<int>(spec.devices.size());
  selection.facade_dir = mock_facade_directory();
  const fs::path dir(selection.facade_dir);
  selection.driver_path = (dir / ACCEL_TOOLS_CUDA_FACADE_NAME).string();
  selection.nvml_path = (dir / ACCEL_TOOLS_NVML_FACADE_NAME).string();

  std::error_code ec;
  for (const std::string& file : {selection.driver_path, selection.nvml_path}) {
    if (!fs::is_regular_file(file, ec)) {
      throw std::runtime_error("--machine: mock driver file not found (path=" + file +
                               "); build the mockdev facades or set ACCEL_MOCKDEV_DIR");
    }
  }

  // Overwrite: --machine means "this machine", whatever the shell had exported.
  ::setenv("MOCKDEV_MACHINE", selection.machine.c_str(), 1);
  ::setenv("ACCEL_CUDA_DRIVER", selection.driver_path.c_str(), 1);
  ::setenv("ACCEL_NVML_LIBRARY", selection.nvml_path.c_str(), 1);
  return selection;
}

std::string describe_presets() {
  std::ostringstream out;
  for (const std::string& name : mockdev::preset_names()) {
    out << name;
    for (std::size_t pad = name.size(); pad < 10; ++pad) out << ' ';
    try {
      const mockdev::MachineSpec spec = mockdev::load_machine(name);
      out << spec.devices.size() << (spec.devices.size() == 1 ? " device" : " devices");
      // Group equal names: "4 x NVIDIA H100 80GB HBM3".
      std::map<std::string, int> counts;
      std::vector<std::string> order;
      for (const mockdev::DeviceSpec& device : spec.devices) {
        if (counts[device.name]++ == 0) order.push_back(device.name);
      }
      for (std::size_t i = 0; i < order.size(); ++i) {
        out << (i == 0 ? ": " : ", ") << counts[order[i]] << " x " << order[i];
      }
    } catch (const std::exception& e) {
      out << "(unreadable: " << e.what() << ")";
    }
    out << '\n';
  }
  return out.str();
}

}  // namespace accel::tools
