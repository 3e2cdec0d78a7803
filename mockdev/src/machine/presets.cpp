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

// Intel machines (docs/MACHINE_FILES.md, "Vendors, tiles and Level Zero"). The Level Zero
// values are what Intel's driver reports (ze_device_properties_t and the queue groups): a Max
// 1550 tile is the LevelZeroDeviceSpec default (52.083 ns ticks, 36/32 valid bits, 1-byte
// copy fills); Intel's driver defaults to FLAT on Data Center GPU Max, so each tile is a
// device.
constexpr std::string_view k2xMax1550 = R"(name: 2xmax1550
level_zero:
  default_hierarchy: FLAT
devices:
  - name: Intel(R) Data Center GPU Max 1550
    vendor: intel
    memory: 128GiB
    tiles: 2
    level_zero:
      device_id: 0x0bd5
      timer_resolution_ns: 52.083
      timestamp_valid_bits: 36
      kernel_timestamp_valid_bits: 32
      copy_fill_pattern_limit: 1
    count: 2
)";

// An integrated Gen12LP GPU: shares system memory, never tiled, 12 MHz timestamps
// (83.333 ns), no native fp64, allocations capped at 4 GiB - 8 KiB (stateful addressing,
// as Intel's driver caps them), one compute engine and one copy engine with 16-byte fill
// patterns (Intel's copy engines before Xe-HPC).
constexpr std::string_view kLaptopIgpu = R"(name: laptop_igpu
devices:
  - name: Intel(R) Iris(R) Xe Graphics
    vendor: intel
    memory: 8GiB
    integrated: true
    level_zero:
      device_id: 0x9a49
      timer_resolution_ns: 83.333
      timestamp_valid_bits: 36
      kernel_timestamp_valid_bits: 32
      core_clock_mhz: 1300
      num_slices: 1
      subslices_per_slice: 6
      eus_per_subslice: 16
      threads_per_eu: 7
      simd_width: 8
      max_mem_alloc: 4294959104
      compute_queues: 1
      copy_queues: 1
      copy_fill_pattern_limit: 16
      fp64: false
)";

// NVIDIA and Intel interleaved on purpose: CUDA and NVML see devices 0 and 2 (as their 0
// and 1), Level Zero devices 1 and 3, so any place that confuses an API's index with the
// machine's shows up. Peers only within a vendor (the H100 pair over PCIe).
constexpr std::string_view kMixedVendors = R"(name: mixed_vendors
level_zero:
  default_hierarchy: COMPOSITE
devices:
  - name: NVIDIA H100 80GB HBM3
    memory: 80GiB
    compute_capability: "9.0"
    multiprocessors: 132
  - name: Intel(R) Data Center GPU Max 1550
    vendor: intel
    memory: 128GiB
    tiles: 2
  - name: NVIDIA H100 80GB HBM3
    memory: 80GiB
    compute_capability: "9.0"
    multiprocessors: 132
  - name: Intel(R) Arc(TM) A770 Graphics
    vendor: intel
    memory: 16GiB
    level_zero:
      device_id: 0x56a0
      timer_resolution_ns: 83.333
      core_clock_mhz: 2400
      num_slices: 8
      subslices_per_slice: 4
      eus_per_subslice: 16
      threads_per_eu: 8
      simd_width: 8
      max_mem_alloc: 4294959104
      compute_queues: 4
      copy_queues: 2
      copy_fill_pattern_limit: 16
      fp64: false
topology:
  default: none
  links:
    - devices: [0, 2]
      link: pcie
)";

constexpr std::array<Preset, 9> kPresets = {{
    {"4xh100", k4xH100},
    {"8xh100", k8xH100},
    {"2xa100", k2xA100},
    {"1xa100", k1xA100},
    {"mixed", kMixed},
    {"none", kNone},
    {"2xmax1550", k2xMax1550},
    {"laptop_igpu", kLaptopIgpu},
    {"mixed_vendors", kMixedVendors},
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
