// Pure parts of the Level Zero backend: ze_result_t text and Status, the
// ZE_AFFINITY_MASK / ZE_FLAT_DEVICE_HIERARCHY syntax checks (Note [Level Zero visibility
// variables]), PyTorch's mask parse and Sysman count (torch/xpu/__init__.py), dtypes,
// the probe timeout setting and the count cache. No loader, no driver.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "backends/level_zero/ze_counting.h"
#include "backends/level_zero/ze_device_facts.h"
#include "backends/level_zero/ze_status.h"
#include "backends/level_zero/ze_visibility.h"
#include "scoped_env.h"

namespace accel::detail::level_zero {
namespace {

using accel::test::ScopedEnv;

// ---- ze_status ---------------------------------------------------------------------

TEST(ZeStatusTest, KnownCodesHaveTheirNameAndHex) {
  EXPECT_EQ(ze_result_text(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY),
            "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY (0x70000003)");
  EXPECT_EQ(ze_result_text(ZE_RESULT_ERROR_UNINITIALIZED),
            "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)");
  EXPECT_EQ(ze_result_text(ZE_RESULT_NOT_READY), "ZE_RESULT_NOT_READY (0x1)");
  EXPECT_EQ(ze_result_text(ZE_RESULT_ERROR_UNKNOWN), "ZE_RESULT_ERROR_UNKNOWN (0x7ffffffe)");
}

TEST(ZeStatusTest, UnknownCodesArePrintedInHexOnly) {
  // ZE_RESULT_ERROR_ADDRESS_NOT_FOUND (spec 1.14) is not in the 1.4 headers: never guessed.
  const auto address_not_found = static_cast<ze_result_t>(0x78000021);
  EXPECT_EQ(ze_result_name(address_not_found), nullptr);
  EXPECT_EQ(ze_result_text(address_not_found), "unknown ze_result_t (0x78000021)");
}

TEST(ZeStatusTest, OutOfMemoryCodesAreOutOfMemory) {
  Status device = ze_status(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY, "allocate", 1);
  EXPECT_EQ(device.kind(), ErrorKind::kOutOfMemory);
  EXPECT_EQ(device.message(),
            "allocate: Level Zero error ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY (0x70000003) "
            "(device=1)");
  EXPECT_EQ(device.detail().device, 1);
  EXPECT_EQ(device.detail().driver_code, 0x70000003);
  EXPECT_EQ(device.detail().driver_error_name, "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY");
  EXPECT_EQ(ze_status(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY, "allocate_host").kind(),
            ErrorKind::kOutOfMemory);
}

TEST(ZeStatusTest, OtherCodesAreDriverErrors) {
  Status lost = ze_status(ZE_RESULT_ERROR_DEVICE_LOST, "synchronize_device");
  EXPECT_EQ(lost.kind(), ErrorKind::kDriver);
  EXPECT_EQ(lost.message(),
            "synchronize_device: Level Zero error ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)");
  EXPECT_FALSE(lost.detail().device.has_value());
  Status unknown = ze_status(static_cast<ze_result_t>(0x78000021), "zeMemGetAddressRange");
  EXPECT_EQ(unknown.detail().driver_error_name, "");
  EXPECT_EQ(unknown.message(),
            "zeMemGetAddressRange: Level Zero error unknown ze_result_t (0x78000021)");
}

// ---- ZE_AFFINITY_MASK syntax -----------------------------------------------------

TEST(ZeVisibilityTest, WellFormedMasksPass) {
  for (const char* mask : {"0", "1", "0,1", "0.1", "1.1,1.0", "2,0", "0, 1", "0,  1.1", "0x1",
                           "0X1f.0x0", "10,11", " 0",
                           // signed entries: the driver's strtoul skips them as out of range,
                           // PyTorch skips negatives (decision 208)
                           "-1", "1,-1,0", "+1", "-0x1", "0.-1"}) {
    Status status = check_affinity_mask(std::string_view(mask));
    EXPECT_TRUE(status.ok()) << "'" << mask << "': " << status.message();
  }
  EXPECT_TRUE(check_affinity_mask(std::nullopt).ok());
  EXPECT_TRUE(check_affinity_mask(std::string_view("")).ok());  // empty = everything
}

TEST(ZeVisibilityTest, MalformedMasksAreConfigErrorsNamingTheEntry) {
  struct Case {
    const char* mask;
    const char* entry;
  };
  for (const Case& c : {Case{"0,x", "x"}, Case{"0.1.2", "0.1.2"}, Case{"0,,1", ""}, Case{"0,", ""},
                        Case{"--1", "--1"}, Case{"1 ,0", "1 "}, Case{"0x", "0x"}, Case{"0.", "0."},
                        Case{"a.0", "a.0"}, Case{"0,1.x", "1.x"}, Case{"COMPOSITE", "COMPOSITE"},
                        Case{"-", "-"}, Case{"0,+", "+"}, Case{"+-1", "+-1"}}) {
    Status status = check_affinity_mask(std::string_view(c.mask));
    EXPECT_EQ(status.kind(), ErrorKind::kConfig) << c.mask;
    EXPECT_EQ(status.message(), std::string("ZE_AFFINITY_MASK='") + c.mask + "': entry '" +
                                    c.entry +
                                    "' is not a device index (expected N or N.M, e.g. '0,1.0')");
  }
}

// ---- ZE_FLAT_DEVICE_HIERARCHY (the driver ignores bad values; the runtime refuses) ----

TEST(ZeVisibilityTest, HierarchyMustBeOneOfTheThreeExactValues) {
  for (const char* value : {"COMPOSITE", "FLAT", "COMBINED"}) {
    EXPECT_TRUE(check_flat_device_hierarchy(std::string_view(value)).ok()) << value;
  }
  EXPECT_TRUE(check_flat_device_hierarchy(std::nullopt).ok());
  EXPECT_TRUE(check_flat_device_hierarchy(std::string_view("")).ok());
  for (const char* value : {"flat", "Flat", "FLAT ", "TREE", "1"}) {
    Status status = check_flat_device_hierarchy(std::string_view(value));
    EXPECT_EQ(status.kind(), ErrorKind::kConfig) << value;
    EXPECT_EQ(status.message(),
              std::string("ZE_FLAT_DEVICE_HIERARCHY='") + value +
                  "' is not a device hierarchy (expected COMPOSITE, FLAT or COMBINED; the "
                  "driver would silently use its default)");
  }
}

// ---- PyTorch's mask parse (torch/xpu/__init__.py) ---------------------------------------

std::vector<int> range_to(int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) out.push_back(i);
  return out;
}

TEST(ZeVisibilityTest, PytorchMaskParse) {
  EXPECT_EQ(pytorch_mask_indices(std::nullopt), range_to(128));
  EXPECT_EQ(pytorch_mask_indices(std::string_view("")), range_to(128));
  EXPECT_EQ(pytorch_mask_indices(std::string_view("1,0")), (std::vector<int>{1, 0}));
  EXPECT_EQ(pytorch_mask_indices(std::string_view(" 2 , 0 ")), (std::vector<int>{2, 0}));
  // Duplicates dropped (unlike CUDA, where a duplicate hides everything).
  EXPECT_EQ(pytorch_mask_indices(std::string_view("0,0,1")), (std::vector<int>{0, 1}));
  // Negatives skipped, not a terminator.
  EXPECT_EQ(pytorch_mask_indices(std::string_view("-1,2")), (std::vector<int>{2}));
  // Any non-integer token: the empty list ("cannot tell").
  EXPECT_EQ(pytorch_mask_indices(std::string_view("0.0,0.1")), std::vector<int>{});
  EXPECT_EQ(pytorch_mask_indices(std::string_view("0,x")), std::vector<int>{});
  EXPECT_EQ(pytorch_mask_indices(std::string_view("0x1")), std::vector<int>{});
  EXPECT_EQ(pytorch_mask_indices(std::string_view("0,")), std::vector<int>{});
}

// ---- PyTorch's Sysman count (torch/xpu/__init__.py) -----------------------------------

const SysmanDevice kMax1550{false, 2};  // tiled discrete
const SysmanDevice kArc{false, 0};      // untiled discrete
const SysmanDevice kIgpu{true, 0};      // integrated

TEST(ZeSysmanCountTest, TiledDiscreteGpusCountTilesUnlessComposite) {
  const std::vector<SysmanDevice> two_max{kMax1550, kMax1550};
  EXPECT_EQ(sysman_logical_count(two_max, std::nullopt, std::nullopt), 4);
  EXPECT_EQ(sysman_logical_count(two_max, std::string_view("FLAT"), std::nullopt), 4);
  EXPECT_EQ(sysman_logical_count(two_max, std::string_view("COMBINED"), std::nullopt), 4);
  EXPECT_EQ(sysman_logical_count(two_max, std::string_view("COMPOSITE"), std::nullopt), 2);
}

TEST(ZeSysmanCountTest, MaskSelectsLogicalIndices) {
  const std::vector<SysmanDevice> two_max{kMax1550, kMax1550};
  struct Case {
    const char* hierarchy;  // nullptr: unset
    const char* mask;
    int expected;
  };
  for (const Case& c :
       {Case{nullptr, "0", 1}, Case{nullptr, "3", 1}, Case{nullptr, "0,3", 2},
        Case{nullptr, "4", 0}, Case{nullptr, "0,0,1", 2}, Case{nullptr, "-1,1", 1},
        Case{"COMPOSITE", "1", 1}, Case{"COMPOSITE", "2,3", 0}, Case{"COMPOSITE", "0,1,2", 2},
        Case{nullptr, "0.1", -1}, Case{"COMPOSITE", "0.0,0.1", -1}}) {
    auto hierarchy = c.hierarchy ? std::optional<std::string_view>(c.hierarchy) : std::nullopt;
    EXPECT_EQ(sysman_logical_count(two_max, hierarchy, std::string_view(c.mask)), c.expected)
        << "hierarchy=" << (c.hierarchy ? c.hierarchy : "<unset>") << " mask=" << c.mask;
  }
}

TEST(ZeSysmanCountTest, DiscreteIsPreferredOverIntegrated) {
  EXPECT_EQ(sysman_logical_count({kIgpu}, std::nullopt, std::nullopt), 1);
  EXPECT_EQ(sysman_logical_count({kIgpu, kArc}, std::nullopt, std::nullopt), 1);
  EXPECT_EQ(sysman_logical_count({kIgpu, kMax1550}, std::nullopt, std::nullopt), 2);
  // Logical numbering still counts the integrated GPU's index: 0 = iGPU, 1..2 = tiles.
  EXPECT_EQ(sysman_logical_count({kIgpu, kMax1550}, std::nullopt, std::string_view("0")), 1);
  EXPECT_EQ(sysman_logical_count({kIgpu, kMax1550}, std::nullopt, std::string_view("0,2")), 1);
  EXPECT_EQ(sysman_logical_count({kIgpu, kMax1550}, std::nullopt, std::string_view("1,2")), 2);
  EXPECT_EQ(sysman_logical_count({}, std::nullopt, std::nullopt), 0);
}

TEST(ZeSysmanCountTest, IntegratedGpusNeverSpanTiles) {
  const SysmanDevice odd_igpu{true, 2};  // integrated with sub-devices: still one
  EXPECT_EQ(sysman_logical_count({odd_igpu}, std::nullopt, std::nullopt), 1);
}

// ---- dtypes (Note [Level Zero dtypes]) ---------------------------------------------------

TEST(ZeDeviceFactsTest, Fp64DtypesOnlyWithFp64) {
  const std::vector<ScalarType> with = supported_dtypes(true);
  const std::vector<ScalarType> without = supported_dtypes(false);
  EXPECT_EQ(with.size(), all_scalar_types().size());
  EXPECT_EQ(without.size(), all_scalar_types().size() - 2);
  for (ScalarType type : {ScalarType::kFloat64, ScalarType::kComplex128}) {
    EXPECT_NE(std::find(with.begin(), with.end(), type), with.end());
    EXPECT_EQ(std::find(without.begin(), without.end(), type), without.end());
  }
  EXPECT_NE(std::find(without.begin(), without.end(), ScalarType::kBFloat16), without.end());
}

TEST(ZeDeviceFactsTest, UuidText) {
  const std::uint8_t bytes[16] = {0x86, 0x80, 0xd5, 0x0b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0xab, 0xff};
  EXPECT_EQ(format_uuid(bytes), "8680d50b-0001-0203-0405-06070809abff");
}

// ---- probe timeout and cache ---------------------------------------------------------------

TEST(ZeCountSettingsTest, ProbeTimeout) {
  {
    ScopedEnv unset(kProbeTimeoutVariable, std::nullopt);
    EXPECT_EQ(*probe_timeout_ms(), 10000);
  }
  {
    ScopedEnv set(kProbeTimeoutVariable, "250");
    EXPECT_EQ(*probe_timeout_ms(), 250);
  }
  for (const char* bad : {"0", "-5", "1s", "12345678901", " 10"}) {
    ScopedEnv set(kProbeTimeoutVariable, bad);
    Result<int> timeout = probe_timeout_ms();
    ASSERT_FALSE(timeout.ok()) << bad;
    EXPECT_EQ(timeout.status().kind(), ErrorKind::kConfig);
    EXPECT_EQ(timeout.status().message(),
              std::string("ACCEL_LEVEL_ZERO_PROBE_TIMEOUT_MS='") + bad +
                  "' is not a positive number of milliseconds (e.g. '10000')");
  }
}

TEST(ZeCountSettingsTest, CacheKeyFollowsTheThreeVariables) {
  ScopedEnv mask("ZE_AFFINITY_MASK", std::nullopt);
  ScopedEnv hierarchy("ZE_FLAT_DEVICE_HIERARCHY", std::nullopt);
  ScopedEnv drivers("ZE_ENABLE_ALT_DRIVERS", std::nullopt);
  const std::string unset = count_cache_key();
  std::string with_mask;
  {
    ScopedEnv set("ZE_AFFINITY_MASK", "0");
    with_mask = count_cache_key();
  }
  std::string with_empty_mask;
  {
    ScopedEnv set("ZE_AFFINITY_MASK", "");
    with_empty_mask = count_cache_key();
  }
  std::string with_hierarchy;
  {
    ScopedEnv set("ZE_FLAT_DEVICE_HIERARCHY", "COMPOSITE");
    with_hierarchy = count_cache_key();
  }
  std::string with_driver;
  {
    ScopedEnv set("ZE_ENABLE_ALT_DRIVERS", "/a.so");
    with_driver = count_cache_key();
  }
  const std::vector<std::string> keys{unset, with_mask, with_empty_mask, with_hierarchy,
                                      with_driver};
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (std::size_t j = i + 1; j < keys.size(); ++j) EXPECT_NE(keys[i], keys[j]) << i << j;
  }
  EXPECT_EQ(count_cache_key(), unset);
}

TEST(ZeCountSettingsTest, CacheReturnsTheLatestEntryPerKey) {
  CountCache cache;
  EXPECT_FALSE(cache.find("a").has_value());
  cache.add("a", ForkSafeCount{2, "probe", ""});
  cache.add("b", ForkSafeCount{-1, "probe", "killed"});
  cache.add("a", ForkSafeCount{4, "driver", ""});
  ASSERT_TRUE(cache.find("a").has_value());
  EXPECT_EQ(cache.find("a")->count, 4);
  EXPECT_EQ(cache.find("a")->source, "driver");
  EXPECT_EQ(cache.find("b")->count, -1);
  EXPECT_EQ(cache.find("b")->reason, "killed");
}

}  // namespace
}  // namespace accel::detail::level_zero
