// The built-in machines (preset_names, preset_yaml in mockdev/machine.h). They are ordinary
// machine-file text, parsed by the same code as a file, so a preset can never hold
// something a file could not. scenarios/machines/ carries the same machines as files.

#include <array>

#include "mockdev/machine.h"

namespace mockdev {
namespace {

struct Preset {
  std::string_view name;
  std::string_view yaml;
};

constexpr std::string_view k4xH100 = R"(name: 4xh100
devices:
  - name: NVIDIA H100 80GB HBM3
    memory: 80GiB
    compute_capability: "9.0"
    multiprocessors: 132
    count: 4
topology:
  default: pcie
  links:
    - devices: [0, 1]
      link: nvlink
    - devices: [2, 3]
      link: nvlink
)";

constexpr std::string_view k8xH100 = R"(name: 8xh100
devices:
  - name: NVIDIA H100 80GB HBM3
    memory: 80GiB
    compute_capability: "9.0"
    multiprocessors: 132
    count: 8
topology:
  default: nvlink
)";

constexpr std::string_view k2xA100 = R"(name: 2xa100
devices:
  - name: NVIDIA A100-SXM4-40GB
    memory: 40GiB
    compute_capability: "8.0"
    multiprocessors: 108
    count: 2
topology:
  default: pcie
)";

constexpr std::string_view k1xA100 = R"(name: 1xa100
devices:
  - name: NVIDIA A100-SXM4-40GB
    memory: 40GiB
    compute_capability: "8.0"
    multiprocessors: 108
)";

constexpr std::string_view kMixed = R"(name: mixed
devices:
  - name: NVIDIA H100 80GB HBM3
    memory: 80GiB
    compute_capability: "9.0"
    multiprocessors: 132
  - name: Tesla T4
    memory: 15GiB
    compute_capability: "7.5"
    multiprocessors: 40
topology:
  default: none
)";

constexpr std::string_view kNone = R"(name: none
devices: []
)";

constexpr std::array<Preset, 6> kPresets = {{
    {"4xh100", k4xH100},
    {"8xh100", k8xH100},
    {"2xa100", k2xA100},
    {"1xa100", k1xA100},
    {"mixed", kMixed},
    {"none", kNone},
}};

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : kPresets) names.emplace_back(p.name);
  return names;
}

std::optional<std::string> preset_yaml(std::string_view name) {
  for (const Preset& p : kPresets) {
    if (p.name == name) return std::string(p.yaml);
  }
  return std::nullopt;
}

}  // namespace mockdev
