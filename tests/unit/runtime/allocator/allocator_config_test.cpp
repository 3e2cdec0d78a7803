// ACCEL_ALLOC_CONF parsing (PyTorch's allocator settings; allocator_config.h): every key, every
// malformed token named in a kConfig error, the environment fallback and the to_string round trip.
#include "allocator/allocator_config.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "fake_device_provider.h"
#include "scoped_env.h"

namespace accel::detail::alloc::testing {
namespace {

AllocatorConfig parse_ok(std::string_view text) {
  auto r = parse_allocator_config(text, "ACCEL_ALLOC_CONF");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : AllocatorConfig{};
}

std::string parse_error(std::string_view text) {
  auto r = parse_allocator_config(text, "ACCEL_ALLOC_CONF");
  EXPECT_FALSE(r.ok()) << "accepted: " << text;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().kind(), ErrorKind::kConfig);
  return r.status().message();
}

const std::string kKnownKeys = "(known keys: max_split_size_mb, max_non_split_rounding_mb, roundup_power2_divisions, garbage_collection_threshold, expandable_segments, release_lock_on_cudamalloc, pinned_use_cuda_host_register, pinned_num_register_threads, pinned_use_background_threads, backend)";

TEST(AllocatorConfig, DefaultsAreUnlimitedAndOff) {
  AllocatorConfig c = parse_ok("");
  EXPECT_EQ(c.max_split_size, static_cast<std::size_t>(-1));
  EXPECT_EQ(c.max_non_split_rounding, 20 * kMiB);
  EXPECT_EQ(c.garbage_collection_threshold, 0.0);
  EXPECT_FALSE(c.expandable_segments);
  EXPECT_EQ(c.divisions_for(5000), 0u);
}

TEST(AllocatorConfig, ParsesEveryKey) {
  AllocatorConfig c = parse_ok(
      "max_split_size_mb:128, max_non_split_rounding_mb:64,garbage_collection_threshold:0.8,"
      "expandable_segments:True,release_lock_on_cudamalloc:True,"
      "pinned_use_cuda_host_register:True,pinned_num_register_threads:8,"
      "pinned_use_background_threads:True,backend:native");
  EXPECT_EQ(c.max_split_size, 128 * kMiB);
  EXPECT_EQ(c.max_non_split_rounding, 64 * kMiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.8);
  EXPECT_TRUE(c.expandable_segments);
  EXPECT_TRUE(c.release_lock_on_device_malloc);
  EXPECT_TRUE(c.pinned_use_host_register);
  EXPECT_EQ(c.pinned_num_register_threads, 8u);
  EXPECT_TRUE(c.pinned_use_background_threads);
}

TEST(AllocatorConfig, KeysNotNamedKeepTheBaseValues) {
  AllocatorConfig base = parse_ok("max_split_size_mb:64");
  auto r = parse_allocator_config("expandable_segments:True", "set_allocator_settings", base);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->max_split_size, 64 * kMiB);
  EXPECT_TRUE(r->expandable_segments);
}

TEST(AllocatorConfig, RoundupDivisionsAsOneNumberApplyToEverySize) {
  AllocatorConfig c = parse_ok("roundup_power2_divisions:4");
  EXPECT_EQ(c.divisions_for(600), 4u);
  EXPECT_EQ(c.divisions_for(3 * kGiB), 4u);
}

TEST(AllocatorConfig, RoundupDivisionsListCoversIntervalsUpToEachSize) {
  AllocatorConfig c = parse_ok("roundup_power2_divisions:[256:1,512:2,>:8]");
  EXPECT_EQ(c.divisions_for(1000), 1u);
  EXPECT_EQ(c.divisions_for(256 * kMiB), 1u);
  EXPECT_EQ(c.divisions_for(256 * kMiB + 1), 2u);
  EXPECT_EQ(c.divisions_for(512 * kMiB), 2u);
  EXPECT_EQ(c.divisions_for(512 * kMiB + 1), 8u);
  EXPECT_EQ(c.divisions_for(100 * kGiB), 8u);
}

TEST(AllocatorConfig, MalformedTokensAreNamed) {
  EXPECT_EQ(parse_error("foo:1"), "ACCEL_ALLOC_CONF: unknown key 'foo' " + kKnownKeys +
                                      " in 'foo:1'");
  EXPECT_EQ(parse_error("max_split_size_mb:5"),
            "ACCEL_ALLOC_CONF: max_split_size_mb must be > 20, got 5 in 'max_split_size_mb:5'");
  EXPECT_EQ(parse_error("max_split_size_mb:20"),
            "ACCEL_ALLOC_CONF: max_split_size_mb must be > 20, got 20 in 'max_split_size_mb:20'");
  EXPECT_EQ(parse_error("max_split_size_mb:lots"),
            "ACCEL_ALLOC_CONF: max_split_size_mb expects a whole number of MiB in "
            "'max_split_size_mb:lots'");
  EXPECT_EQ(parse_error("roundup_power2_divisions:3"),
            "ACCEL_ALLOC_CONF: roundup_power2_divisions: divisions must be a power of two, got "
            "'3' in 'roundup_power2_divisions:3'");
  EXPECT_EQ(parse_error("roundup_power2_divisions:[256:1,100:2]"),
            "ACCEL_ALLOC_CONF: roundup_power2_divisions: size must be a power of two in MiB, got "
            "'100' in 'roundup_power2_divisions:[256:1,100:2]'");
  EXPECT_EQ(parse_error("roundup_power2_divisions:[512:1,256:2]"),
            "ACCEL_ALLOC_CONF: roundup_power2_divisions: sizes must increase, got '256' in "
            "'roundup_power2_divisions:[512:1,256:2]'");
  EXPECT_EQ(parse_error("roundup_power2_divisions:[>:2,256:4]"),
            "ACCEL_ALLOC_CONF: roundup_power2_divisions: '>' must be the last entry in "
            "'roundup_power2_divisions:[>:2,256:4]'");
  EXPECT_EQ(parse_error("roundup_power2_divisions:[256:1"),
            "ACCEL_ALLOC_CONF: unbalanced brackets in 'roundup_power2_divisions:[256:1'");
  EXPECT_EQ(parse_error("garbage_collection_threshold:1.0"),
            "ACCEL_ALLOC_CONF: garbage_collection_threshold must be in (0, 1), got 1.0 in "
            "'garbage_collection_threshold:1.0'");
  EXPECT_EQ(parse_error("garbage_collection_threshold:0"),
            "ACCEL_ALLOC_CONF: garbage_collection_threshold must be in (0, 1), got 0 in "
            "'garbage_collection_threshold:0'");
  EXPECT_EQ(parse_error("garbage_collection_threshold:x"),
            "ACCEL_ALLOC_CONF: garbage_collection_threshold expects a number in "
            "'garbage_collection_threshold:x'");
  EXPECT_EQ(parse_error("expandable_segments:true"),
            "ACCEL_ALLOC_CONF: expandable_segments must be True or False, got 'true' in "
            "'expandable_segments:true'");
  EXPECT_EQ(parse_error("backend:cudaMallocAsync"),
            "ACCEL_ALLOC_CONF: backend must be native (the runtime has one allocator), got "
            "'cudaMallocAsync' in 'backend:cudaMallocAsync'");
  EXPECT_EQ(parse_error("pinned_num_register_threads:3"),
            "ACCEL_ALLOC_CONF: pinned_num_register_threads must be a power of two <= 128, got "
            "'3' in 'pinned_num_register_threads:3'");
  EXPECT_EQ(parse_error("expandable_segments"),
            "ACCEL_ALLOC_CONF: expected key:value in 'expandable_segments'");
  EXPECT_EQ(parse_error("max_split_size_mb:64,,expandable_segments:True"),
            "ACCEL_ALLOC_CONF: empty setting in 'max_split_size_mb:64,,expandable_segments:True'");
  // A key given twice is refused: the last one would win unseen.
  EXPECT_EQ(parse_error("expandable_segments:True,max_split_size_mb:64,expandable_segments:False"),
            "ACCEL_ALLOC_CONF: 'expandable_segments' given twice in "
            "'expandable_segments:True,max_split_size_mb:64,expandable_segments:False'");
  EXPECT_EQ(parse_error("max_non_split_rounding_mb:10"),
            "ACCEL_ALLOC_CONF: max_non_split_rounding_mb must be >= 20, got 10 in "
            "'max_non_split_rounding_mb:10'");
}

TEST(AllocatorConfig, ToStringRoundTrips) {
  for (const char* text :
       {"", "max_split_size_mb:128,garbage_collection_threshold:0.6,expandable_segments:True",
        "roundup_power2_divisions:[256:1,512:2,>:8]", "roundup_power2_divisions:[1:4,>:2]",
        "roundup_power2_divisions:16,pinned_num_register_threads:4"}) {
    AllocatorConfig c = parse_ok(text);
    std::string once = to_string(c);
    AllocatorConfig again = parse_ok(once);
    EXPECT_EQ(to_string(again), once) << text;
    for (std::size_t k = 0; k < kRoundupPower2Intervals; ++k) {  // 0 and 1 both mean "none"
      EXPECT_EQ(std::max<std::size_t>(again.roundup_power2_divisions[k], 1),
                std::max<std::size_t>(c.roundup_power2_divisions[k], 1))
          << text << " interval " << k;
    }
    EXPECT_EQ(again.max_split_size, c.max_split_size) << text;
    EXPECT_EQ(again.garbage_collection_threshold, c.garbage_collection_threshold) << text;
  }
  EXPECT_EQ(to_string(AllocatorConfig{}),
            "max_split_size_mb:unlimited,max_non_split_rounding_mb:20,"
            "roundup_power2_divisions:1,expandable_segments:False,"
            "release_lock_on_cudamalloc:False,pinned_use_cuda_host_register:False,"
            "pinned_num_register_threads:1,pinned_use_background_threads:False,backend:native");
}

using accel::test::ScopedEnv;

TEST(AllocatorConfig, EnvironmentPrefersAccelThenPytorch) {
  {
    ScopedEnv a("ACCEL_ALLOC_CONF", std::nullopt);
    ScopedEnv p("PYTORCH_ALLOC_CONF", "max_split_size_mb:64");
    auto r = allocator_config_from_environment();
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->max_split_size, 64 * kMiB);
  }
  {
    ScopedEnv a("ACCEL_ALLOC_CONF", "max_split_size_mb:32");
    ScopedEnv p("PYTORCH_ALLOC_CONF", "max_split_size_mb:64");
    EXPECT_EQ(allocator_config_from_environment()->max_split_size, 32 * kMiB);
  }
  {
    ScopedEnv a("ACCEL_ALLOC_CONF", "");
    ScopedEnv p("PYTORCH_ALLOC_CONF", "bogus:1");
    auto r = allocator_config_from_environment();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "PYTORCH_ALLOC_CONF: unknown key 'bogus' " + kKnownKeys + " in 'bogus:1'");
  }
  {  // the variable read first gets the suggestion too
    ScopedEnv a("ACCEL_ALLOC_CONF", "expandable_segment:True");
    auto r = allocator_config_from_environment();
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "ACCEL_ALLOC_CONF: unknown key 'expandable_segment' (closest: expandable_segments) "
              "in 'expandable_segment:True'");
  }
}

// An unknown key is answered with the nearest known keys (edit distance, letters compared
// without regard to case), at most three, ties in the documented order; with none within
// close_distance_limit, every known key.
TEST(AllocatorConfig, UnknownKeysNameTheClosestKnownKeys) {
  EXPECT_EQ(parse_error("expandable_segment:True"),
            "ACCEL_ALLOC_CONF: unknown key 'expandable_segment' (closest: expandable_segments) in "
            "'expandable_segment:True'");
  EXPECT_EQ(parse_error("Expandable_Segments:True"),
            "ACCEL_ALLOC_CONF: unknown key 'Expandable_Segments' (closest: expandable_segments) "
            "in 'Expandable_Segments:True'");
  EXPECT_EQ(parse_error("max_split_size:128"),
            "ACCEL_ALLOC_CONF: unknown key 'max_split_size' (closest: max_split_size_mb) in "
            "'max_split_size:128'");
  EXPECT_EQ(parse_error("pinned_use_host_register:True"),
            "ACCEL_ALLOC_CONF: unknown key 'pinned_use_host_register' (closest: "
            "pinned_use_cuda_host_register) in 'pinned_use_host_register:True'");
  EXPECT_EQ(parse_error("backends:native"),
            "ACCEL_ALLOC_CONF: unknown key 'backends' (closest: backend) in 'backends:native'");
  EXPECT_EQ(parse_error(":1"), "ACCEL_ALLOC_CONF: unknown key '' " + kKnownKeys + " in ':1'");
}

}  // namespace
}  // namespace accel::detail::alloc::testing
