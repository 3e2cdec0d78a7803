// ACCEL_REQUIRE_DEVICES parsing and its error (device_requirement.h).
#include "core/device_requirement.h"
#include "spi/environment.h"

#include <cstdlib>

namespace accel::detail {

namespace {
constexpr int kMaxRequiredDevices = 1000000;
}

Result<int> parse_required_devices(std::optional<std::string_view> value) {
  if (!value || value->empty()) return 0;
  int required = 0;
  bool valid = true;
  for (char ch : *value) {
    if (ch < '0' || ch > '9') {
      valid = false;
      break;
    }
    required = required * 10 + (ch - '0');
    if (required > kMaxRequiredDevices) {
      valid = false;
      break;
    }
  }
  if (!valid) {
    return Status(ErrorKind::kConfig,
                  std::string(kRequireDevicesVariable) + "='" + std::string(*value) +
                      "': expected the number of devices the program requires (a whole number "
                      "from 0 to " +
                      std::to_string(kMaxRequiredDevices) + ", such as 2)");
  }
  return required;
}

Result<int> required_devices_from_environment() {
  const char* value = ::accel::detail::environment_variable(kRequireDevicesVariable);
  return parse_required_devices(value ? std::optional<std::string_view>(value) : std::nullopt);
}

Status required_devices_error(int required, int visible, std::string_view why) {
  std::string message = std::string(kRequireDevicesVariable) + "=" + std::to_string(required) +
                        ": " + std::to_string(required) +
                        (required == 1 ? " device required, " : " devices required, ") +
                        std::to_string(visible) + " visible";
  if (!why.empty()) message += " (" + std::string(why) + ")";
  return Status(ErrorKind::kConfig, std::move(message));
}

}  // namespace accel::detail
