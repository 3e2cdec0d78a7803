// Result codes by name, per API (parse_result_code, api_name in mockdev/machine.h; the
// helpers of machine/api_codes.h).

#include "machine/api_codes.h"

#include <charconv>

#include "accel_abi/cuda_driver.h"
#include "accel_abi/nvml.h"
#include "cuda/entry_points.h"
#include "nvml/entry_points.h"

namespace mockdev {
namespace {

std::optional<int> cuda_code_by_name(std::string_view text) {
#define MOCKDEV_MATCH_NAME(name, value) \
  if (text == #name) return value;
  ACCEL_CUDA_RESULTS(MOCKDEV_MATCH_NAME)
#undef MOCKDEV_MATCH_NAME
  return std::nullopt;
}

std::optional<int> nvml_code_by_name(std::string_view text) {
#define MOCKDEV_MATCH_NAME(name, value) \
  if (text == #name) return value;
  ACCEL_NVML_RETURNS(MOCKDEV_MATCH_NAME)
#undef MOCKDEV_MATCH_NAME
  return std::nullopt;
}

std::optional<int> code_by_number(std::string_view text) {
  int value = 0;
  const char* first = text.data();
  const char* last = first + text.size();
  if (!text.empty() && *first == '+') ++first;  // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr != last || first == last) return std::nullopt;
  return value;
}

}  // namespace

std::string_view api_name(Api api) { return api == Api::kCuda ? "cuda" : "nvml"; }

std::optional<int> parse_result_code(std::string_view text) {
  if (auto code = cuda_code_by_name(text)) return code;
  if (auto code = nvml_code_by_name(text)) return code;
  return code_by_number(text);
}

std::optional<int> parse_result_code(Api api, std::string_view text) {
  if (auto code = api == Api::kCuda ? cuda_code_by_name(text) : nvml_code_by_name(text))
    return code;
  return code_by_number(text);
}

namespace machine_file {

std::string_view code_family(Api api) { return api == Api::kCuda ? "CUDA" : "NVML"; }

std::optional<Api> api_of_entry_point(std::string_view symbol) {
  if (cuda::is_entry_point(symbol)) return Api::kCuda;
  if (nvml::is_entry_point(symbol)) return Api::kNvml;
  return std::nullopt;
}

std::optional<Api> api_from_name(std::string_view name) {
  for (Api api : {Api::kCuda, Api::kNvml}) {
    if (api_name(api) == name) return api;
  }
  return std::nullopt;
}

}  // namespace machine_file
}  // namespace mockdev
