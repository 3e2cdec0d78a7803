// Fuzzer: the allocator settings parser (ACCEL_ALLOC_CONF, runtime/src/allocator/
// allocator_config.h). Any input either parses, and then its settings printed by to_string()
// parse again to the same text, or fails with kConfig "ACCEL_ALLOC_CONF: <what> in '<token>'";
// an exception, a crash or another error kind is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "allocator/allocator_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using accel::detail::alloc::parse_allocator_config;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    auto parsed = parse_allocator_config(text, "ACCEL_ALLOC_CONF");
    if (!parsed.ok()) {
      const std::string message = parsed.status().message();
      if (parsed.status().kind() != accel::ErrorKind::kConfig ||
          message.rfind("ACCEL_ALLOC_CONF: ", 0) != 0 || message.find(" in '") == std::string::npos) {
        std::fprintf(stderr, "unexpected error: %s\n", message.c_str());
        std::abort();
      }
      return 0;
    }
    const std::string once = to_string(*parsed);
    auto again = parse_allocator_config(once, "ACCEL_ALLOC_CONF");
    if (!again.ok() || to_string(*again) != once) {
      std::fprintf(stderr, "to_string does not round-trip: '%s'\n", once.c_str());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "parse_allocator_config threw: %s\n", e.what());
    std::abort();
  }
  return 0;
}
