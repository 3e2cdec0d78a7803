// ze_result_t -> text and Status.
#include "backends/level_zero/ze_status.h"

#include <cstdint>
#include <cstdio>

#include "accel_abi/level_zero_results.h"

namespace accel::detail::level_zero {

// Every value of the shared table is the headers' own (accel_abi/level_zero_results.h).
#define ACCEL_ZE_RESULT_MATCHES_HEADER(name, value) \
  static_assert(static_cast<std::uint32_t>(name) == (value), #name);
ACCEL_ZE_RESULTS_1_4(ACCEL_ZE_RESULT_MATCHES_HEADER)
#undef ACCEL_ZE_RESULT_MATCHES_HEADER

const char* ze_result_name(ze_result_t code) noexcept {
  return ::accel::abi::level_zero::ze_result_name_1_4(static_cast<std::uint32_t>(code));
}

std::string ze_result_text(ze_result_t code) {
  char hex[16];
  std::snprintf(hex, sizeof(hex), "0x%x", static_cast<unsigned>(code));
  const char* name = ze_result_name(code);
  return std::string(name ? name : "unknown ze_result_t") + " (" + hex + ")";
}

Status ze_status(ze_result_t code, std::string_view operation, std::optional<int> device) {
  ErrorDetail detail;
  detail.device = device;
  detail.driver_code = static_cast<int>(code);
  if (const char* name = ze_result_name(code)) detail.driver_error_name = name;
  std::string message =
      std::string(operation) + ": Level Zero error " + ze_result_text(code);
  if (device) message += " (device=" + std::to_string(*device) + ")";
  const bool out_of_memory = code == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ||
                             code == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  return Status(out_of_memory ? ErrorKind::kOutOfMemory : ErrorKind::kDriver, std::move(message),
                std::move(detail));
}

}  // namespace accel::detail::level_zero
