// Fuzzer: accel::Device::parse (public device.h). Any input either parses, and then prints
// back to a string that parses to the same Device, or raises accel::Error (kRuntime) with
// one of torch.device's messages (Note [Device string grammar]). Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "accel/device.h"
#include "accel/error.h"

namespace {

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const accel::Device device = accel::Device::parse(text);
    if (device.str() != text) {
      std::fprintf(stderr, "'%s' parsed but prints as '%s'\n", std::string(text).c_str(),
                   device.str().c_str());
      std::abort();
    }
    if (device.index() && *device.index() < 0) std::abort();
    if (!(accel::Device::parse(device.str()) == device)) std::abort();
  } catch (const accel::Error& e) {
    const std::string what = e.what();
    // what() is a C string: a message quoting an input with a NUL byte ends at the NUL.
    const std::string invalid = "Invalid device string: '" + std::string(text) + "'";
    const bool known = what == invalid.c_str() ||
                       starts_with(what,
                                   "Expected one of cpu, cuda, xpu device type at start of device "
                                   "string: ") ||
                       starts_with(what, "CPU device index must be -1 or zero, got ");
    if (e.kind() != accel::ErrorKind::kRuntime || !known) {
      std::fprintf(stderr, "unexpected error for '%s': %s\n", std::string(text).c_str(),
                   what.c_str());
      std::abort();
    }
  }
  return 0;
}
