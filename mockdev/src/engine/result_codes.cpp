// mockdev::parse_result_code (declared in mockdev/machine.h): driver result codes by name.

#include <charconv>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/nvml.h"
#include "mockdev/machine.h"

namespace mockdev {

std::optional<int> parse_result_code(std::string_view text) {
#define MOCKDEV_MATCH_NAME(name, value) \
  if (text == #name) return value;
  ACCEL_CUDA_RESULTS(MOCKDEV_MATCH_NAME)
  ACCEL_NVML_RETURNS(MOCKDEV_MATCH_NAME)
#undef MOCKDEV_MATCH_NAME
  int value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;  // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return value;
}

}  // namespace mockdev
