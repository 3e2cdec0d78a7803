// CUDA_VISIBLE_DEVICES parsing, UUID-prefix resolution and truncation (PyTorch's
// torch/cuda/__init__.py), as pure functions: every example of PyTorch's tests, plus the edge cases
// of the strtoul rule.
#include "backends/cuda/cuda_visibility.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace accel::detail::cuda {
namespace {

using Ordinals = std::vector<int>;
using Uuids = std::vector<std::string>;

Ordinals ordinals(std::string_view value) {
  VisibleDevices parsed = parse_visible_devices(value);
  EXPECT_FALSE(parsed.is_uuid_list) << value;
  EXPECT_TRUE(parsed.uuids.empty()) << value;
  return parsed.ordinals;
}

Uuids uuids(std::string_view value) {
  VisibleDevices parsed = parse_visible_devices(value);
  EXPECT_TRUE(parsed.is_uuid_list) << value;
  EXPECT_TRUE(parsed.ordinals.empty()) << value;
  return parsed.uuids;
}

TEST(VisibleDevicesTest, UnsetMeansOrdinalsZeroToSixtyThree) {
  VisibleDevices parsed = parse_visible_devices(std::nullopt);
  EXPECT_FALSE(parsed.is_uuid_list);
  ASSERT_EQ(parsed.ordinals.size(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(parsed.ordinals[i], i);
}

// The examples of PyTorch's test_env_var_parsing (test/test_cuda.py).
TEST(VisibleDevicesTest, EnvVarParsingExamples) {
  EXPECT_EQ(ordinals("1gpu2,2ampere"), (Ordinals{1, 2}));
  EXPECT_EQ(ordinals("0, 1, 2, -1, 3"), (Ordinals{0, 1, 2}));
  EXPECT_EQ(ordinals("0, 1, 2, 1"), (Ordinals{}));
  EXPECT_EQ(ordinals("2, +3, -0, 5"), (Ordinals{2, 3, 0, 5}));
  EXPECT_EQ(ordinals("one,two,3,4"), (Ordinals{}));
  EXPECT_EQ(ordinals("4,3,two,one"), (Ordinals{4, 3}));
  EXPECT_EQ(uuids("GPU-9e8d35e3"), (Uuids{"GPU-9e8d35e3"}));
  EXPECT_EQ(uuids("GPU-123, 2"), (Uuids{"GPU-123"}));
  EXPECT_EQ(uuids("MIG-89c850dc"), (Uuids{"MIG-89c850dc"}));
}

TEST(VisibleDevicesTest, NumericEdgeCases) {
  EXPECT_EQ(ordinals(""), (Ordinals{}));
  EXPECT_EQ(ordinals("3"), (Ordinals{3}));
  EXPECT_EQ(ordinals(" 1 ,\t2 "), (Ordinals{1, 2}));
  EXPECT_EQ(ordinals("1,,2"), (Ordinals{1}));  // an empty element has no digits: stop
  // accel differs from PyTorch on purpose here (cuda_visibility.h): PyTorch raises
  // ValueError for a bare sign; accel treats it as an entry without digits and stops.
  EXPECT_EQ(ordinals("+"), (Ordinals{}));                          // a sign without digits: stop
  EXPECT_EQ(ordinals("0,-0"), (Ordinals{}));                       // -0 is 0: a duplicate
  EXPECT_EQ(ordinals("1,-5,1"), (Ordinals{1}));                    // stops before the duplicate
  EXPECT_EQ(ordinals("2147483647,0"), (Ordinals{2147483647, 0}));  // INT_MAX still fits
  EXPECT_EQ(ordinals("gpu-1"), (Ordinals{}));                      // lower case is not a UUID list
}

// An ordinal beyond int is invalid: the list ends there, as at a negative entry, so
// distinct huge ordinals are never mistaken for duplicates (they once saturated to
// INT_MAX, which made "0,3000000000,4000000000" count 0 here and 1 in the driver).
TEST(VisibleDevicesTest, OutOfRangeOrdinalEndsTheList) {
  EXPECT_EQ(ordinals("0,3000000000,4000000000"), (Ordinals{0}));
  EXPECT_EQ(truncate_to_raw_count(ordinals("0,3000000000,4000000000"), 4), 1);
  EXPECT_EQ(ordinals("2147483648"), (Ordinals{}));
  EXPECT_EQ(ordinals("99999999999999,0"), (Ordinals{}));
  EXPECT_EQ(ordinals("1,99999999999999999999999999999,1"), (Ordinals{1}));
  EXPECT_EQ(ordinals("1,-99999999999999999999999999999,1"), (Ordinals{1}));
}

// Long lists: the duplicate check is a hash set, so 100,000 entries parse at once (the
// result is asserted, never the time).
TEST(VisibleDevicesTest, HundredThousandEntries) {
  constexpr int kEntries = 100000;
  std::string value;
  for (int i = 0; i < kEntries; ++i) value += std::to_string(i) + ",";
  std::string distinct = value.substr(0, value.size() - 1);
  Ordinals parsed = ordinals(distinct);
  ASSERT_EQ(parsed.size(), static_cast<std::size_t>(kEntries));
  EXPECT_EQ(parsed.front(), 0);
  EXPECT_EQ(parsed.back(), kEntries - 1);
  EXPECT_EQ(ordinals(value + "77777"), (Ordinals{}));  // one duplicate at the end
  EXPECT_EQ(ordinals(value + "-1,5"), parsed);         // stops before the duplicate

  std::string uuid_list;
  for (int i = 0; i < kEntries; ++i) uuid_list += (i ? ",GPU-" : "GPU-") + std::to_string(i);
  EXPECT_EQ(uuids(uuid_list).size(), static_cast<std::size_t>(kEntries));
  EXPECT_EQ(uuids(uuid_list + ",GPU-99999"), (Uuids{}));
}

TEST(VisibleDevicesTest, UuidListEdgeCases) {
  EXPECT_EQ(uuids("GPU-a,GPU-b"), (Uuids{"GPU-a", "GPU-b"}));
  EXPECT_EQ(uuids("GPU-a,GPU-b,GPU-a"), (Uuids{}));  // duplicate: nothing visible
  EXPECT_EQ(uuids("GPU-a,MIG-b,GPU-c"), (Uuids{"GPU-a"}));
  EXPECT_EQ(uuids("MIG-a,GPU-b"), (Uuids{"MIG-a"}));
  EXPECT_EQ(uuids("GPU-a,GPU-a"), (Uuids{}));
  EXPECT_EQ(uuids("GPU-a, GPU-b"), (Uuids{"GPU-a"}));  // no trimming in UUID lists
}

// Eight NVML UUIDs shaped so that each prefix below is unique, unknown or ambiguous as the
// examples of PyTorch's _transform_uuid_to_ordinals need.
const Uuids kNvmlUuids = {
    "GPU-5a1c0a6e-0000-4000-8000-000000000000", "GPU-9e8d35e3-1111-4111-8111-111111111111",
    "GPU-e4a3b2c1-2222-4222-8222-222222222222", "GPU-e8f7d6c5-3333-4333-8333-333333333333",
    "GPU-3c2b1a09-4444-4444-8444-444444444444", "GPU-47b6c5d4-5555-4555-8555-555555555555",
    "GPU-0f0e0d0c-6666-4666-8666-666666666666", "GPU-1a2b3c4d-7777-4777-8777-777777777777",
};

TEST(VisibleDevicesTest, PartialUuidResolverExamples) {
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-9e8d35e3"}, kNvmlUuids), (Ordinals{1}));
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-e4", "GPU-9e8d35e3"}, kNvmlUuids), (Ordinals{2, 1}));
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-9e8d35e3", "GPU-1", "GPU-47"}, kNvmlUuids),
            (Ordinals{1, 7, 5}));
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-123", "GPU-9e8d35e3"}, kNvmlUuids), (Ordinals{}));
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-9e8d35e3", "GPU-123", "GPU-47"}, kNvmlUuids),
            (Ordinals{1}));
  // "GPU-e" is a prefix of two UUIDs: ambiguous, so the list stops there.
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-9e8d35e3", "GPU-e", "GPU-47"}, kNvmlUuids),
            (Ordinals{1}));
  // "GPU-9e8" resolves to the same GPU as "GPU-9e8d35e3": a duplicate hides everything.
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-9e8d35e3", "GPU-47", "GPU-9e8"}, kNvmlUuids),
            (Ordinals{}));
}

TEST(VisibleDevicesTest, FullUuidAndEmptyInputs) {
  EXPECT_EQ(transform_uuid_to_ordinals({kNvmlUuids[6]}, kNvmlUuids), (Ordinals{6}));
  EXPECT_EQ(transform_uuid_to_ordinals({}, kNvmlUuids), (Ordinals{}));
  EXPECT_EQ(transform_uuid_to_ordinals({"GPU-9e8d35e3"}, {}), (Ordinals{}));
  // A candidate longer than every UUID matches none.
  EXPECT_EQ(transform_uuid_to_ordinals({kNvmlUuids[1] + "0"}, kNvmlUuids), (Ordinals{}));
}

// PyTorch's test_ordinal_parse_visible_devices: two physical GPUs.
TEST(VisibleDevicesTest, OrdinalTruncationExamples) {
  EXPECT_EQ(truncate_to_raw_count(ordinals("1, 0"), 2), 2);
  EXPECT_EQ(truncate_to_raw_count(ordinals("1, 5, 0"), 2), 1);
}

TEST(VisibleDevicesTest, TruncationEdgeCases) {
  EXPECT_EQ(truncate_to_raw_count({}, 4), 0);
  EXPECT_EQ(truncate_to_raw_count({7}, 4), 0);
  EXPECT_EQ(truncate_to_raw_count({0, 1, 2, 3}, 4), 4);
  EXPECT_EQ(truncate_to_raw_count({0, 1}, 0), 0);    // no GPU: the raw count itself
  EXPECT_EQ(truncate_to_raw_count({0, 1}, -1), -1);  // an NVML failure passes through
  VisibleDevices unset = parse_visible_devices(std::nullopt);
  EXPECT_EQ(truncate_to_raw_count(unset.ordinals, 4), 4);
}

}  // namespace
}  // namespace accel::detail::cuda
