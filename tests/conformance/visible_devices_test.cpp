// Conformance: every CUDA_VISIBLE_DEVICES example of PyTorch's parser tests, end to end, plus
// malformed values. For each row, a child of a process that never initialised sets the variable and
// checks (1) the runtime's fork-safe count (NVML path: cuInit must not be called, except
// for MIG lists, where PyTorch's rules fall back to the driver), then (2) after init(), the
// driver's own count through the mock facade and which physical device each visible
// index is (by UUID).
//
// Note [Where NVML-side and driver-side rules differ]
// The runtime's NVML path follows PyTorch's parser (torch/cuda/__init__.py); the simulated driver
// follows the driver's rules (mockdev/src/cuda/visible_devices.h), which were recorded on
// real hardware (docs/HARDWARE.md). They agree on every example PyTorch documents, and on
// blanks around UUID entries (neither trims them). They differ on:
//  - MIG- lists: PyTorch's NVML path cannot resolve MIG instances and answers "unknown",
//    so device_count() falls back to the driver's count (which calls cuInit).
//  - Letter case in UUIDs: the driver ignores it, PyTorch's parser does not.
//  - Ordinals of 2^32 and more: the driver cuts them to 32 bits ("4294967296" is 0);
//    PyTorch's parser reads them exactly (out of range).
//  - "GPU-" alone: PyTorch's prefix match lets it match every device (one device: that
//    one); the driver selects nothing.
// And accel differs from PyTorch itself where PyTorch raises: a bare sign ("+", "-") is a
// ValueError in PyTorch's _strtoul; accel reads it as an entry without digits.
// Rows state both answers separately so such a difference is explicit, never silent.

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "accel/accelerator.h"
#include "accel/error.h"
#include "accel/lazy_init.h"
#include "child_process.h"
#include "driver_count.h"
#include "error_check.h"
#include "mockdev/control.h"
#include "mockdev/machine.h"

#ifndef ACCEL_CONFORMANCE_DATA_DIR
#error "ACCEL_CONFORMANCE_DATA_DIR must name tests/conformance/data"
#endif

namespace accel::test {
namespace {

const std::string kEightGpus =
    std::string(ACCEL_CONFORMANCE_DATA_DIR) + "/visible_devices_8gpu.yaml";
const std::string kTwoGpus = "2xa100";

struct Row {
  std::string name;                  // gtest parameter name
  std::string machine;               // machine file or preset
  std::optional<std::string> value;  // CUDA_VISIBLE_DEVICES; nullopt = unset
  std::optional<int> nvml_count;     // fork-safe count; nullopt = NVML path cannot answer
  std::vector<int> driver_visible;   // physical devices the driver exposes, in order
  std::string note;
};

std::ostream& operator<<(std::ostream& os, const Row& row) {
  return os << row.name << " [CUDA_VISIBLE_DEVICES="
            << (row.value ? "'" + *row.value + "'" : std::string("<unset>")) << "]";
}

// PyTorch's test/test_cuda.py examples (test_env_var_parsing, _transform_uuid_to_ordinals,
// test_ordinal_parse_visible_devices), then malformed values.
const std::vector<Row>& rows() {
  static const std::vector<Row> kRows = {
      {"Unset", kEightGpus, std::nullopt, 8, {0, 1, 2, 3, 4, 5, 6, 7}, ""},
      {"TrailingJunkIgnored", kEightGpus, "1gpu2,2ampere", 2, {1, 2}, "strtoul-like"},
      {"NegativeStops", kEightGpus, "0, 1, 2, -1, 3", 3, {0, 1, 2}, ""},
      {"DuplicateHidesAll", kEightGpus, "0, 1, 2, 1", 0, {}, ""},
      {"SignsAccepted", kEightGpus, "2, +3, -0, 5", 4, {2, 3, 0, 5}, "-0 is 0"},
      {"LeadingWordsHideAll", kEightGpus, "one,two,3,4", 0, {}, ""},
      {"TrailingWordsStop", kEightGpus, "4,3,two,one", 2, {4, 3}, ""},
      {"UuidPrefix", kEightGpus, "GPU-9e8d35e3", 1, {1}, ""},
      {"UuidListStopsAtOrdinal", kEightGpus, "GPU-123, 2", 0, {}, "GPU-123 matches nothing"},
      {"MigFallsBackToDriver",
       kEightGpus,
       "MIG-89c850dc",
       std::nullopt,
       {3},
       "NVML path cannot resolve MIG: driver count"},
      {"UuidsInOrder", kEightGpus, "GPU-e4,GPU-9e8d35e3", 2, {2, 1}, ""},
      {"ThreeUuids", kEightGpus, "GPU-9e8d35e3,GPU-1,GPU-47", 3, {1, 7, 5}, ""},
      {"UnknownUuidFirstHidesAll", kEightGpus, "GPU-123,GPU-9e8d35e3", 0, {}, ""},
      {"UnknownUuidStops", kEightGpus, "GPU-9e8d35e3,GPU-123,GPU-47", 1, {1}, ""},
      {"AmbiguousUuidStops", kEightGpus, "GPU-9e8d35e3,GPU-e,GPU-47", 1, {1}, ""},
      {"SameDeviceTwiceHidesAll",
       kEightGpus,
       "GPU-9e8d35e3,GPU-47,GPU-9e8",
       0,
       {},
       "GPU-9e8 is device 1 again"},
      {"TruncatedAtMissingOrdinalKeepsAll", kTwoGpus, "1, 0", 2, {1, 0}, "2 devices"},
      {"TruncatedAtMissingOrdinal", kTwoGpus, "1, 5, 0", 1, {1}, "2 devices"},
      // Malformed values: never a crash; answers by the same rules.
      {"BadEmpty", kEightGpus, "", 0, {}, ""},
      {"BadBlank", kEightGpus, "   ", 0, {}, ""},
      {"BadCommaOnly", kEightGpus, ",", 0, {}, ""},
      // Deliberate difference from PyTorch: its _strtoul raises ValueError on a bare sign;
      // accel reads it as an entry without digits (the list stops), like the driver.
      {"BadSignOnly", kEightGpus, "-", 0, {}, "differs from PyTorch (ValueError there)"},
      {"BadPlusOnly", kEightGpus, "+", 0, {}, "differs from PyTorch (ValueError there)"},
      {"BadMinusOne", kEightGpus, "-1", 0, {}, ""},
      {"BadHugeOrdinal", kEightGpus, "99999999999999999999", 0, {}, ""},
      {"BadOrdinalPastEnd", kEightGpus, "8", 0, {}, ""},
      {"BadHex", kEightGpus, "0x1", 1, {0}, "reads as 0"},
      {"BadEmptyEntryStops", kEightGpus, "1,,2", 1, {1}, ""},
      {"BadTabbed", kEightGpus, "\t3", 1, {3}, "blanks stripped"},
      {"BadInnerBlank", kEightGpus, "1 2", 1, {1}, "reads as 1"},
      {"BadNegativeLater", kEightGpus, "3,-1,2", 1, {3}, ""},
      {"BadRepeatedZero", kEightGpus, "0,0", 0, {}, ""},
      {"BadPrefixOnly", kEightGpus, "GPU-", 0, {}, "matches all 8: ambiguous"},
      {"BadMigPrefixOnly",
       kEightGpus,
       "MIG-",
       std::nullopt,
       {},
       "an empty prefix selects nothing in the driver (recorded)"},
      {"BadUppercaseUuid",
       kEightGpus,
       "GPU-9E8D35E3",
       0,
       {1},
       "differs: PyTorch compares case; the driver does not (recorded)"},
      {"BadRepeatedUuid", kEightGpus, "GPU-9e8d35e3,GPU-9e8d35e3", 0, {}, ""},
      {"BadUuidThenOrdinal", kEightGpus, "GPU-9e8d35e3,1", 1, {1}, ""},
      {"BadOrdinalThenUuid", kEightGpus, "1,GPU-9e8d35e3", 1, {1}, ""},
      {"BadNonUtf8", kEightGpus, "\xff\xfe", 0, {}, ""},
      {"BadVeryLong", kEightGpus, std::string(20000, '7'), 0, {}, "one huge ordinal"},
      {"BadManyRepeats",
       kEightGpus,
       [] {
         std::string v;
         for (int i = 0; i < 2000; ++i) v += "5,";
         return v;
       }(),
       0,
       {},
       "duplicates"},
      {"BlankBeforeUuid",
       kEightGpus,
       " GPU-9e8d35e3",
       0,
       {},
       "no trimming on either side (the driver's recorded on real hardware)"},
      {"BlankBetweenUuids", kEightGpus, "GPU-e4, GPU-9e8d35e3", 1, {2}, "both stop at ' GPU-...'"},
  };
  return kRows;
}

class VisibleDevicesConformance : public ::testing::TestWithParam<Row> {};

void check_row(const Row& row) {
  // The machine of this row, installed before anything touches the driver.
  const mockdev::MachineSpec machine = mockdev::load_machine(row.machine);
  mockdev::control::reset(machine);
  if (row.value) {
    setenv("CUDA_VISIBLE_DEVICES", row.value->c_str(), 1);
  } else {
    unsetenv("CUDA_VISIBLE_DEVICES");
  }
  ASSERT_FALSE(is_initialized());
  ASSERT_EQ(mockdev::control::call_count("cuInit"), 0u);

  // 1. Fork-safe count.
  const int count = device_count();
  const int driver_count = static_cast<int>(row.driver_visible.size());
  if (row.nvml_count) {
    EXPECT_EQ(count, *row.nvml_count) << "device_count() (NVML path)";
    EXPECT_EQ(mockdev::control::call_count("cuInit"), 0u)
        << "device_count() reached the driver although NVML can answer";
  } else {
    EXPECT_EQ(count, driver_count) << "device_count() must fall back to the driver's count";
    EXPECT_GE(mockdev::control::call_count("cuInit"), 1u)
        << "a MIG list cannot be counted through NVML; the fallback goes through the driver";
  }
  EXPECT_EQ(is_available(), count > 0);
  EXPECT_FALSE(is_initialized());

  // 2. The driver's view, after the runtime initialises.
  const CaughtError init_error = catch_error([] { init(); });
  if (driver_count == 0) {
    EXPECT_TRUE(init_error.thrown()) << "init() with no visible device";
    EXPECT_TRUE(init_error.type == "Error" && (init_error.kind == ErrorKind::kUnavailable ||
                                               init_error.kind == ErrorKind::kDriver))
        << init_error.describe();
    EXPECT_FALSE(is_initialized());
    const DriverCount probe = driver_device_count();
    EXPECT_TRUE(probe.result != 0 || probe.count == 0)
        << "driver: cuDeviceGetCount rc=" << probe.result << " count=" << probe.count;
    return;
  }
  ASSERT_FALSE(init_error.thrown()) << init_error.describe();
  const DriverCount probe = driver_device_count();
  ASSERT_EQ(probe.result, 0) << "cuDeviceGetCount failed: " << probe.error;
  EXPECT_EQ(probe.count, driver_count) << "the driver's count";
  for (int i = 0; i < driver_count && i < probe.count; ++i) {
    // A MIG instance may report its own UUID (formatted with the GPU- prefix) or its GPU's.
    const mockdev::DeviceSpec& physical = machine.devices.at(row.driver_visible[i]);
    const std::string uuid = get_device_properties(i).uuid;
    const bool is_mig_instance = !physical.mig_uuid.empty() && row.value &&
                                 row.value->rfind("MIG-", 0) == 0 &&
                                 uuid.substr(4) == physical.mig_uuid.substr(4);
    EXPECT_TRUE(uuid == physical.uuid || is_mig_instance)
        << "visible device " << i << " must be physical device " << row.driver_visible[i] << " ("
        << physical.uuid << "), got " << uuid;
  }
  std::printf("  %-36s nvml=%d driver=%d after-init device_count()=%d\n", row.name.c_str(), count,
              probe.count, device_count());
}

TEST_P(VisibleDevicesConformance, CountsThroughNvmlAndDriver) {
  const Row& row = GetParam();
  ASSERT_FALSE(is_initialized()) << "the parent of the row's child must never initialise";
  const ChildStatus status = run_in_child([&] { check_row(row); }, 20);
  EXPECT_TRUE(status.ok()) << row << " (" << row.note << "): child " << status.describe();
}

// On the simulated CUDA machine: the cuda_mock profile begins every row's name.
INSTANTIATE_TEST_SUITE_P(Spec, VisibleDevicesConformance, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<Row>& info) {
                           return "cuda_mock_" + info.param.name;
                         });

}  // namespace
}  // namespace accel::test
