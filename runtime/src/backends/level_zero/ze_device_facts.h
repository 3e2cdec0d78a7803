#pragma once
// Vendor facts the Level Zero backend reports, as pure functions: the dtypes a device
// supports (Note [Level Zero dtypes]), the uuid text and the loader version text.
// Stateless; thread-safe.

#include <cstdint>
#include <string>
#include <vector>

#include "accel/scalar_type.h"

namespace accel::detail::level_zero {

// Every scalar type the device supports, in ScalarType order.
std::vector<ScalarType> supported_dtypes(bool fp64);

// "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lower-case hex) from the 16 uuid bytes, the form
// Intel's tools print (no vendor prefix: Level Zero's uuid is not NVIDIA's "GPU-").
std::string format_uuid(const std::uint8_t (&bytes)[16]);

// "1.8.12" from a major/minor/patch triple.
std::string format_version(int major, int minor, int patch);

}  // namespace accel::detail::level_zero
