#pragma once
// The simulated machine: what hardware mockdev pretends to be, read from a machine file.
//
// A machine file is YAML (read with yaml-cpp), named by MOCKDEV_MACHINE as a path or as a
// built-in preset name (4xh100, 8xh100, 2xa100, 1xa100, mixed, none, 2xmax1550,
// laptop_igpu, mixed_vendors). The format is documented in docs/MACHINE_FILES.md
// (installed as share/doc/accel/MACHINE_FILES.md); the presets as files are
// scenarios/machines/<preset>.yaml (installed as share/accel/machines/<preset>.yaml). The
// same machine serves the CUDA, NVML and Level Zero facades (each sees its vendor's
// devices), so they always agree.
// Values only; parsing is pure (no global state) and thread-safe.

#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mockdev {

// Who made a device, and so which vendor API serves it: NVIDIA devices appear through the
// CUDA driver and NVML, Intel devices through the Level Zero driver (and its Sysman). The
// other APIs never see them (docs/MACHINE_FILES.md, "Vendors, tiles and Level Zero").
enum class Vendor { kNvidia, kIntel };
// "nvidia", "intel": the spelling machine files use.
std::string_view vendor_name(Vendor vendor);

// What only the Level Zero driver reports about an Intel device (`level_zero:` under a
// device). Defaults describe an Intel Data Center GPU Max 1550 tile as Intel's driver reports
// it; the tick period is deliberately not an integer, so truncation bugs show.
struct LevelZeroDeviceSpec {
  std::uint32_t device_id = 0x0bd5;        // PCI device id (vendor id is always 0x8086)
  double timer_resolution_ns = 52.083;     // ns per tick; ticks/s = 1e9 / this
  int timestamp_valid_bits = 36;           // global timestamps: 32, 36 or 64
  int kernel_timestamp_valid_bits = 32;    // kernel-timestamp event values
  std::uint64_t timestamp_start_ticks = 0; // device tick at virtual time 0: set near the wrap
                                           // point to exercise the wrap
  std::uint32_t core_clock_mhz = 1600;
  int num_slices = 1;                      // topology per tile (ze_device_properties_t)
  int subslices_per_slice = 64;
  int eus_per_subslice = 8;
  int threads_per_eu = 8;
  int simd_width = 16;
  // Largest single allocation (maxMemAllocSize); 0: the memory of one tile (or of the
  // card when untiled), as Intel's driver caps it.
  std::uint64_t max_mem_alloc_bytes = 0;
  int compute_queues = 4;                  // numQueues of group 0 (COMPUTE | COPY)
  int copy_queues = 7;                     // numQueues of group 1 (COPY)
  std::uint64_t copy_fill_pattern_limit = 1;  // maxMemoryFillPatternSize of group 1
  bool fp64 = true;                        // double precision (dtypes of the runtime)
  // zeDeviceGetImageProperties: false answers every limit 0 (a device without images, as
  // Intel's driver answers for one); true answers the limits Intel's driver reports.
  bool images = false;
  // zeDeviceGetExternalMemoryProperties: the ze_external_memory_type_flags_t bits (0x1
  // OPAQUE_FD, 0x2 DMA_BUF) allocations may be imported from and exported to; 0: none.
  std::uint32_t external_memory_types = 0;
  // zeVirtualMemQueryPageSize: a reservation or physical allocation of fewer than
  // `large_page_bytes` bytes gets `small_page_bytes` pages, a larger one `large_page_bytes`
  // pages (Intel's driver: 64 KiB and 2 MiB); its size must be a multiple of its page.
  std::uint64_t small_page_bytes = std::uint64_t{64} << 10;
  std::uint64_t large_page_bytes = std::uint64_t{2} << 20;
};

struct DeviceSpec {
  std::string name;                // "NVIDIA H100 80GB HBM3"
  Vendor vendor = Vendor::kNvidia;
  // Intel only: sub-devices (tiles). 0 = untiled; never 1 (a root device never has exactly
  // one sub-device: Level Zero, zeDeviceGetSubDevices). Memory is split evenly over the
  // tiles.
  int tiles = 0;
  // Intel only: an integrated GPU (ZE_DEVICE_PROPERTY_FLAG_INTEGRATED; never tiled).
  bool integrated = false;
  LevelZeroDeviceSpec level_zero;  // meaningful for Intel devices only
  std::uint64_t memory_bytes = 0;  // capacity; allocations beyond it fail with OOM
  int cc_major = 0;                // compute capability
  int cc_minor = 0;
  int multiprocessor_count = 0;
  std::string uuid;        // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string pci_bus_id;  // "00000000:1B:00.0"
  // When set, the device is in MIG mode with one instance of this UUID
  // ("MIG-xxxxxxxx-..."), which CUDA_VISIBLE_DEVICES may name.
  std::string mig_uuid;
  // The file's `attributes:` overrides: CUdevice_attribute number -> value. Attributes not
  // listed answer the architecture's defaults (mockdev/src/core/architecture_defaults.h).
  std::map<int, int> attributes;
  // Memory as the driver hands it out (docs/MACHINE_FILES.md, "Memory"): every device
  // allocation takes a multiple of `allocation_granularity` (a power of two >= 4 KiB), and
  // each live context takes `context_reserve_bytes` from free memory.
  std::uint64_t allocation_granularity = std::uint64_t{2} << 20;
  std::uint64_t context_reserve_bytes = 0;
};

// The vendor APIs the simulated machine serves; each has its own entry points, result
// codes and fault entries (a fault's code is one of its API's codes).
// Level Zero's Sysman calls belong to kLevelZero (one driver, one result-code family).
enum class Api { kCuda, kNvml, kLevelZero };
inline constexpr int kApiCount = 3;
// "cuda", "nvml", "level_zero": the spelling machine files use.
std::string_view api_name(Api api);

// Fail the nth call (1-based, counted from the machine's installation, or from the moment
// it was scripted at run time) of one entry point, e.g. "cuMemAlloc_v2", with `code`.
// nth == 0 fails every call. A machine file may name the entry point by its exported
// symbol ("cuMemGetInfo_v2") or its base name ("cuMemGetInfo"); `entry_point` holds the
// exported symbol. The entry point decides the API, and `code` is one of that API's codes.
struct CallFault {
  std::string entry_point;
  std::uint64_t nth = 1;
  int code = 0;
  Api api = Api::kCuda;  // the API that exports `entry_point`
};

// The first `after_calls` calls of `api` that touch physical `device` succeed; every later
// one returns `code` (after_calls == 0: from the first call on), as a real device does
// after an unrecoverable error (e.g. CUDA_ERROR_ILLEGAL_ADDRESS,
// CUDA_ERROR_ECC_UNCORRECTABLE). Only calls that reach the device count: a call failed
// by a call fault, by the not-initialised gate or by its argument checks does not
// (docs/MACHINE_FILES.md, "The fault schedule", lists exactly which calls count).
struct StickyError {
  int device = 0;
  int code = 0;
  std::uint64_t after_calls = 0;
  Api api = Api::kCuda;  // kCuda (an NVIDIA device) or kLevelZero (an Intel device)
};

// Memory faults of one physical device from the machine's installation (`faults.memory`;
// the same as mockdev/memory.h's run-time calls): the nth device allocation fails once with
// CUDA_ERROR_OUT_OF_MEMORY; every allocation asking for more than `fail_allocations_above`
// bytes fails; the capacity is `capacity` bytes (at most the device's memory).
struct MemoryFault {
  int device = 0;
  std::optional<std::uint64_t> fail_nth_allocation;
  std::optional<std::uint64_t> fail_allocations_above;
  std::optional<std::uint64_t> capacity;
};

struct FaultSchedule {
  std::optional<int> driver_init_error;  // cuInit returns this code (a CUDA code)
  std::optional<int> nvml_init_error;    // nvmlInit returns this code (an NVML code)
  std::optional<int> level_zero_init_error;  // the driver's zeInit returns this (a ze code)
  std::vector<CallFault> calls;
  std::vector<StickyError> sticky;
  std::vector<MemoryFault> memory;
};

// What to do when the race detector finds a race (`streams.races` in a machine file;
// MOCKDEV_RACES overrides it). kFail reports as kReport does, and the process then exits
// with control::kRaceFailureExitStatus (mockdev/races.h).
enum class RacePolicy { kReport, kAbort, kOff, kFail };
// "report", "abort", "off", "fail" (the spelling of machine files and MOCKDEV_RACES);
// nullopt for anything else. Defined with the race detector (core/race_policy.cpp).
std::optional<RacePolicy> parse_race_policy(std::string_view text);
std::string_view race_policy_name(RacePolicy policy);

// The stream simulation: scheduler, seed, timing model (`streams:` section,
// docs/MACHINE_FILES.md). The engine's timeline reads them (core/timeline.h).
struct StreamSettings {
  RacePolicy races = RacePolicy::kReport;
  // When operations complete (`streams.schedule`, MOCKDEV_SCHEDULE): eager = at enqueue, as
  // soon as their dependencies allow; random = seeded random progress at driver calls;
  // adversarial = only when a host wait needs them.
  enum class Schedule { kEager, kRandom, kAdversarial };
  Schedule schedule = Schedule::kEager;
  std::uint64_t seed = 0;  // `streams.seed`, MOCKDEV_SEED: the random schedule's seed
  // cuCtxGetStreamPriorityRange: lower number = higher priority (recorded H200: 0, -5).
  int least_priority = 0;
  int greatest_priority = -5;
  // The timing model (`streams.timing`): virtual durations of operations.
  struct Timing {
    std::uint64_t launch_latency_ns = 4000;  // from the host call to the earliest start
    double htod_gb_per_s = 25.0;             // copy bandwidths, 1 GB = 1e9 bytes
    double dtoh_gb_per_s = 25.0;
    double dtod_gb_per_s = 1500.0;
    double peer_gb_per_s = 100.0;
    double memset_gb_per_s = 2000.0;
    std::uint64_t kernel_ns = 10000;        // a kernel's duration
    std::uint64_t host_function_ns = 1000;  // a host function's duration in virtual time
  };
  Timing timing;
};

// "eager", "random", "adversarial" (the spelling of machine files and MOCKDEV_SCHEDULE);
// nullopt for anything else.
std::optional<StreamSettings::Schedule> parse_schedule(std::string_view text);
// A seed as machine files and MOCKDEV_SEED write it: decimal digits only (no sign, no
// blanks), below 2^64; nullopt for anything else.
std::optional<std::uint64_t> parse_seed(std::string_view text);

// Which device pairs are peers, and over what (`topology:` section, docs/MACHINE_FILES.md).
// Pairs are of physical devices (the machine file's order); CUDA_VISIBLE_DEVICES does not
// change them. Links are symmetric.
enum class PeerLink { kNone, kPcie, kNvlink };
// "none", "pcie", "nvlink": the spelling machine files use.
std::string_view peer_link_name(PeerLink link);

struct PeerLinkSpec {
  PeerLink link = PeerLink::kNone;
  int performance_rank = 0;     // CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK (lower is faster)
  bool native_atomics = false;  // CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED
};
// What a link kind gives when the file says no more: NVLink rank 0 with native atomics,
// PCIe rank 1 without ([inferred]: docs/HARDWARE.md, "Device attributes and peers").
PeerLinkSpec default_link_spec(PeerLink link);

struct PeerLinkEntry {
  int first = 0;   // physical devices, first < second
  int second = 0;
  PeerLinkSpec spec;
};

struct Topology {
  // The link of every pair the file does not list (`topology.default`); with no `topology`
  // section every pair of distinct devices is a PCIe peer.
  PeerLink default_link = PeerLink::kPcie;
  std::vector<PeerLinkEntry> links;  // `topology.links`, each pair at most once

  // The link between two distinct physical devices (order does not matter).
  PeerLinkSpec between(int a, int b) const {
    if (a > b) std::swap(a, b);
    for (const PeerLinkEntry& e : links) {
      if (e.first == a && e.second == b) return e.spec;
    }
    return default_link_spec(default_link);
  }
};

// The Level Zero driver as a whole (`level_zero:` at the top of a machine file).
struct LevelZeroDriverSpec {
  // ZE_FLAT_DEVICE_HIERARCHY when unset (or set to anything but COMPOSITE, FLAT, COMBINED):
  // Intel's driver defaults to FLAT on Data Center GPU Max and COMPOSITE elsewhere;
  // the machine file says which. "COMPOSITE", "FLAT" or "COMBINED".
  std::string default_hierarchy = "COMPOSITE";
  std::uint32_t driver_version = 0x01060000;  // ze_driver_properties_t::driverVersion
  // What a forked child's zeInit meets (in a child of an initialised parent): refuse (every core
  // call, zeInit included, returns ZE_RESULT_ERROR_UNINITIALIZED) or reinit (Intel since 2024:
  // fresh device state).
  enum class ChildPolicy { kRefuse, kReinit };
  ChildPolicy child_policy = ChildPolicy::kRefuse;
};

struct MachineSpec {
  std::string name;            // preset name or the file's `name:`
  std::string source;          // "preset:4xh100" or the file path
  int driver_version = 13000;  // what cuDriverGetVersion reports
  LevelZeroDriverSpec level_zero;
  std::vector<DeviceSpec> devices;
  FaultSchedule faults;
  StreamSettings streams;
  Topology topology;
};

// A malformed machine file or an unknown preset. what() is
// "<file>:<line>: <field>: expected <what>, got '<value>'" (line 1-based).
class MachineFileError : public std::runtime_error {
 public:
  MachineFileError(std::string file, int line, const std::string& message);
  const std::string& file() const noexcept { return file_; }
  int line() const noexcept { return line_; }

 private:
  std::string file_;
  int line_;
};

// The largest machine file load_machine reads: 1 MiB, far above any real machine (a
// 64-device file with every key is under 16 KiB), so a wrong path (a log, a core file,
// /dev/zero) is refused at once instead of being read into memory. The same number as
// accel::common::kMaxMachineFileBytes, the bounded reader's limit (a static_assert in the
// reader keeps them equal); the YAML inside is bounded too (Note [Bounded YAML] in
// accel_common/bounded_yaml.h, docs/MACHINE_FILES.md "Format").
inline constexpr std::size_t kMaxMachineFileBytes = std::size_t{1} << 20;

// Reads a machine from a path or a preset name (a name without '/' that matches a
// preset; anything else is a path). Throws MachineFileError.
MachineSpec load_machine(std::string_view path_or_preset);

// Parses machine-file YAML text; `source` names it in errors. Throws MachineFileError.
MachineSpec parse_machine(std::string_view yaml_text, std::string_view source);

// The built-in presets, and their YAML text (nullopt for an unknown name).
std::vector<std::string> preset_names();
std::optional<std::string> preset_yaml(std::string_view name);

// The preset used when MOCKDEV_MACHINE is unset.
inline constexpr std::string_view kDefaultPreset = "1xa100";

// What MOCKDEV_MACHINE names (a path or a preset): its value, or kDefaultPreset when it is
// unset or empty. The one reading of the variable, shared by the engine, the control API
// and the gtest fixture.
inline std::string_view machine_name_from_environment() {
  const char* value = std::getenv("MOCKDEV_MACHINE");
  return value != nullptr && value[0] != '\0' ? std::string_view(value) : kDefaultPreset;
}

// Driver result code from a name ("CUDA_ERROR_OUT_OF_MEMORY", "NVML_ERROR_UNKNOWN",
// "ZE_RESULT_ERROR_DEVICE_LOST") or a decimal number; nullopt if neither.
std::optional<int> parse_result_code(std::string_view text);

// The same, restricted to the names of one API's result codes (a CUDA name for Api::kCuda);
// numbers are accepted for every API, and for Api::kLevelZero also in hex ("0x78000001",
// as ze_result_t values are written).
std::optional<int> parse_result_code(Api api, std::string_view text);

}  // namespace mockdev
