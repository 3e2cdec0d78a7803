#pragma once
// ACCEL_REQUIRE_DEVICES=N: the strict switch for CI (Note [Misconfiguration is an error] in
// accel/accelerator.h). With N set, the runtime raises kConfig at first use when fewer than
// N devices are visible, so a job meant for N GPUs cannot pass on the CPU fallback.
//
// The value is a decimal integer 0..1000000 with nothing else around it (no sign, no
// spaces); 0 asks for nothing; unset or empty means no requirement. Anything else is a
// kConfig error naming the value. Read once, when the default runtime is created.
// Stateless; thread-safe.

#include <optional>
#include <string>
#include <string_view>

#include "accel_common/environment_variables.h"
#include "spi/status.h"

namespace accel::detail {

inline constexpr const char* kRequireDevicesVariable =
    ::accel::common::environment_variable_name("ACCEL_REQUIRE_DEVICES");

// The number of devices `value` requires (nullopt = unset); kConfig when malformed:
// "ACCEL_REQUIRE_DEVICES='<value>': expected the number of devices the program requires
// (a whole number such as 2)".
Result<int> parse_required_devices(std::optional<std::string_view> value);
// parse_required_devices() of the environment's ACCEL_REQUIRE_DEVICES.
Result<int> required_devices_from_environment();

// kConfig: "ACCEL_REQUIRE_DEVICES=<n>: <n> device(s) required, <visible> visible (<why>)"
// (the parenthesis is left out when `why` is empty).
Status required_devices_error(int required, int visible, std::string_view why);

}  // namespace accel::detail
