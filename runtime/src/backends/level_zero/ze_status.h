#pragma once
// How the Level Zero backend turns a ze_result_t into text and into a Status.
//
// Every code the Debian 1.4 headers define has its name; a code they do not know (e.g.
// ZE_RESULT_ERROR_ADDRESS_NOT_FOUND 0x78000021, spec 1.14, seen by a 1.4-header build) is
// printed in hex only, never guessed. Message:
// "<operation>: Level Zero error ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY (0x70000003)
// (device=<i>)" (device omitted when the call concerns none). Kind: kOutOfMemory for the two
// out-of-memory codes (device and host: the caching allocators react to both), kDriver
// otherwise. The detail carries the device, the code and its name. Stateless; thread-safe.

#include <optional>
#include <string>
#include <string_view>

#include <level_zero/ze_api.h>

#include "spi/status.h"

namespace accel::detail::level_zero {

// "ZE_RESULT_ERROR_DEVICE_LOST"; nullptr for a code the 1.4 headers do not define.
const char* ze_result_name(ze_result_t code) noexcept;

// "ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)", or "unknown ze_result_t (0x78000021)".
std::string ze_result_text(ze_result_t code);

// The Status for a failed Level Zero call (see above). Throws only std::bad_alloc.
Status ze_status(ze_result_t code, std::string_view operation,
                 std::optional<int> device = std::nullopt);

}  // namespace accel::detail::level_zero
