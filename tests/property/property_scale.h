#pragma once
// Note [Property scale]
// ACCEL_PROPERTY_SCALE=K (an integer from 1 to 1000) multiplies rapidcheck's max_success
// (RC_PARAMS; rapidcheck's default 100, ctest sets 1,000) for long nightly campaigns, in every
// property binary: property_scale.cpp is compiled into each of them and registers a gtest
// environment that applies the factor before the first test, so before rapidcheck reads
// RC_PARAMS (once, at its first use). Unset or empty: RC_PARAMS as given. Any other value is
// a setting that cannot work: the binary prints "ACCEL_PROPERTY_SCALE='x': expected an integer
// from 1 to 1000" and exits 2 before running anything, rather than run at the wrong scale.

#include <optional>
#include <string>
#include <string_view>

namespace accel::test {

// The factor `text` asks for, or nullopt when it is not an integer from 1 to 1000. Pure.
std::optional<long> parse_property_scale(std::string_view text);
// RC_PARAMS `params` with max_success multiplied by `factor` (the key added when missing,
// with rapidcheck's default 100 as the base); the other parameters are kept. Pure.
std::string scaled_rc_params(std::string_view params, long factor);

}  // namespace accel::test
