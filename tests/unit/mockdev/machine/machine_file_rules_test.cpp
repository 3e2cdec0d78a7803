// The machine-file reader refuses what it cannot honour, each with file:line and the value:
// YAML it must not read (Note [Bounded YAML]: aliases that expand without limit, deep
// nesting, a second document, a tag), values that would make a machine no driver could
// be (a page larger than the device, control characters in names that tables print), and
// an unknown key in any section, named with the closest known ones.

#include <gtest/gtest.h>

#include <string>

#include "mockdev/machine.h"

namespace mockdev {
namespace {

std::string error_of(std::string_view yaml) {
  try {
    parse_machine(yaml, "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr std::string_view kDevice =
    "  - {name: a, memory: 1GiB, compute_capability: '9.0', multiprocessors: 1}\n";

std::string machine(std::string_view devices, std::string_view rest = "") {
  return "name: x\ndevices:\n" + std::string(devices) + std::string(rest);
}

TEST(MockMachineFileYaml, ASecondDocumentIsRefusedAtItsLine) {
  EXPECT_EQ(error_of(machine(kDevice, "---\nname: y\n")),
            "m.yaml:4: (document): expected one YAML document, got a second one (a '---' line "
            "starts it)");
}

TEST(MockMachineFileYaml, TagsAreRefused) {
  EXPECT_EQ(error_of("name: !!binary eA==\ndevices: []\n"),
            "m.yaml:1: (document): expected a value without a YAML tag (no !!binary, !!str or "
            "!name), got '!!binary'");
  EXPECT_EQ(error_of("name: x\ndevices: !custom []\n"),
            "m.yaml:2: (document): expected a value without a YAML tag (no !!binary, !!str or "
            "!name), got '!custom'");
}

TEST(MockMachineFileYaml, AliasesThatExpandTooFarAreRefused) {
  // Each line multiplies the one above by ten: 10^6 nodes to visit from 8 lines.
  std::string yaml =
      "name: x\ndevices: []\nfaults:\n  calls:\n    - &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 5; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    yaml += "    - &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) yaml += (j ? ", " : "") + prev;
    yaml += "]\n";
  }
  EXPECT_EQ(error_of(yaml),
            "m.yaml:9: (document): expected at most 100000 nodes with every alias expanded, got "
            "aliases that expand to more than 100000 nodes ('*a3' here)");
}

TEST(MockMachineFileYaml, NestingDeeperThanTheLimitIsRefused) {
  EXPECT_EQ(error_of("name: x\ndevices: " + std::string(1000, '[') + std::string(1000, ']') + "\n"),
            "m.yaml:2: (document): expected nesting at most 64 levels deep, got nesting deeper "
            "than 64 levels");
}

TEST(MockMachineFileRules, AllocationGranularityLargerThanTheDeviceIsRefused) {
  const std::string head =
      "name: x\ndevices:\n  - name: a\n    memory: 1GiB\n    compute_capability: '9.0'\n"
      "    multiprocessors: 1\n";
  EXPECT_EQ(error_of(head + "    allocation_granularity: 9223372036854775808\n"),
            "m.yaml:7: devices[0].allocation_granularity: expected a power of two of at least 4 "
            "KiB (e.g. 2MiB) and at most the device's memory (1073741824 bytes), got "
            "'9223372036854775808'");
  EXPECT_EQ(error_of(head + "    allocation_granularity: 2GiB\n"),
            "m.yaml:7: devices[0].allocation_granularity: expected a power of two of at least 4 "
            "KiB (e.g. 2MiB) and at most the device's memory (1073741824 bytes), got '2GiB'");
  EXPECT_EQ(parse_machine(head + "    allocation_granularity: 1GiB\n", "m.yaml")
                .devices[0]
                .allocation_granularity,
            std::uint64_t{1} << 30);
}

TEST(MockMachineFileRules, NamesWithControlCharactersAreRefusedAndShownEscaped) {
  EXPECT_EQ(error_of("name: x\ndevices:\n  - {name: \"H100\\e[31m red\", memory: 1, "
                     "compute_capability: '9.0', multiprocessors: 1}\n"),
            "m.yaml:3: devices[0].name: expected a device name without control characters, got "
            "'H100\\x1b[31m red'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - {name: \"two\\nlines\", memory: 1, "
                     "compute_capability: '9.0', multiprocessors: 1}\n"),
            "m.yaml:3: devices[0].name: expected a device name without control characters, got "
            "'two\\nlines'");
  EXPECT_EQ(error_of("name: \"a\\0b\"\ndevices: []\n"),
            "m.yaml:1: name: expected a machine name without control characters, got 'a\\0b'");
  EXPECT_EQ(error_of("name: \"tab\\there\"\ndevices: []\n"),
            "m.yaml:1: name: expected a machine name without control characters, got "
            "'tab\\there'");
  EXPECT_EQ(error_of("name: \"del\\x7f\"\ndevices: []\n"),
            "m.yaml:1: name: expected a machine name without control characters, got "
            "'del\\x7f'");
  // Any value an error quotes is escaped, so an error is always one line.
  EXPECT_EQ(error_of("name: x\ndevices:\n  - {name: a, memory: \"1\\nGiB\", "
                     "compute_capability: '9.0', multiprocessors: 1}\n"),
            "m.yaml:3: devices[0].memory: expected a size in bytes or with a unit (B, KiB, MiB, "
            "GiB, TiB, KB, MB, GB, TB), got '1\\nGiB'");
}

// Every section names the closest keys of an unknown one (edit distance, case ignored);
// a key close to none lists the keys alone.
TEST(MockMachineFileRules, AnUnknownKeyInAnySectionNamesTheClosestKeys) {
  EXPECT_EQ(error_of("name: x\ndevicse: []\n"),
            "m.yaml:2: (document): expected one of the keys name, driver_version, level_zero, "
            "devices, faults, streams, topology (closest: devices), got 'devicse'");
  EXPECT_EQ(error_of("name: x\ncolour: red\ndevices: []\n"),
            "m.yaml:2: (document): expected one of the keys name, driver_version, level_zero, "
            "devices, faults, streams, topology, got 'colour'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - {name: a, memroy: 1}\n"),
            "m.yaml:3: devices[0]: expected one of the keys name, vendor, memory, "
            "compute_capability, multiprocessors, uuid, pci_bus_id, mig_uuid, count, attributes, "
            "allocation_granularity, context_reserve, tiles, integrated, level_zero (closest: "
            "memory), got 'memroy'");
  EXPECT_EQ(error_of(machine(kDevice, "faults:\n  sticki: []\n")),
            "m.yaml:5: faults: expected one of the keys driver_init, nvml_init, level_zero_init, "
            "calls, sticky, memory (closest: sticky), got 'sticki'");
  EXPECT_EQ(error_of(machine(kDevice, "faults:\n  calls:\n    - {entri: cuInit}\n")),
            "m.yaml:6: faults.calls[0]: expected one of the keys entry, nth, code (closest: "
            "entry), got 'entri'");
  EXPECT_EQ(error_of(machine(kDevice, "faults:\n  sticky:\n    - {devices: 0}\n")),
            "m.yaml:6: faults.sticky[0]: expected one of the keys device, code, after_calls, api "
            "(closest: device), got 'devices'");
  EXPECT_EQ(error_of(machine(kDevice, "faults:\n  memory:\n    - {capacty: 1}\n")),
            "m.yaml:6: faults.memory[0]: expected one of the keys device, fail_nth_allocation, "
            "fail_allocations_above, capacity (closest: capacity), got 'capacty'");
  EXPECT_EQ(error_of(machine(kDevice, "streams:\n  shedule: eager\n")),
            "m.yaml:5: streams: expected one of the keys schedule, seed, races, least_priority, "
            "greatest_priority, timing (closest: schedule), got 'shedule'");
  EXPECT_EQ(error_of(machine(kDevice, "streams:\n  timing: {kernel_nss: 1}\n")),
            "m.yaml:5: streams.timing: expected one of the keys launch_latency_ns, "
            "htod_gb_per_s, dtoh_gb_per_s, dtod_gb_per_s, peer_gb_per_s, memset_gb_per_s, "
            "kernel_ns, host_function_ns (closest: kernel_ns), got 'kernel_nss'");
  EXPECT_EQ(error_of(machine(kDevice, "topology:\n  defualt: none\n")),
            "m.yaml:5: topology: expected one of the keys default, links (closest: default), got "
            "'defualt'");
  EXPECT_EQ(error_of(machine(kDevice, "topology:\n  links:\n    - {devics: [0, 1]}\n")),
            "m.yaml:6: topology.links[0]: expected one of the keys devices, link, "
            "performance_rank, native_atomics (closest: devices), got 'devics'");
  EXPECT_EQ(error_of("name: x\nlevel_zero: {child_polcy: refuse}\ndevices: []\n"),
            "m.yaml:2: level_zero: expected one of the keys default_hierarchy, driver_version, "
            "child_policy (closest: child_policy), got 'child_polcy'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - {name: a, vendor: intel, memory: 1GiB, "
                     "level_zero: {fp46: true}}\n"),
            "m.yaml:3: devices[0].level_zero: expected one of the keys device_id, "
            "timer_resolution_ns, timestamp_valid_bits, kernel_timestamp_valid_bits, "
            "timestamp_start_ticks, core_clock_mhz, num_slices, subslices_per_slice, "
            "eus_per_subslice, threads_per_eu, simd_width, max_mem_alloc, compute_queues, "
            "copy_queues, copy_fill_pattern_limit, fp64, images, external_memory, small_page, "
            "large_page (closest: fp64), got 'fp46'");
}

}  // namespace
}  // namespace mockdev
