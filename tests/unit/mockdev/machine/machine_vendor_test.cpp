// Machine files with vendors, tiles and Level Zero (docs/MACHINE_FILES.md, "Vendors, tiles
// and Level Zero"): every new key parsed into its field, every error with its exact
// "<file>:<line>: <field>: expected <what>, got '<value>'" text, the Level Zero fault names,
// and the Intel presets equal to their files field by field.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "core/device_ids.h"
#include "machine/api_codes.h"
#include "mockdev/machine.h"

#ifdef MOCKDEV_TEST_HAVE_LEVEL_ZERO
#include "accel_abi/level_zero.h"
#endif

namespace mockdev {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

std::string error_of(std::string_view yaml) {
  try {
    parse_machine(yaml, "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

// One Intel device (line 3 is its `- name:`, line 5 `memory:`); `extra` goes below, each
// line indented as a device key.
std::string intel(std::string_view extra, std::string_view memory = "64GiB") {
  return "name: t\ndevices:\n  - name: Intel GPU\n    vendor: intel\n    memory: " +
         std::string(memory) + "\n" + std::string(extra);
}

// One NVIDIA device (lines 3-6); `extra` below it.
std::string nvidia(std::string_view extra) {
  return "name: t\ndevices:\n  - name: GPU\n    memory: 1GiB\n    compute_capability: \"9.0\"\n"
         "    multiprocessors: 1\n" +
         std::string(extra);
}

// ---- parsing ----------------------------------------------------------------------------

TEST(MachineVendors, DevicesAreNvidiaUnlessTheFileSaysIntel) {
  MachineSpec m = parse_machine(nvidia("    vendor: nvidia\n"), "m.yaml");
  ASSERT_EQ(m.devices.size(), 1u);
  EXPECT_EQ(m.devices[0].vendor, Vendor::kNvidia);
  EXPECT_EQ(parse_machine(nvidia(""), "m.yaml").devices[0].vendor, Vendor::kNvidia);
  EXPECT_EQ(parse_machine(intel(""), "m.yaml").devices[0].vendor, Vendor::kIntel);
  EXPECT_EQ(vendor_name(Vendor::kNvidia), "nvidia");
  EXPECT_EQ(vendor_name(Vendor::kIntel), "intel");
}

TEST(MachineVendors, AnIntelDeviceGetsTheMax1550TileDefaultsAndGeneratedIds) {
  MachineSpec m = parse_machine(intel("    count: 2\n"), "m.yaml");
  ASSERT_EQ(m.devices.size(), 2u);
  const DeviceSpec& d = m.devices[1];
  EXPECT_EQ(d.name, "Intel GPU");
  EXPECT_EQ(d.memory_bytes, 64 * kGiB);
  EXPECT_EQ(d.tiles, 0);
  EXPECT_FALSE(d.integrated);
  EXPECT_EQ(d.cc_major, 0);
  EXPECT_EQ(d.multiprocessor_count, 0);
  EXPECT_TRUE(d.attributes.empty());
  // Identifiers are generated from the machine's index as for NVIDIA devices.
  EXPECT_EQ(d.uuid, core::generate_uuid("t", 1));
  EXPECT_EQ(d.pci_bus_id, core::generate_pci_bus_id(1));
  const LevelZeroDeviceSpec z;
  EXPECT_EQ(d.level_zero.device_id, 0x0bd5u);
  EXPECT_EQ(d.level_zero.timer_resolution_ns, z.timer_resolution_ns);
  EXPECT_EQ(d.level_zero.timestamp_valid_bits, 36);
  EXPECT_EQ(d.level_zero.kernel_timestamp_valid_bits, 32);
  EXPECT_EQ(d.level_zero.max_mem_alloc_bytes, 0u);
  EXPECT_EQ(d.level_zero.copy_fill_pattern_limit, 1u);
  EXPECT_TRUE(d.level_zero.fp64);
  // The driver as a whole: COMPOSITE, refuse.
  EXPECT_EQ(m.level_zero.default_hierarchy, "COMPOSITE");
  EXPECT_EQ(m.level_zero.child_policy, LevelZeroDriverSpec::ChildPolicy::kRefuse);
  EXPECT_EQ(m.level_zero.driver_version, 0x01060000u);
}

TEST(MachineVendors, EveryIntelKeyIsRead) {
  MachineSpec m = parse_machine(intel("    tiles: 4\n"
                                      "    uuid: GPU-01234567-89ab-cdef-0123-456789abcdef\n"
                                      "    pci_bus_id: 00000000:3A:00.0\n"
                                      "    allocation_granularity: 64KiB\n"
                                      "    context_reserve: 1MiB\n"
                                      "    level_zero:\n"
                                      "      device_id: 0x56A0\n"
                                      "      timer_resolution_ns: 83.333\n"
                                      "      timestamp_valid_bits: 64\n"
                                      "      kernel_timestamp_valid_bits: 64\n"
                                      "      timestamp_start_ticks: 0xfffffffffffff000\n"
                                      "      core_clock_mhz: 2400\n"
                                      "      num_slices: 8\n"
                                      "      subslices_per_slice: 4\n"
                                      "      eus_per_subslice: 16\n"
                                      "      threads_per_eu: 7\n"
                                      "      simd_width: 8\n"
                                      "      max_mem_alloc: 16GiB\n"
                                      "      compute_queues: 2\n"
                                      "      copy_queues: 0\n"
                                      "      copy_fill_pattern_limit: 16\n"
                                      "      fp64: false\n"),
                                "m.yaml");
  const DeviceSpec& d = m.devices.at(0);
  EXPECT_EQ(d.tiles, 4);
  EXPECT_EQ(d.uuid, "GPU-01234567-89ab-cdef-0123-456789abcdef");
  EXPECT_EQ(d.pci_bus_id, "00000000:3A:00.0");
  EXPECT_EQ(d.allocation_granularity, 64u << 10);
  EXPECT_EQ(d.context_reserve_bytes, 1u << 20);
  const LevelZeroDeviceSpec& z = d.level_zero;
  EXPECT_EQ(z.device_id, 0x56a0u);
  EXPECT_DOUBLE_EQ(z.timer_resolution_ns, 83.333);
  EXPECT_EQ(z.timestamp_valid_bits, 64);
  EXPECT_EQ(z.kernel_timestamp_valid_bits, 64);
  EXPECT_EQ(z.timestamp_start_ticks, 0xfffffffffffff000u);
  EXPECT_EQ(z.core_clock_mhz, 2400u);
  EXPECT_EQ(z.num_slices, 8);
  EXPECT_EQ(z.subslices_per_slice, 4);
  EXPECT_EQ(z.eus_per_subslice, 16);
  EXPECT_EQ(z.threads_per_eu, 7);
  EXPECT_EQ(z.simd_width, 8);
  EXPECT_EQ(z.max_mem_alloc_bytes, 16 * kGiB);
  EXPECT_EQ(z.compute_queues, 2);
  EXPECT_EQ(z.copy_queues, 0);
  EXPECT_EQ(z.copy_fill_pattern_limit, 16u);
  EXPECT_FALSE(z.fp64);
  // Decimal device ids and start ticks too; an integrated GPU, untiled.
  MachineSpec i = parse_machine(intel("    integrated: true\n    tiles: 0\n    level_zero:\n"
                                      "      device_id: 39497\n"
                                      "      timestamp_start_ticks: 4294967000\n"),
                                "m.yaml");
  EXPECT_TRUE(i.devices[0].integrated);
  EXPECT_EQ(i.devices[0].tiles, 0);
  EXPECT_EQ(i.devices[0].level_zero.device_id, 39497u);
  EXPECT_EQ(i.devices[0].level_zero.timestamp_start_ticks, 4294967000u);
}

TEST(MachineVendors, TheTopLevelLevelZeroMapIsRead) {
  MachineSpec m = parse_machine("name: t\nlevel_zero:\n  default_hierarchy: FLAT\n"
                                "  driver_version: 0x01030000\n  child_policy: reinit\n"
                                "devices: []\n",
                                "m.yaml");
  EXPECT_EQ(m.level_zero.default_hierarchy, "FLAT");
  EXPECT_EQ(m.level_zero.driver_version, 0x01030000u);
  EXPECT_EQ(m.level_zero.child_policy, LevelZeroDriverSpec::ChildPolicy::kReinit);
  m = parse_machine("name: t\nlevel_zero: {default_hierarchy: COMBINED, driver_version: 7, "
                    "child_policy: refuse}\ndevices: []\n",
                    "m.yaml");
  EXPECT_EQ(m.level_zero.default_hierarchy, "COMBINED");
  EXPECT_EQ(m.level_zero.driver_version, 7u);
  EXPECT_EQ(m.level_zero.child_policy, LevelZeroDriverSpec::ChildPolicy::kRefuse);
  EXPECT_EQ(parse_machine("name: t\nlevel_zero: {default_hierarchy: COMPOSITE}\ndevices: []\n",
                          "m.yaml")
                .level_zero.default_hierarchy,
            "COMPOSITE");
}

// ---- vendor keys and the sub-device layout: each slip its own message -------------------

TEST(MachineVendorErrors, AnUnknownVendorIsNamed) {
  EXPECT_EQ(error_of("name: t\ndevices:\n  - name: G\n    vendor: amd\n"),
            "m.yaml:4: devices[0].vendor: expected nvidia or intel, got 'amd'");
  EXPECT_EQ(error_of("name: t\ndevices:\n  - name: G\n    vendor: Intel\n"),
            "m.yaml:4: devices[0].vendor: expected nvidia or intel, got 'Intel'");
}

TEST(MachineVendorErrors, NvidiaOnlyKeysOnAnIntelDeviceAreNamed) {
  const std::pair<const char*, const char*> keys[] = {
      {"compute_capability", "\"9.0\""}, {"multiprocessors", "4"},
      {"mig_uuid", "MIG-01234567-89ab-cdef-0123-456789abcdef"}, {"attributes", "{}"}};
  for (const auto& [key, value] : keys) {
    EXPECT_EQ(error_of(intel("    " + std::string(key) + ": " + value + "\n")),
              "m.yaml:6: devices[0]." + std::string(key) +
                  ": expected no NVIDIA-only key on an Intel device (vendor: intel), got '" + key +
                  "'")
        << key;
  }
}

TEST(MachineVendorErrors, IntelOnlyKeysOnAnNvidiaDeviceAreNamed) {
  EXPECT_EQ(error_of(nvidia("    integrated: true\n")),
            "m.yaml:7: devices[0].integrated: expected no Intel-only key on an NVIDIA device (add "
            "vendor: intel), got 'integrated'");
  EXPECT_EQ(error_of(nvidia("    level_zero: {fp64: true}\n")),
            "m.yaml:7: devices[0].level_zero: expected no Intel-only key on an NVIDIA device (add "
            "vendor: intel), got 'level_zero'");
  // Also when the vendor is said explicitly, and wherever the key stands.
  EXPECT_EQ(error_of("name: t\ndevices:\n  - level_zero: {}\n    name: G\n    vendor: nvidia\n"),
            "m.yaml:3: devices[0].level_zero: expected no Intel-only key on an NVIDIA device (add "
            "vendor: intel), got 'level_zero'");
}

TEST(MachineVendorErrors, TilesOnAnNvidiaDevice) {
  EXPECT_EQ(error_of(nvidia("    tiles: 2\n")),
            "m.yaml:7: devices[0].tiles: expected no tiles on an NVIDIA device (tiles are Level "
            "Zero sub-devices of an Intel device: vendor: intel), got '2'");
}

TEST(MachineVendorErrors, OneTile) {
  EXPECT_EQ(error_of(intel("    tiles: 1\n")),
            "m.yaml:6: devices[0].tiles: expected 0 (untiled) or at least 2 tiles (a device never "
            "has exactly one sub-device, spec D-2), got '1'");
}

TEST(MachineVendorErrors, NegativeTiles) {
  EXPECT_EQ(error_of(intel("    tiles: -2\n")),
            "m.yaml:6: devices[0].tiles: expected a tile count that is not negative (0 = "
            "untiled), got '-2'");
}

TEST(MachineVendorErrors, TooManyOrNonNumericTiles) {
  EXPECT_EQ(error_of(intel("    tiles: 9\n")),
            "m.yaml:6: devices[0].tiles: expected a tile count: 0 (untiled) or 2 to 8, got '9'");
  EXPECT_EQ(error_of(intel("    tiles: two\n")),
            "m.yaml:6: devices[0].tiles: expected a tile count: 0 (untiled) or 2 to 8, got 'two'");
  EXPECT_EQ(error_of(intel("    tiles: [2]\n")),
            "m.yaml:6: devices[0].tiles: expected a tile count: 0 (untiled) or 2 to 8, got '[...]'");
}

TEST(MachineVendorErrors, TilesOnAnIntegratedGpu) {
  EXPECT_EQ(error_of(intel("    tiles: 2\n    integrated: true\n")),
            "m.yaml:6: devices[0].tiles: expected no tiles on an integrated GPU (integrated: true "
            "is never tiled), got '2'");
  // integrated: false with tiles is a discrete tiled card.
  EXPECT_EQ(parse_machine(intel("    tiles: 2\n    integrated: false\n"), "m.yaml").devices[0].tiles,
            2);
  EXPECT_EQ(error_of(intel("    integrated: yes\n")),
            "m.yaml:6: devices[0].integrated: expected true or false, got 'yes'");
}

TEST(MachineVendorErrors, MemoryThatDoesNotDivideOverTheTiles) {
  EXPECT_EQ(error_of(intel("    tiles: 3\n", "64GiB")),
            "m.yaml:5: devices[0].memory: expected a size that divides evenly over the 3 tiles, "
            "got '64GiB'");
  EXPECT_EQ(parse_machine(intel("    tiles: 3\n", "96GiB"), "m.yaml").devices[0].memory_bytes,
            96 * kGiB);
}

// tests/tools/accel/data holds one file per inconsistent layout (for the tools' own tests
// too); each says the error it must give in a "# expect: <line>: <message>" comment.
TEST(MachineVendorErrors, TheBadLayoutFilesGiveTheErrorTheySay) {
  for (const char* name : {"bad_machine_one_tile.yaml", "bad_machine_negative_tiles.yaml",
                           "bad_machine_nvidia_tiles.yaml", "bad_machine_integrated_tiles.yaml",
                           "bad_machine_tile_memory.yaml"}) {
    const std::string path = std::string(MOCKDEV_TEST_TOOLS_TESTDATA) + "/" + name;
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    std::string expect;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("# expect: ", 0) == 0) expect = line.substr(10);
    }
    ASSERT_FALSE(expect.empty()) << path;
    try {
      load_machine(path);
      ADD_FAILURE() << path << " loaded";
    } catch (const MachineFileError& e) {
      EXPECT_EQ(e.what(), path + ":" + expect);
    }
  }
}

// ---- level_zero: values -----------------------------------------------------------------

std::string lz(std::string_view key_and_value) {
  return intel("    level_zero:\n      " + std::string(key_and_value) + "\n");
}

TEST(MachineLevelZeroErrors, EveryBadValueIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"device_id: 0",
       "devices[0].level_zero.device_id: expected a PCI device id from 1 to 0xffff, hex (0x0bd5) "
       "or decimal, got '0'"},
      {"device_id: 0x10000",
       "devices[0].level_zero.device_id: expected a PCI device id from 1 to 0xffff, hex (0x0bd5) "
       "or decimal, got '0x10000'"},
      {"device_id: 0x",
       "devices[0].level_zero.device_id: expected a PCI device id from 1 to 0xffff, hex (0x0bd5) "
       "or decimal, got '0x'"},
      {"timer_resolution_ns: 0",
       "devices[0].level_zero.timer_resolution_ns: expected a tick period in ns above 0 and at "
       "most 1e9 (e.g. 52.083), got '0'"},
      {"timer_resolution_ns: -52.083",
       "devices[0].level_zero.timer_resolution_ns: expected a tick period in ns above 0 and at "
       "most 1e9 (e.g. 52.083), got '-52.083'"},
      {"timer_resolution_ns: nan",
       "devices[0].level_zero.timer_resolution_ns: expected a tick period in ns above 0 and at "
       "most 1e9 (e.g. 52.083), got 'nan'"},
      {"timer_resolution_ns: inf",
       "devices[0].level_zero.timer_resolution_ns: expected a tick period in ns above 0 and at "
       "most 1e9 (e.g. 52.083), got 'inf'"},
      {"timer_resolution_ns: 52ns",
       "devices[0].level_zero.timer_resolution_ns: expected a tick period in ns above 0 and at "
       "most 1e9 (e.g. 52.083), got '52ns'"},
      {"timestamp_valid_bits: 48",
       "devices[0].level_zero.timestamp_valid_bits: expected 32, 36 or 64 valid bits, got '48'"},
      {"kernel_timestamp_valid_bits: 0",
       "devices[0].level_zero.kernel_timestamp_valid_bits: expected 32, 36 or 64 valid bits, got "
       "'0'"},
      {"timestamp_start_ticks: 4294967296",
       "devices[0].level_zero.timestamp_start_ticks: expected a tick count below 2^32 (the "
       "narrower of timestamp_valid_bits and kernel_timestamp_valid_bits), got '4294967296'"},
      {"core_clock_mhz: 0",
       "devices[0].level_zero.core_clock_mhz: expected an integer from 1 to 100000, got '0'"},
      {"num_slices: 0",
       "devices[0].level_zero.num_slices: expected an integer from 1 to 64, got '0'"},
      {"subslices_per_slice: -1",
       "devices[0].level_zero.subslices_per_slice: expected an integer from 1 to 1024, got '-1'"},
      {"eus_per_subslice: 2000",
       "devices[0].level_zero.eus_per_subslice: expected an integer from 1 to 1024, got '2000'"},
      {"threads_per_eu: x",
       "devices[0].level_zero.threads_per_eu: expected an integer from 1 to 64, got 'x'"},
      {"simd_width: 12",
       "devices[0].level_zero.simd_width: expected a power of two from 1 to 64, got '12'"},
      {"max_mem_alloc: 65GiB",
       "devices[0].level_zero.max_mem_alloc: expected a size of at most the memory of one tile, "
       "or of the device when untiled (68719476736 bytes), got '65GiB'"},
      {"max_mem_alloc: 0",
       "devices[0].level_zero.max_mem_alloc: expected a size in bytes or with a unit (B, KiB, "
       "MiB, GiB, TiB, KB, MB, GB, TB) above 0, got '0'"},
      {"compute_queues: 0",
       "devices[0].level_zero.compute_queues: expected an integer from 1 to 64, got '0'"},
      {"copy_queues: 65",
       "devices[0].level_zero.copy_queues: expected an integer from 0 to 64, got '65'"},
      {"copy_fill_pattern_limit: 3",
       "devices[0].level_zero.copy_fill_pattern_limit: expected a power of two from 1 to 65536 "
       "(bytes), got '3'"},
      {"copy_fill_pattern_limit: 0",
       "devices[0].level_zero.copy_fill_pattern_limit: expected a power of two from 1 to 65536 "
       "(bytes), got '0'"},
      {"fp64: yes", "devices[0].level_zero.fp64: expected true or false, got 'yes'"},
  };
  for (const auto& [line, message] : cases) {
    EXPECT_EQ(error_of(lz(line)), "m.yaml:7: " + std::string(message)) << line;
  }
}

TEST(MachineLevelZeroErrors, TheStartTickBoundFollowsTheValidBits) {
  // 36 global bits but 32 kernel bits: the narrower bounds it; 64 and 64: anything.
  EXPECT_EQ(parse_machine(lz("timestamp_start_ticks: 4294967295"), "m.yaml")
                .devices[0]
                .level_zero.timestamp_start_ticks,
            4294967295u);
  EXPECT_EQ(error_of(intel("    level_zero:\n      kernel_timestamp_valid_bits: 64\n"
                           "      timestamp_start_ticks: 0x1000000000\n")),
            "m.yaml:8: devices[0].level_zero.timestamp_start_ticks: expected a tick count below "
            "2^36 (the narrower of timestamp_valid_bits and kernel_timestamp_valid_bits), got "
            "'0x1000000000'");
}

TEST(MachineLevelZeroErrors, MaxMemAllocIsBoundedByOneTile) {
  // 64 GiB over 2 tiles: 32 GiB per tile.
  EXPECT_EQ(error_of(intel("    tiles: 2\n    level_zero: {max_mem_alloc: 33GiB}\n")),
            "m.yaml:7: devices[0].level_zero.max_mem_alloc: expected a size of at most the memory "
            "of one tile, or of the device when untiled (34359738368 bytes), got '33GiB'");
  EXPECT_EQ(parse_machine(intel("    tiles: 2\n    level_zero: {max_mem_alloc: 32GiB}\n"), "m.yaml")
                .devices[0]
                .level_zero.max_mem_alloc_bytes,
            32 * kGiB);
}

TEST(MachineLevelZeroErrors, UnknownKeysAndShapes) {
  EXPECT_EQ(error_of(lz("device: 1")),
            "m.yaml:7: devices[0].level_zero: expected one of the keys device_id, "
            "timer_resolution_ns, timestamp_valid_bits, kernel_timestamp_valid_bits, "
            "timestamp_start_ticks, core_clock_mhz, num_slices, subslices_per_slice, "
            "eus_per_subslice, threads_per_eu, simd_width, max_mem_alloc, compute_queues, "
            "copy_queues, copy_fill_pattern_limit, fp64, images, external_memory, small_page, "
            "large_page, got 'device'");
  EXPECT_EQ(error_of(intel("    level_zero: 3\n")),
            "m.yaml:6: devices[0].level_zero: expected a mapping of Level Zero device properties, "
            "got '3'");
}

TEST(MachineLevelZeroErrors, TheTopLevelMap) {
  EXPECT_EQ(error_of("name: t\nlevel_zero:\n  default_hierarchy: flat\ndevices: []\n"),
            "m.yaml:3: level_zero.default_hierarchy: expected COMPOSITE, FLAT or COMBINED (upper "
            "case), got 'flat'");
  EXPECT_EQ(error_of("name: t\nlevel_zero:\n  child_policy: kill\ndevices: []\n"),
            "m.yaml:3: level_zero.child_policy: expected refuse or reinit, got 'kill'");
  EXPECT_EQ(error_of("name: t\nlevel_zero:\n  driver_version: 0\ndevices: []\n"),
            "m.yaml:3: level_zero.driver_version: expected a driver version from 1 to 0xffffffff, "
            "hex or decimal, got '0'");
  EXPECT_EQ(error_of("name: t\nlevel_zero:\n  driver_version: 0x100000000\ndevices: []\n"),
            "m.yaml:3: level_zero.driver_version: expected a driver version from 1 to 0xffffffff, "
            "hex or decimal, got '0x100000000'");
  EXPECT_EQ(error_of("name: t\nlevel_zero:\n  hierarchy: FLAT\ndevices: []\n"),
            "m.yaml:3: level_zero: expected one of the keys default_hierarchy, driver_version, "
            "child_policy, got 'hierarchy'");
  EXPECT_EQ(error_of("name: t\nlevel_zero: [FLAT]\ndevices: []\n"),
            "m.yaml:2: level_zero: expected a mapping with keys default_hierarchy, "
            "driver_version, child_policy, got '[...]'");
}

// ---- topology ---------------------------------------------------------------------------

TEST(MachineVendorErrors, ALinkBetweenVendorsIsNamed) {
  const std::string yaml = nvidia("  - name: I\n    vendor: intel\n    memory: 1GiB\n") +
                           "topology:\n  links:\n    - {devices: [1, 0], link: none}\n";
  EXPECT_EQ(error_of(yaml),
            "m.yaml:12: topology.links[0].devices: expected a pair of devices of one vendor "
            "(device 1 is intel, device 0 is nvidia), got '[1, 0]'");
  // Within a vendor links work as before.
  const std::string intel_pair = intel("    count: 2\n") + "topology:\n  links:\n"
                                 "    - {devices: [0, 1], link: pcie}\n";
  EXPECT_EQ(parse_machine(intel_pair, "m.yaml").topology.between(1, 0).link, PeerLink::kPcie);
}

// ---- faults -----------------------------------------------------------------------------

TEST(MachineLevelZeroFaults, InitFaultTakesZeCodesByNameHexOrNumber) {
  auto init = [](std::string_view code) {
    return parse_machine("name: t\ndevices: []\nfaults:\n  level_zero_init: " + std::string(code) +
                             "\n",
                         "m.yaml")
        .faults.level_zero_init_error;
  };
  EXPECT_EQ(init("ZE_RESULT_ERROR_UNINITIALIZED"), 0x78000001);
  EXPECT_EQ(init("ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS"), 0x70010000);
  EXPECT_EQ(init("0x78000001"), 0x78000001);
  EXPECT_EQ(init("0X7ffffffe"), 0x7ffffffe);
  EXPECT_EQ(init("2013265921"), 0x78000001);
  EXPECT_FALSE(parse_machine("name: t\ndevices: []\n", "m.yaml").faults.level_zero_init_error);
  const std::string what = "faults.level_zero_init: expected a non-zero ZE result code (name or "
                           "number), got '";
  auto error = [](std::string_view code) {
    return error_of("name: t\ndevices: []\nfaults:\n  level_zero_init: " + std::string(code) +
                    "\n");
  };
  EXPECT_EQ(error("CUDA_ERROR_UNKNOWN"), "m.yaml:4: " + what + "CUDA_ERROR_UNKNOWN'");
  EXPECT_EQ(error("ZE_RESULT_SUCCESS"), "m.yaml:4: " + what + "ZE_RESULT_SUCCESS'");
  EXPECT_EQ(error("0x0"), "m.yaml:4: " + what + "0x0'");
  EXPECT_EQ(error("0x80000000"), "m.yaml:4: " + what + "0x80000000'");
  EXPECT_EQ(error("ze_result_error_unknown"), "m.yaml:4: " + what + "ze_result_error_unknown'");
  // Hex is Level Zero's alone: CUDA and NVML codes stay decimal.
  EXPECT_EQ(error_of("name: t\ndevices: []\nfaults:\n  driver_init: 0x64\n"),
            "m.yaml:4: faults.driver_init: expected a non-zero CUDA result code (name or number), "
            "got '0x64'");
}

TEST(MachineLevelZeroFaults, EveryCodeOfTheSpecTableHasItsNumber) {
  const std::pair<const char*, int> table[] = {
      {"ZE_RESULT_NOT_READY", 0x1},
      {"ZE_RESULT_ERROR_DEVICE_LOST", 0x70000001},
      {"ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY", 0x70000002},
      {"ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY", 0x70000003},
      {"ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET", 0x70000006},
      {"ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE", 0x70000007},
      {"ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS", 0x70010000},
      {"ZE_RESULT_ERROR_NOT_AVAILABLE", 0x70010001},
      {"ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE", 0x70020000},
      {"ZE_RESULT_ERROR_UNINITIALIZED", 0x78000001},
      {"ZE_RESULT_ERROR_UNSUPPORTED_VERSION", 0x78000002},
      {"ZE_RESULT_ERROR_UNSUPPORTED_FEATURE", 0x78000003},
      {"ZE_RESULT_ERROR_INVALID_ARGUMENT", 0x78000004},
      {"ZE_RESULT_ERROR_INVALID_NULL_HANDLE", 0x78000005},
      {"ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE", 0x78000006},
      {"ZE_RESULT_ERROR_INVALID_NULL_POINTER", 0x78000007},
      {"ZE_RESULT_ERROR_INVALID_SIZE", 0x78000008},
      {"ZE_RESULT_ERROR_UNSUPPORTED_SIZE", 0x78000009},
      {"ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT", 0x7800000a},
      {"ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT", 0x7800000b},
      {"ZE_RESULT_ERROR_INVALID_ENUMERATION", 0x7800000c},
      {"ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION", 0x7800000d},
      {"ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE", 0x78000019},
      {"ZE_RESULT_ERROR_OVERLAPPING_REGIONS", 0x7800001a},
      {"ZE_RESULT_ERROR_ADDRESS_NOT_FOUND", 0x78000021},
      {"ZE_RESULT_ERROR_UNKNOWN", 0x7ffffffe},
      // The module, image, tools and experimental codes: a fault may name them too.
      {"ZE_RESULT_ERROR_MODULE_BUILD_FAILURE", 0x70000004},
      {"ZE_RESULT_ERROR_MODULE_LINK_FAILURE", 0x70000005},
      {"ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX", 0x7ff00001},
      {"ZE_RESULT_EXP_ERROR_REMOTE_DEVICE", 0x7ff00003},
      {"ZE_RESULT_WARNING_DROPPED_DATA", 0x70020001},
      {"ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT", 0x7800000e},
      {"ZE_RESULT_ERROR_INVALID_NATIVE_BINARY", 0x7800000f},
      {"ZE_RESULT_ERROR_INVALID_KERNEL_NAME", 0x78000011},
      {"ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE", 0x78000016},
      {"ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED", 0x78000018},
      {"ZE_RESULT_WARNING_ACTION_REQUIRED", 0x7800001b},
  };
  for (const auto& [name, value] : table) {
    EXPECT_EQ(parse_result_code(Api::kLevelZero, name), value) << name;
    EXPECT_EQ(parse_result_code(name), value) << name;
    EXPECT_FALSE(parse_result_code(Api::kCuda, name).has_value()) << name;
  }
  EXPECT_EQ(parse_result_code(Api::kLevelZero, "ZE_RESULT_SUCCESS"), 0);
  EXPECT_EQ(api_name(Api::kLevelZero), "level_zero");
  EXPECT_EQ(machine_file::code_family(Api::kLevelZero), "ZE");
  EXPECT_EQ(machine_file::api_from_name("level_zero"), Api::kLevelZero);
}

TEST(MachineLevelZeroFaults, CallFaultsOnLevelZeroEntryPointsTakeZeCodes) {
  MachineSpec m = parse_machine(
      "name: t\ndevices: []\nfaults:\n  calls:\n"
      "    - {entry: zeMemAllocDevice, nth: 2, code: ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY}\n"
      "    - {entry: zesDeviceGetProperties, nth: 0, code: 0x70010001}\n"
      "    - {entry: zeInit, code: ZE_RESULT_ERROR_UNINITIALIZED}\n",
      "m.yaml");
  ASSERT_EQ(m.faults.calls.size(), 3u);
  EXPECT_EQ(m.faults.calls[0].entry_point, "zeMemAllocDevice");
  EXPECT_EQ(m.faults.calls[0].api, Api::kLevelZero);
  EXPECT_EQ(m.faults.calls[0].nth, 2u);
  EXPECT_EQ(m.faults.calls[0].code, 0x70000003);
  EXPECT_EQ(m.faults.calls[1].entry_point, "zesDeviceGetProperties");
  EXPECT_EQ(m.faults.calls[1].api, Api::kLevelZero);
  EXPECT_EQ(m.faults.calls[1].code, 0x70010001);
  EXPECT_EQ(m.faults.calls[2].nth, 1u);
  auto error = [](std::string_view entry, std::string_view code) {
    return error_of("name: t\ndevices: []\nfaults:\n  calls:\n    - {entry: " + std::string(entry) +
                    ", code: " + std::string(code) + "}\n");
  };
  // A CUDA code on a Level Zero entry point, and the other way round.
  EXPECT_EQ(error("zeMemAllocDevice", "CUDA_ERROR_OUT_OF_MEMORY"),
            "m.yaml:5: faults.calls[0].code: expected a non-zero ZE result code (name or number), "
            "got 'CUDA_ERROR_OUT_OF_MEMORY'");
  EXPECT_EQ(error("cuMemAlloc", "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY"),
            "m.yaml:5: faults.calls[0].code: expected a non-zero CUDA result code (name or "
            "number), got 'ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY'");
  // A typo is answered with the closest Level Zero names.
  EXPECT_EQ(error("zeMemAlocDevice", "1"),
            "m.yaml:5: faults.calls[0].entry: expected an entry point of the mock's APIs "
            "(closest: zeMemAllocDevice), got 'zeMemAlocDevice'");
  // An entry point the mock does not serve is unknown, not a fault that never fires.
  const std::string unserved = error("zeMemFreeExt", "1");
  EXPECT_EQ(
      unserved.rfind("m.yaml:5: faults.calls[0].entry: expected an entry point of the mock's APIs",
                     0),
      0u)
      << unserved;
  EXPECT_TRUE(unserved.ends_with(", got 'zeMemFreeExt'")) << unserved;
  EXPECT_FALSE(machine_file::resolve_entry_point("zelLoaderGetVersions").has_value());
  // The 1.6 entry points served through the newer tables take faults like any other.
  for (std::string_view newer :
       {"zeMemPutIpcHandle", "zeEventPoolPutIpcHandle", "zeCommandListHostSynchronize"}) {
    std::optional<machine_file::EntryPointName> e = machine_file::resolve_entry_point(newer);
    ASSERT_TRUE(e.has_value()) << newer;
    EXPECT_EQ(e->api, Api::kLevelZero) << newer;
  }
}

TEST(MachineLevelZeroFaults, EveryListedEntryPointResolvesToLevelZero) {
  const std::vector<std::string_view> names = machine_file::level_zero_entry_points();
  EXPECT_EQ(std::set<std::string_view>(names.begin(), names.end()).size(), names.size());
  for (std::string_view name : names) {
    std::optional<machine_file::EntryPointName> e = machine_file::resolve_entry_point(name);
    ASSERT_TRUE(e.has_value()) << name;
    EXPECT_EQ(e->symbol, name);
    EXPECT_EQ(e->api, Api::kLevelZero) << name;
  }
  // The brief's list beyond the runtime's table.
  for (std::string_view extra :
       {"zeCommandQueueCreate", "zeCommandQueueDestroy", "zeCommandQueueExecuteCommandLists",
        "zeCommandQueueSynchronize", "zeCommandListCreate", "zeCommandListClose",
        "zeCommandListReset", "zeCommandListAppendWriteGlobalTimestamp", "zeMemAllocShared",
        "zeDriverGetExtensionProperties", "zeDeviceGetCacheProperties",
        "zeDeviceGetP2PProperties", "zeDeviceGetStatus", "zeContextGetStatus"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), extra), names.end()) << extra;
  }
}

// Every driver entry point the runtime's backend resolves can carry a fault: the list
// covers accel_abi/level_zero.h (zelLoaderGetVersions is the loader's own).
TEST(MachineLevelZeroFaults, TheListCoversTheRuntimesEntryPointTable) {
#ifdef MOCKDEV_TEST_HAVE_LEVEL_ZERO
  const std::vector<std::string_view> names = machine_file::level_zero_entry_points();
  std::vector<std::string_view> wanted;
#define MOCKDEV_TEST_REQUIRED(name) wanted.push_back(#name);
#define MOCKDEV_TEST_OPTIONAL(name, type) wanted.push_back(#name);
  ACCEL_ZE_REQUIRED_TABLE(MOCKDEV_TEST_REQUIRED)
  ACCEL_ZE_OPTIONAL_TABLE(MOCKDEV_TEST_OPTIONAL)
#undef MOCKDEV_TEST_REQUIRED
#undef MOCKDEV_TEST_OPTIONAL
  for (std::string_view name : wanted) {
    if (name == "zelLoaderGetVersions") continue;
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
#else
  GTEST_SKIP() << "NOT RUN: the Level Zero headers (libze-dev) are not installed, so "
                  "accel_abi/level_zero.h cannot be compiled here";
#endif
}

TEST(MachineLevelZeroFaults, StickyErrorsNameAnApiThatServesTheDevice) {
  const std::string two = nvidia("  - name: I\n    vendor: intel\n    memory: 1GiB\n");
  MachineSpec m = parse_machine(
      two + "faults:\n  sticky:\n"
            "    - {device: 1, api: level_zero, code: ZE_RESULT_ERROR_DEVICE_LOST}\n"
            "    - {device: 0, code: CUDA_ERROR_ILLEGAL_ADDRESS}\n",
      "m.yaml");
  ASSERT_EQ(m.faults.sticky.size(), 2u);
  EXPECT_EQ(m.faults.sticky[0].api, Api::kLevelZero);
  EXPECT_EQ(m.faults.sticky[0].device, 1);
  EXPECT_EQ(m.faults.sticky[0].code, 0x70000001);
  EXPECT_EQ(m.faults.sticky[1].api, Api::kCuda);
  auto error = [&](std::string_view entry) {
    return error_of(two + "faults:\n  sticky:\n    - " + std::string(entry) + "\n");
  };
  EXPECT_EQ(error("{device: 0, api: level_zero, code: ZE_RESULT_ERROR_DEVICE_LOST}"),
            "m.yaml:12: faults.sticky[0].device: expected a device api level_zero serves (an "
            "Intel device; device 0 is nvidia), got '0'");
  EXPECT_EQ(error("{device: 1, code: CUDA_ERROR_ILLEGAL_ADDRESS}"),
            "m.yaml:12: faults.sticky[0].device: expected a device api cuda serves (an NVIDIA "
            "device; device 1 is intel), got '1'");
  EXPECT_EQ(error("{device: 1, api: nvml, code: 1}"),
            "m.yaml:12: faults.sticky[0].api: expected an API whose calls touch a device (cuda, "
            "level_zero), got 'nvml'");
  EXPECT_EQ(error("{device: 1, api: level_zero, code: CUDA_ERROR_ILLEGAL_ADDRESS}"),
            "m.yaml:12: faults.sticky[0].code: expected a non-zero ZE result code (name or "
            "number), got 'CUDA_ERROR_ILLEGAL_ADDRESS'");
}

// ---- presets ----------------------------------------------------------------------------

TEST(MachineIntelPresets, TwoMax1550) {
  MachineSpec m = load_machine("2xmax1550");
  EXPECT_EQ(m.name, "2xmax1550");
  EXPECT_EQ(m.level_zero.default_hierarchy, "FLAT");
  ASSERT_EQ(m.devices.size(), 2u);
  for (const DeviceSpec& d : m.devices) {
    EXPECT_EQ(d.name, "Intel(R) Data Center GPU Max 1550");
    EXPECT_EQ(d.vendor, Vendor::kIntel);
    EXPECT_EQ(d.tiles, 2);
    EXPECT_FALSE(d.integrated);
    EXPECT_EQ(d.memory_bytes, 128 * kGiB);
    EXPECT_EQ(d.level_zero.device_id, 0x0bd5u);
    EXPECT_DOUBLE_EQ(d.level_zero.timer_resolution_ns, 52.083);
    EXPECT_EQ(d.level_zero.copy_fill_pattern_limit, 1u);
  }
  EXPECT_NE(m.devices[0].uuid, m.devices[1].uuid);
}

TEST(MachineIntelPresets, LaptopWithAnIntegratedGpu) {
  MachineSpec m = load_machine("laptop_igpu");
  ASSERT_EQ(m.devices.size(), 1u);
  const DeviceSpec& d = m.devices[0];
  EXPECT_EQ(d.name, "Intel(R) Iris(R) Xe Graphics");
  EXPECT_EQ(d.vendor, Vendor::kIntel);
  EXPECT_TRUE(d.integrated);
  EXPECT_EQ(d.tiles, 0);
  EXPECT_EQ(d.memory_bytes, 8 * kGiB);
  EXPECT_DOUBLE_EQ(d.level_zero.timer_resolution_ns, 83.333);
  EXPECT_EQ(d.level_zero.timestamp_valid_bits, 36);
  EXPECT_EQ(d.level_zero.kernel_timestamp_valid_bits, 32);
  EXPECT_EQ(d.level_zero.max_mem_alloc_bytes, 4 * kGiB - 8192);
  EXPECT_FALSE(d.level_zero.fp64);
  EXPECT_EQ(m.level_zero.default_hierarchy, "COMPOSITE");
}

TEST(MachineIntelPresets, MixedVendorsInterleaves) {
  MachineSpec m = load_machine("mixed_vendors");
  ASSERT_EQ(m.devices.size(), 4u);
  const Vendor order[] = {Vendor::kNvidia, Vendor::kIntel, Vendor::kNvidia, Vendor::kIntel};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(m.devices[i].vendor, order[i]) << i;
  EXPECT_EQ(m.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.devices[2].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(m.devices[1].name, "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(m.devices[1].tiles, 2);
  EXPECT_EQ(m.devices[3].name, "Intel(R) Arc(TM) A770 Graphics");
  EXPECT_EQ(m.devices[3].tiles, 0);
  EXPECT_FALSE(m.devices[3].integrated);
  EXPECT_EQ(m.devices[3].memory_bytes, 16 * kGiB);
  EXPECT_EQ(m.devices[3].level_zero.copy_fill_pattern_limit, 16u);
  EXPECT_EQ(m.topology.between(0, 2).link, PeerLink::kPcie);
}

// The preset text and scenarios/machines/<preset>.yaml describe the same machine, every
// field compared (the older comparison in machine_file_test.cpp checks a few).
void expect_same_machine(const MachineSpec& a, const MachineSpec& b, const std::string& what) {
  EXPECT_EQ(a.name, b.name) << what;
  EXPECT_EQ(a.driver_version, b.driver_version) << what;
  EXPECT_EQ(a.level_zero.default_hierarchy, b.level_zero.default_hierarchy) << what;
  EXPECT_EQ(a.level_zero.driver_version, b.level_zero.driver_version) << what;
  EXPECT_EQ(a.level_zero.child_policy, b.level_zero.child_policy) << what;
  ASSERT_EQ(a.devices.size(), b.devices.size()) << what;
  for (std::size_t i = 0; i < a.devices.size(); ++i) {
    const DeviceSpec& x = a.devices[i];
    const DeviceSpec& y = b.devices[i];
    const std::string at = what + " device " + std::to_string(i);
    EXPECT_EQ(x.name, y.name) << at;
    EXPECT_EQ(x.vendor, y.vendor) << at;
    EXPECT_EQ(x.tiles, y.tiles) << at;
    EXPECT_EQ(x.integrated, y.integrated) << at;
    EXPECT_EQ(x.memory_bytes, y.memory_bytes) << at;
    EXPECT_EQ(x.cc_major, y.cc_major) << at;
    EXPECT_EQ(x.cc_minor, y.cc_minor) << at;
    EXPECT_EQ(x.multiprocessor_count, y.multiprocessor_count) << at;
    EXPECT_EQ(x.uuid, y.uuid) << at;
    EXPECT_EQ(x.pci_bus_id, y.pci_bus_id) << at;
    EXPECT_EQ(x.mig_uuid, y.mig_uuid) << at;
    EXPECT_EQ(x.attributes, y.attributes) << at;
    EXPECT_EQ(x.allocation_granularity, y.allocation_granularity) << at;
    EXPECT_EQ(x.context_reserve_bytes, y.context_reserve_bytes) << at;
    const LevelZeroDeviceSpec& p = x.level_zero;
    const LevelZeroDeviceSpec& q = y.level_zero;
    EXPECT_EQ(p.device_id, q.device_id) << at;
    EXPECT_EQ(p.timer_resolution_ns, q.timer_resolution_ns) << at;
    EXPECT_EQ(p.timestamp_valid_bits, q.timestamp_valid_bits) << at;
    EXPECT_EQ(p.kernel_timestamp_valid_bits, q.kernel_timestamp_valid_bits) << at;
    EXPECT_EQ(p.timestamp_start_ticks, q.timestamp_start_ticks) << at;
    EXPECT_EQ(p.core_clock_mhz, q.core_clock_mhz) << at;
    EXPECT_EQ(p.num_slices, q.num_slices) << at;
    EXPECT_EQ(p.subslices_per_slice, q.subslices_per_slice) << at;
    EXPECT_EQ(p.eus_per_subslice, q.eus_per_subslice) << at;
    EXPECT_EQ(p.threads_per_eu, q.threads_per_eu) << at;
    EXPECT_EQ(p.simd_width, q.simd_width) << at;
    EXPECT_EQ(p.max_mem_alloc_bytes, q.max_mem_alloc_bytes) << at;
    EXPECT_EQ(p.compute_queues, q.compute_queues) << at;
    EXPECT_EQ(p.copy_queues, q.copy_queues) << at;
    EXPECT_EQ(p.copy_fill_pattern_limit, q.copy_fill_pattern_limit) << at;
    EXPECT_EQ(p.fp64, q.fp64) << at;
  }
  EXPECT_EQ(a.topology.default_link, b.topology.default_link) << what;
  ASSERT_EQ(a.topology.links.size(), b.topology.links.size()) << what;
  for (std::size_t i = 0; i < a.topology.links.size(); ++i) {
    EXPECT_EQ(a.topology.links[i].first, b.topology.links[i].first) << what;
    EXPECT_EQ(a.topology.links[i].second, b.topology.links[i].second) << what;
    EXPECT_EQ(a.topology.links[i].spec.link, b.topology.links[i].spec.link) << what;
  }
}

TEST(MachineIntelPresets, EveryPresetEqualsItsFileInEveryField) {
  for (const std::string& name : preset_names()) {
    const std::string path = std::string(MOCKDEV_TEST_MACHINES_DIR) + "/" + name + ".yaml";
    ASSERT_TRUE(std::filesystem::is_regular_file(path)) << path;
    expect_same_machine(load_machine(name), load_machine(path), name);
  }
}

}  // namespace
}  // namespace mockdev
