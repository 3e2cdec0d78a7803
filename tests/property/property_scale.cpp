// ACCEL_PROPERTY_SCALE for every property binary: Note [Property scale] in property_scale.h.

#include "property_scale.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cstdlib>
#include <iostream>

namespace accel::test {

std::optional<long> parse_property_scale(std::string_view text) {
  long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value < 1 || value > 1000) return std::nullopt;
  return value;
}

std::string scaled_rc_params(std::string_view params, long factor) {
  constexpr std::string_view kKey = "max_success=";
  std::string rest(params);
  long base = 100;  // rapidcheck's default
  const std::size_t at = rest.find(kKey);
  if (at != std::string::npos) {
    const std::size_t end = rest.find(' ', at);
    const std::string value =
        rest.substr(at + kKey.size(), end == std::string::npos ? end : end - at - kKey.size());
    base = std::strtol(value.c_str(), nullptr, 10);
    rest.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
  }
  while (!rest.empty() && rest.back() == ' ') rest.pop_back();
  return rest + (rest.empty() ? "" : " ") + std::string(kKey) + std::to_string(base * factor);
}

namespace {

class PropertyScale final : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* value = std::getenv("ACCEL_PROPERTY_SCALE");
    if (value == nullptr || value[0] == '\0') return;
    const std::optional<long> factor = parse_property_scale(value);
    if (!factor) {
      std::cerr << "ACCEL_PROPERTY_SCALE='" << value << "': expected an integer from 1 to 1000"
                << std::endl;
      std::exit(2);
    }
    const char* params = std::getenv("RC_PARAMS");
    const std::string scaled = scaled_rc_params(params == nullptr ? "" : params, *factor);
    setenv("RC_PARAMS", scaled.c_str(), 1);
    std::cout << "[ property ] ACCEL_PROPERTY_SCALE=" << *factor << ": RC_PARAMS=" << scaled
              << std::endl;
  }
};

// Registered at load time: this file is compiled into each property binary.
[[maybe_unused]] ::testing::Environment* const kRegistered =
    ::testing::AddGlobalTestEnvironment(new PropertyScale());

}  // namespace
}  // namespace accel::test
