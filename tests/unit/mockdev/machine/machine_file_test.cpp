// The machine-file reader: presets, good files, and every error path with its exact
// "<file>:<line>: <field>: expected <what>, got '<value>'" message.

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "core/device_ids.h"
#include "mockdev/machine.h"

namespace mockdev {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;
constexpr std::string_view kPinnedUuid4xh100Device0 = "GPU-a27905a9-1b7c-c8ac-ef1a-39ab62e12aeb";

std::string error_of(std::string_view yaml) {
  try {
    parse_machine(yaml, "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MockPresets, NamesAreTheDocumentedNine) {
  EXPECT_EQ(preset_names(),
            (std::vector<std::string>{"4xh100", "8xh100", "2xa100", "1xa100", "mixed", "none",
                                      "2xmax1550", "laptop_igpu", "mixed_vendors"}));
  EXPECT_EQ(kDefaultPreset, "1xa100");
  EXPECT_FALSE(preset_yaml("3xh100").has_value());
}

TEST(MockPresets, FourH100) {
  MachineSpec m = load_machine("4xh100");
  EXPECT_EQ(m.name, "4xh100");
  EXPECT_EQ(m.source, "preset:4xh100");
  EXPECT_EQ(m.driver_version, 13000);
  ASSERT_EQ(m.devices.size(), 4u);
  for (std::size_t i = 0; i < m.devices.size(); ++i) {
    const DeviceSpec& d = m.devices[i];
    EXPECT_EQ(d.name, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(d.memory_bytes, 80 * kGiB);
    EXPECT_EQ(d.cc_major, 9);
    EXPECT_EQ(d.cc_minor, 0);
    EXPECT_EQ(d.multiprocessor_count, 132);
    EXPECT_TRUE(core::is_uuid(d.uuid, "GPU-")) << d.uuid;
    EXPECT_TRUE(core::is_pci_bus_id(d.pci_bus_id)) << d.pci_bus_id;
    EXPECT_EQ(d.mig_uuid, "");
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(d.uuid, m.devices[j].uuid);
  }
  EXPECT_FALSE(m.faults.driver_init_error.has_value());
  EXPECT_TRUE(m.faults.calls.empty());
}

TEST(MockPresets, CountsAndModels) {
  EXPECT_EQ(load_machine("8xh100").devices.size(), 8u);
  MachineSpec a2 = load_machine("2xa100");
  ASSERT_EQ(a2.devices.size(), 2u);
  EXPECT_EQ(a2.devices[1].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(a2.devices[1].memory_bytes, 40 * kGiB);
  EXPECT_EQ(a2.devices[1].cc_major, 8);
  EXPECT_EQ(a2.devices[1].multiprocessor_count, 108);
  EXPECT_EQ(load_machine("1xa100").devices.size(), 1u);
  MachineSpec mixed = load_machine("mixed");
  ASSERT_EQ(mixed.devices.size(), 2u);
  EXPECT_EQ(mixed.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(mixed.devices[1].name, "Tesla T4");
  EXPECT_EQ(mixed.devices[1].memory_bytes, 15 * kGiB);
  EXPECT_EQ(mixed.devices[1].cc_major, 7);
  EXPECT_EQ(mixed.devices[1].cc_minor, 5);
  EXPECT_EQ(mixed.devices[1].multiprocessor_count, 40);
  EXPECT_TRUE(load_machine("none").devices.empty());
}

TEST(MockPresets, GeneratedIdsAreStableAndDependOnTheMachineName) {
  MachineSpec a = load_machine("4xh100");
  MachineSpec b = load_machine("4xh100");
  MachineSpec c = load_machine("8xh100");
  EXPECT_EQ(a.devices[2].uuid, b.devices[2].uuid);
  EXPECT_NE(a.devices[0].uuid, c.devices[0].uuid);
  EXPECT_EQ(a.devices[0].pci_bus_id, "00000000:10:00.0");
  EXPECT_EQ(a.devices[3].pci_bus_id, "00000000:13:00.0");
}

// Generated UUIDs are a hash of the machine name and the index: stable (this value is
// pinned so that a change to the generator is seen), and well spread, so that short
// CUDA_VISIBLE_DEVICES prefixes tell devices apart (an FNV-1a hash without a finaliser
// gave every UUID the same first five hex digits).
TEST(MockPresets, GeneratedUuidsArePinnedAndWellSpread) {
  EXPECT_EQ(core::generate_uuid("4xh100", 0), kPinnedUuid4xh100Device0);
  std::set<std::string> first_digit, first_five;
  int uuids = 0;
  for (const std::string& name : preset_names()) {
    for (const DeviceSpec& d : load_machine(name).devices) {
      ++uuids;
      first_digit.insert(d.uuid.substr(4, 1));
      first_five.insert(d.uuid.substr(4, 5));
    }
  }
  EXPECT_EQ(uuids, 24);  // 17 NVIDIA, 7 Intel (whose UUIDs are generated the same way)
  EXPECT_EQ(first_five.size(), 24u);  // every preset device differs in its first 5 digits
  EXPECT_GE(first_digit.size(), 8u);
  // Devices 0..63 of one machine, and device 0 of 64 machines.
  std::set<std::string> by_index, by_machine;
  for (int i = 0; i < 64; ++i) {
    by_index.insert(core::generate_uuid("m", i).substr(4, 4));
    by_machine.insert(core::generate_uuid("m" + std::to_string(i), 0).substr(4, 4));
  }
  EXPECT_EQ(by_index.size(), 64u);
  EXPECT_EQ(by_machine.size(), 64u);
}

TEST(MockMachineFile, FullFileWithEveryField) {
  MachineSpec m = parse_machine(R"(name: custom
driver_version: 12080
devices:
  - name: Custom GPU
    memory: 1073741824
    compute_capability: 8.6
    multiprocessors: 84
    uuid: GPU-01234567-89ab-cdef-0123-456789ABCDEF
    pci_bus_id: 00000000:65:00.0
    mig_uuid: MIG-fedcba98-7654-3210-fedc-ba9876543210
  - name: Second
    memory: 2MB
    compute_capability: "7.0"
    multiprocessors: 1
    count: 2
faults:
  driver_init: CUDA_ERROR_UNKNOWN
  nvml_init: 9
  calls:
    - {entry: cuMemAlloc_v2, nth: 3, code: CUDA_ERROR_OUT_OF_MEMORY}
    - {entry: nvmlDeviceGetCount_v2, code: NVML_ERROR_GPU_IS_LOST}
    - {entry: cuCtxSynchronize, nth: 0, code: 700}
  sticky:
    - {device: 2, code: CUDA_ERROR_ILLEGAL_ADDRESS, after_calls: 5}
    - {device: 0, code: CUDA_ERROR_ECC_UNCORRECTABLE}
)",
                                "custom.yaml");
  EXPECT_EQ(m.name, "custom");
  EXPECT_EQ(m.source, "custom.yaml");
  EXPECT_EQ(m.driver_version, 12080);
  ASSERT_EQ(m.devices.size(), 3u);
  EXPECT_EQ(m.devices[0].memory_bytes, kGiB);
  EXPECT_EQ(m.devices[0].cc_major, 8);
  EXPECT_EQ(m.devices[0].cc_minor, 6);
  EXPECT_EQ(m.devices[0].uuid, "GPU-01234567-89ab-cdef-0123-456789ABCDEF");
  EXPECT_EQ(m.devices[0].pci_bus_id, "00000000:65:00.0");
  EXPECT_EQ(m.devices[0].mig_uuid, "MIG-fedcba98-7654-3210-fedc-ba9876543210");
  EXPECT_EQ(m.devices[1].memory_bytes, 2000000u);
  EXPECT_EQ(m.devices[1].name, "Second");
  EXPECT_EQ(m.devices[2].name, "Second");
  EXPECT_NE(m.devices[1].uuid, m.devices[2].uuid);
  EXPECT_EQ(m.devices[1].pci_bus_id, "00000000:11:00.0");
  EXPECT_EQ(m.devices[2].pci_bus_id, "00000000:12:00.0");
  EXPECT_EQ(m.faults.driver_init_error, 999);
  EXPECT_EQ(m.faults.nvml_init_error, 9);
  ASSERT_EQ(m.faults.calls.size(), 3u);
  EXPECT_EQ(m.faults.calls[0].entry_point, "cuMemAlloc_v2");
  EXPECT_EQ(m.faults.calls[0].nth, 3u);
  EXPECT_EQ(m.faults.calls[0].code, 2);
  EXPECT_EQ(m.faults.calls[1].nth, 1u);  // default: the first call
  EXPECT_EQ(m.faults.calls[1].code, 15);
  EXPECT_EQ(m.faults.calls[2].nth, 0u);
  EXPECT_EQ(m.faults.calls[2].code, 700);
  ASSERT_EQ(m.faults.sticky.size(), 2u);
  EXPECT_EQ(m.faults.sticky[0].device, 2);
  EXPECT_EQ(m.faults.sticky[0].code, 700);
  EXPECT_EQ(m.faults.sticky[0].after_calls, 5u);
  EXPECT_EQ(m.faults.sticky[1].code, 214);
  EXPECT_EQ(m.faults.sticky[1].after_calls, 0u);
}

struct SizeCase {
  const char* text;
  std::uint64_t bytes;
};

TEST(MockMachineFile, SizesWithEveryUnit) {
  const SizeCase cases[] = {{"1", 1},
                            {"512B", 512},
                            {"1 KiB", 1024},
                            {"3MiB", 3ULL << 20},
                            {"80GiB", 80 * kGiB},
                            {"2TiB", 2ULL << 40},
                            {"1KB", 1000},
                            {"5MB", 5000000},
                            {"16GB", 16000000000ULL},
                            {"1TB", 1000000000000ULL}};
  for (const SizeCase& c : cases) {
    std::string yaml = std::string("name: s\ndevices:\n  - {name: d, memory: ") + c.text +
                       ", compute_capability: '9.0', multiprocessors: 1}\n";
    EXPECT_EQ(parse_machine(yaml, "s.yaml").devices[0].memory_bytes, c.bytes) << c.text;
  }
}

TEST(MockMachineFile, BadSizesAreRejectedWithTheValue) {
  const char* bad[] = {"0", "-1", "GiB", "1.5GiB", "80 gigs", "80gib", "99999999999TiB", "[1]"};
  for (const char* text : bad) {
    std::string yaml = std::string("name: s\ndevices:\n  - name: d\n    memory: ") + text +
                       "\n    compute_capability: '9.0'\n    multiprocessors: 1\n";
    std::string shown = std::string(text) == "[1]" ? "[...]" : text;
    std::string what = "a size in bytes or with a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)";
    if (std::string(text) == "0" || std::string(text) == "99999999999TiB") what += " above 0";
    EXPECT_EQ(error_of(yaml),
              "m.yaml:4: devices[0].memory: expected " + what + ", got '" + shown + "'")
        << text;
  }
}

TEST(MockMachineFile, UnknownKeysAreErrorsAtTheirLine) {
  EXPECT_EQ(error_of("name: x\ndevices: []\ncolour: red\n"),
            "m.yaml:3: (document): expected one of the keys name, driver_version, level_zero, "
            "devices, faults, streams, topology, got 'colour'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - name: d\n    memory: 1GiB\n    colour: red\n"),
            "m.yaml:5: devices[0]: expected one of the keys name, vendor, memory, "
            "compute_capability, multiprocessors, uuid, pci_bus_id, mig_uuid, count, attributes, "
            "allocation_granularity, context_reserve, tiles, integrated, level_zero, got 'colour'");
  EXPECT_EQ(error_of("name: x\ndevices: []\nfaults:\n  driver_int: 3\n"),
            "m.yaml:4: faults: expected one of the keys driver_init, nvml_init, level_zero_init, "
            "calls, sticky, memory (closest: driver_init), got 'driver_int'");
  EXPECT_EQ(error_of("name: x\ndevices: []\nfaults:\n  calls:\n    - {entry: cuInit, nth: 1, "
                     "code: 3, when: now}\n"),
            "m.yaml:5: faults.calls[0]: expected one of the keys entry, nth, code, got 'when'");
  EXPECT_EQ(error_of("name: x\nname: y\ndevices: []\n"),
            "m.yaml:2: (document): expected each key once, got 'name'");
}

TEST(MockMachineFile, MissingAndMistypedFields) {
  EXPECT_EQ(error_of("devices: []\n"),
            "m.yaml:1: name: expected a machine name (required), got ''");
  EXPECT_EQ(error_of("name: x\n"),
            "m.yaml:1: devices: expected a list of devices (required), got ''");
  EXPECT_EQ(error_of("name: x\ndevices: 4\n"),
            "m.yaml:2: devices: expected a list of devices, got '4'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - name: d\n    compute_capability: '9.0'\n"),
            "m.yaml:3: devices[0].memory: expected a size in bytes or with a unit (B, KiB, MiB, "
            "GiB, TiB, KB, MB, GB, TB) (required), got ''");
  EXPECT_EQ(
      error_of("name: x\ndevices:\n  - name: d\n    memory: 1GiB\n    compute_capability: 9\n"
               "    multiprocessors: 1\n"),
      "m.yaml:5: devices[0].compute_capability: expected a compute capability such as \"9.0\", "
      "got '9'");
  EXPECT_EQ(
      error_of("name: x\ndevices:\n  - name: d\n    memory: 1GiB\n    compute_capability: '9.0'\n"
               "    multiprocessors: many\n"),
      "m.yaml:6: devices[0].multiprocessors: expected an integer from 1 to 100000, got 'many'");
  EXPECT_EQ(error_of("name: x\ndriver_version: 13.0\ndevices: []\n"),
            "m.yaml:2: driver_version: expected an integer from 1 to 1000000, got '13.0'");
  EXPECT_EQ(error_of("[1, 2]\n"),
            "m.yaml:1: (document): expected a mapping with keys name, devices, got '[...]'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - 4xh100\n"),
            "m.yaml:3: devices[0]: expected a device mapping, got '4xh100'");
}

TEST(MockMachineFile, IdentifierSyntaxAndUniqueness) {
  const std::string device =
      "name: x\ndevices:\n  - name: d\n    memory: 1GiB\n    "
      "compute_capability: '9.0'\n    multiprocessors: 1\n";
  EXPECT_EQ(error_of(device + "    uuid: GPU-123\n"),
            "m.yaml:7: devices[0].uuid: expected a UUID such as "
            "GPU-01234567-89ab-cdef-0123-456789abcdef, got 'GPU-123'");
  EXPECT_EQ(error_of(device + "    pci_bus_id: 1B:00.0\n"),
            "m.yaml:7: devices[0].pci_bus_id: expected a PCI bus id such as 00000000:1B:00.0, got "
            "'1B:00.0'");
  EXPECT_EQ(
      error_of(device + "    mig_uuid: GPU-01234567-89ab-cdef-0123-456789abcdef\n"),
      "m.yaml:7: devices[0].mig_uuid: expected a MIG UUID such as "
      "MIG-01234567-89ab-cdef-0123-456789abcdef, got 'GPU-01234567-89ab-cdef-0123-456789abcdef'");
  EXPECT_EQ(error_of(device + "    uuid: GPU-01234567-89ab-cdef-0123-456789abcdef\n    count: 2\n"),
            "m.yaml:7: devices[0].uuid: expected no uuid on a device with count > 1, got "
            "'GPU-01234567-89ab-cdef-0123-456789abcdef'");
  EXPECT_EQ(error_of("name: x\ndevices:\n"
                     "  - {name: a, memory: 1, compute_capability: '9.0', multiprocessors: 1, "
                     "uuid: GPU-01234567-89ab-cdef-0123-456789abcdef}\n"
                     "  - {name: b, memory: 1, compute_capability: '9.0', multiprocessors: 1, "
                     "uuid: GPU-01234567-89ab-cdef-0123-456789abcdef}\n"),
            "m.yaml:4: devices[1].uuid: expected a UUID no other device has, got "
            "'GPU-01234567-89ab-cdef-0123-456789abcdef'");
  EXPECT_EQ(error_of("name: x\ndevices:\n  - {name: a, memory: 1, compute_capability: '9.0', "
                     "multiprocessors: 1, count: 65}\n"),
            "m.yaml:3: devices[0].count: expected an integer from 1 to 64, got '65'");
}

TEST(MockMachineFile, FaultCodesAndEntryPoints) {
  const std::string head =
      "name: x\ndevices:\n  - {name: a, memory: 1, compute_capability: '9.0', "
      "multiprocessors: 1}\nfaults:\n";
  EXPECT_EQ(error_of(head + "  driver_init: CUDA_ERROR_NOPE\n"),
            "m.yaml:5: faults.driver_init: expected a non-zero CUDA result code (name or number), "
            "got 'CUDA_ERROR_NOPE'");
  EXPECT_EQ(error_of(head + "  driver_init: NVML_ERROR_UNKNOWN\n"),
            "m.yaml:5: faults.driver_init: expected a non-zero CUDA result code (name or number), "
            "got 'NVML_ERROR_UNKNOWN'");
  EXPECT_EQ(
      error_of(head + "  nvml_init: NVML_SUCCESS\n"),
      "m.yaml:5: faults.nvml_init: expected a non-zero NVML result code (name or number), got "
      "'NVML_SUCCESS'");
  // An unknown name lists the closest known names (edit distance, ignoring case).
  EXPECT_EQ(error_of(head + "  calls:\n    - {entry: cuMemAloc, code: 2}\n"),
            "m.yaml:6: faults.calls[0].entry: expected an entry point of the mock's APIs "
            "(closest: cuMemAlloc, cuMemAlloc_v2), got 'cuMemAloc'");
  EXPECT_EQ(error_of(head + "  calls:\n    - {entry: cuMemGetInfo_v3, code: 2}\n"),
            "m.yaml:6: faults.calls[0].entry: expected an entry point of the mock's APIs "
            "(closest: cuMemGetInfo, cuMemGetInfo_v2), got 'cuMemGetInfo_v3'");
  EXPECT_EQ(error_of(head + "  calls:\n    - {entry: nvmlinit, code: 2}\n"),
            "m.yaml:6: faults.calls[0].entry: expected an entry point of the mock's APIs "
            "(closest: nvmlInit), got 'nvmlinit'");
  EXPECT_EQ(error_of(head + "  calls:\n    - {entry: reticulateSplines, code: 2}\n"),
            "m.yaml:6: faults.calls[0].entry: expected an entry point of the mock's APIs, by "
            "exported symbol (cuMemAlloc_v2) or base name (cuMemAlloc), got 'reticulateSplines'");
  EXPECT_EQ(
      error_of(head + "  calls:\n    - {entry: cuInit, nth: -1, code: 2}\n"),
      "m.yaml:6: faults.calls[0].nth: expected an integer from 0 to 18446744073709551615, got "
      "'-1'");
  EXPECT_EQ(
      error_of(head + "  calls:\n    - {entry: nvmlInit_v2, code: CUDA_ERROR_UNKNOWN}\n"),
      "m.yaml:6: faults.calls[0].code: expected a non-zero NVML result code (name or number), "
      "got 'CUDA_ERROR_UNKNOWN'");
  EXPECT_EQ(error_of(head + "  calls:\n    - {entry: cuInit}\n"),
            "m.yaml:6: faults.calls[0].code: expected a result code (required), got ''");
  EXPECT_EQ(error_of(head + "  sticky:\n    - {device: 1, code: 700}\n"),
            "m.yaml:6: faults.sticky[0].device: expected an integer from 0 to 0, got '1'");
}

TEST(MockMachineFile, InvalidYamlNamesTheLine) {
  std::string e = error_of("name: x\ndevices: [\n  - a\n");
  EXPECT_EQ(e.rfind("m.yaml:", 0), 0u) << e;
  EXPECT_NE(e.find(": (document): expected valid YAML, got '"), std::string::npos) << e;
}

// Found by the machine-file fuzzer: an empty or blank document has no node, so no line;
// it is reported at line 1 (lines are 1-based; 0 is only for a file that cannot be read).
TEST(MockMachineFile, EmptyDocumentIsReportedAtLineOne) {
  EXPECT_EQ(error_of(""),
            "m.yaml:1: (document): expected a mapping with keys name, devices, got ''");
  EXPECT_EQ(error_of("  \n\n"),
            "m.yaml:1: (document): expected a mapping with keys name, devices, got ''");
  EXPECT_EQ(error_of("# only a comment\n"),
            "m.yaml:1: (document): expected a mapping with keys name, devices, got ''");
}

TEST(MockMachineFile, ErrorCarriesFileAndLine) {
  try {
    parse_machine("name: x\ndevices: 4\n", "here.yaml");
    FAIL() << "no error";
  } catch (const MachineFileError& e) {
    EXPECT_EQ(e.file(), "here.yaml");
    EXPECT_EQ(e.line(), 2);
  }
}

TEST(MockMachineFile, LoadUnknownNameOrMissingFile) {
  try {
    load_machine("4xh10");
    FAIL() << "no error";
  } catch (const MachineFileError& e) {
    EXPECT_STREQ(e.what(),
                 "machine '4xh10': no such preset or file (presets: 4xh100, 8xh100, 2xa100, "
                 "1xa100, mixed, none, 2xmax1550, laptop_igpu, mixed_vendors)");
  }
  EXPECT_THROW(load_machine("no/such/machine.yaml"), MachineFileError);
}

// accel_add_mock_test (cmake/AccelTesting.cmake) checks MACHINE against ACCEL_MOCKDEV_PRESETS
// and the install rules install scenarios/machines/<preset>.yaml for each: both lists are
// the presets, and each has its file.
TEST(MockPresets, TheCMakeListIsThePresetsAndEachHasAFile) {
  std::string joined;
  for (const std::string& name : preset_names()) {
    joined += (joined.empty() ? "" : ",") + name;
    EXPECT_TRUE(std::filesystem::is_regular_file(std::string(MOCKDEV_TEST_MACHINES_DIR) + "/" +
                                                 name + ".yaml"))
        << name;
  }
  EXPECT_EQ(joined, MOCKDEV_TEST_CMAKE_PRESETS);
}

TEST(MockMachineFile, EveryScenarioMachineParsesAndPresetFilesMatchThePresets) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(MOCKDEV_TEST_MACHINES_DIR)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    MachineSpec m = load_machine(entry.path().string());
    EXPECT_EQ(m.source, entry.path().string());
    std::optional<std::string> preset = preset_yaml(entry.path().stem().string());
    if (!preset) continue;
    MachineSpec p = parse_machine(*preset, "preset");
    EXPECT_EQ(m.name, p.name) << entry.path();
    ASSERT_EQ(m.devices.size(), p.devices.size()) << entry.path();
    for (std::size_t i = 0; i < m.devices.size(); ++i) {
      EXPECT_EQ(m.devices[i].name, p.devices[i].name);
      EXPECT_EQ(m.devices[i].memory_bytes, p.devices[i].memory_bytes);
      EXPECT_EQ(m.devices[i].uuid, p.devices[i].uuid);
      EXPECT_EQ(m.devices[i].multiprocessor_count, p.devices[i].multiprocessor_count);
    }
  }
  EXPECT_GE(files, 8);
}

TEST(MockResultCodes, NamesAndNumbers) {
  EXPECT_EQ(parse_result_code("CUDA_ERROR_OUT_OF_MEMORY"), 2);
  EXPECT_EQ(parse_result_code("CUDA_ERROR_ILLEGAL_ADDRESS"), 700);
  EXPECT_EQ(parse_result_code("NVML_ERROR_DRIVER_NOT_LOADED"), 9);
  EXPECT_EQ(parse_result_code("NVML_ERROR_UNKNOWN"), 999);
  EXPECT_EQ(parse_result_code("101"), 101);
  EXPECT_EQ(parse_result_code("+7"), 7);
  EXPECT_EQ(parse_result_code("-3"), -3);
  EXPECT_FALSE(parse_result_code("").has_value());
  EXPECT_FALSE(parse_result_code("cuda_error_unknown").has_value());
  EXPECT_FALSE(parse_result_code("12abc").has_value());
}

// The name a user sees in an error message (the base name) and the exported symbol both
// name the entry point; the spec holds the exported symbol.
TEST(MockMachineFile, FaultEntriesAcceptBaseNamesAndSymbols) {
  MachineSpec m = parse_machine(
      "name: x\ndevices: []\nfaults:\n  calls:\n"
      "    - {entry: cuMemGetInfo, code: 2}\n"
      "    - {entry: cuMemGetInfo_v2, code: 2}\n"
      "    - {entry: cuDeviceTotalMem, code: 2}\n"
      "    - {entry: cuGetProcAddress, code: 2}\n"
      "    - {entry: nvmlInit, code: NVML_ERROR_UNKNOWN}\n",
      "m.yaml");
  ASSERT_EQ(m.faults.calls.size(), 5u);
  EXPECT_EQ(m.faults.calls[0].entry_point, "cuMemGetInfo_v2");
  EXPECT_EQ(m.faults.calls[1].entry_point, "cuMemGetInfo_v2");
  EXPECT_EQ(m.faults.calls[2].entry_point, "cuDeviceTotalMem_v2");
  EXPECT_EQ(m.faults.calls[3].entry_point, "cuGetProcAddress");  // a symbol itself
  EXPECT_EQ(m.faults.calls[4].entry_point, "nvmlInit");
  EXPECT_EQ(m.faults.calls[4].api, Api::kNvml);
  EXPECT_EQ(m.faults.calls[0].api, Api::kCuda);
}

}  // namespace
}  // namespace mockdev

namespace mockdev {
namespace {

// An explicit identifier that a later device would get by default: the error names the
// explicit key's line, not the later device (which has no such key in the file).
TEST(MockMachineFile, ExplicitIdEqualToALaterGeneratedOne) {
  const std::string head = "name: x\ndevices:\n";
  const std::string plain = "{name: b, memory: 1, compute_capability: '9.0', multiprocessors: 1}";
  EXPECT_EQ(error_of(head +
                     "  - {name: a, memory: 1, compute_capability: '9.0', multiprocessors: 1,\n"
                     "     pci_bus_id: 00000000:11:00.0}\n"
                     "  - " +
                     plain + "\n"),
            "m.yaml:4: devices[0].pci_bus_id: expected a PCI bus id no other device has "
            "(device 1 gets it by default), got '00000000:11:00.0'");
  const std::string generated = core::generate_uuid("x", 2);
  EXPECT_EQ(error_of(head + "  - " + plain +
                     "\n  - {name: a, memory: 1, compute_capability: "
                     "'9.0', multiprocessors: 1, uuid: " +
                     generated + "}\n  - " + plain + "\n"),
            "m.yaml:4: devices[1].uuid: expected a UUID no other device has (device 2 gets it "
            "by default), got '" +
                generated + "'");
  // The same clash through a `count` entry.
  EXPECT_EQ(
      error_of(head + "  - {name: a, memory: 1, compute_capability: '9.0', multiprocessors: 1,\n"
                      "     pci_bus_id: 00000000:12:00.0}\n"
                      "  - {name: b, memory: 1, compute_capability: '9.0', multiprocessors: 1, "
                      "count: 3}\n"),
      "m.yaml:4: devices[0].pci_bus_id: expected a PCI bus id no other device has "
      "(device 2 gets it by default), got '00000000:12:00.0'");
}

}  // namespace
}  // namespace mockdev

namespace mockdev {
namespace {

// Every fault belongs to one API and its code must be one of that API's codes.
TEST(MockMachineFile, FaultsNameTheirApi) {
  const std::string head =
      "name: x\ndevices:\n  - {name: a, memory: 1, compute_capability: '9.0', "
      "multiprocessors: 1}\nfaults:\n";
  MachineSpec m = parse_machine(head +
                                    "  calls:\n    - {entry: nvmlInit_v2, code: 999}\n"
                                    "    - {entry: cuInit, code: 999}\n"
                                    "  sticky:\n    - {device: 0, code: 700, api: cuda}\n"
                                    "    - {device: 0, code: 214}\n",
                                "m.yaml");
  ASSERT_EQ(m.faults.calls.size(), 2u);
  EXPECT_EQ(m.faults.calls[0].api, Api::kNvml);
  EXPECT_EQ(m.faults.calls[1].api, Api::kCuda);
  ASSERT_EQ(m.faults.sticky.size(), 2u);
  EXPECT_EQ(m.faults.sticky[0].api, Api::kCuda);
  EXPECT_EQ(m.faults.sticky[1].api, Api::kCuda);
  EXPECT_EQ(error_of(head + "  sticky:\n    - {device: 0, code: 700, api: nvml}\n"),
            "m.yaml:6: faults.sticky[0].api: expected an API whose calls touch a device (cuda, "
            "level_zero), got 'nvml'");
  EXPECT_EQ(error_of(head + "  sticky:\n    - {device: 0, code: NVML_ERROR_GPU_IS_LOST}\n"),
            "m.yaml:6: faults.sticky[0].code: expected a non-zero CUDA result code (name or "
            "number), got 'NVML_ERROR_GPU_IS_LOST'");
  EXPECT_EQ(error_of(head + "  calls:\n    - {entry: cuMemFree_v2, code: NVML_ERROR_UNKNOWN}\n"),
            "m.yaml:6: faults.calls[0].code: expected a non-zero CUDA result code (name or "
            "number), got 'NVML_ERROR_UNKNOWN'");
  EXPECT_EQ(api_name(Api::kCuda), "cuda");
  EXPECT_EQ(api_name(Api::kNvml), "nvml");
  EXPECT_EQ(parse_result_code(Api::kNvml, "NVML_ERROR_GPU_IS_LOST"), 15);
  EXPECT_FALSE(parse_result_code(Api::kCuda, "NVML_ERROR_GPU_IS_LOST").has_value());
  EXPECT_EQ(parse_result_code(Api::kCuda, "-3"), -3);
}

}  // namespace
}  // namespace mockdev
