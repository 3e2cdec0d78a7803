// Pure CUDA facts: dtypes by compute capability, UUID and driver-version text.
#include "backends/cuda/cuda_device_facts.h"

#include <cctype>

namespace accel::detail::cuda {

// Note [Supported dtypes]: every dtype can be allocated and converted on any CUDA device
// the driver accepts, except that bfloat16 needs compute capability 8.0 (Ampere) and the
// float8 types need 8.9 (Ada/Hopper), where the hardware gained conversions. Computed per
// call (PyTorch memoises get_device_capability per argument value).
std::vector<ScalarType> supported_dtypes(int major, int minor) {
  const int cc = major * 10 + minor;
  std::vector<ScalarType> types;
  for (ScalarType type : all_scalar_types()) {
    if (type == ScalarType::kBFloat16 && cc < 80) continue;
    if ((type == ScalarType::kFloat8_e5m2 || type == ScalarType::kFloat8_e4m3fn) && cc < 89) {
      continue;
    }
    types.push_back(type);
  }
  return types;
}

std::string format_uuid(const cuda_abi::CUuuid& uuid) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    auto byte = static_cast<unsigned char>(uuid.bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

std::string format_pci_bus_id(const std::string& driver_text) {
  std::string out = driver_text;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::size_t colon = out.find(':');
  if (colon != std::string::npos && colon < 8) out.insert(0, 8 - colon, '0');
  return out;
}

std::string format_driver_version(int version) {
  if (version <= 0) return "";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace accel::detail::cuda
