// Level Zero device facts (ze_device_facts.h).
#include "backends/level_zero/ze_device_facts.h"

namespace accel::detail::level_zero {

// Note [Level Zero dtypes]: every dtype can be allocated and converted on an Intel GPU the
// driver lists, except the double-precision ones on devices without native fp64
// (ZE_DEVICE_MODULE_FLAG_FP64 clear in zeDeviceGetModuleProperties: many integrated and
// client GPUs), where PyTorch's XPU backend refuses float64 tensors. bfloat16 and the
// float8 types are storage formats with conversions on every Xe device, so they stay.
std::vector<ScalarType> supported_dtypes(bool fp64) {
  std::vector<ScalarType> types;
  for (ScalarType type : all_scalar_types()) {
    if (!fp64 && (type == ScalarType::kFloat64 || type == ScalarType::kComplex128)) continue;
    types.push_back(type);
  }
  return types;
}

std::string format_uuid(const std::uint8_t (&bytes)[16]) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0xf];
  }
  return out;
}

std::string format_version(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace accel::detail::level_zero
