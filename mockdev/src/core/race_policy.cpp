#include "core/race_policy.h"

#include <cstdlib>
#include <string_view>

#include "core/environment_choice.h"

namespace mockdev {

std::optional<RacePolicy> parse_race_policy(std::string_view text) {
  if (text == "report") return RacePolicy::kReport;
  if (text == "fail") return RacePolicy::kFail;
  if (text == "abort") return RacePolicy::kAbort;
  if (text == "off") return RacePolicy::kOff;
  return std::nullopt;
}

std::string_view race_policy_name(RacePolicy policy) {
  switch (policy) {
    case RacePolicy::kReport:
      return "report";
    case RacePolicy::kFail:
      return "fail";
    case RacePolicy::kAbort:
      return "abort";
    case RacePolicy::kOff:
      return "off";
  }
  return "report";
}

namespace core {
namespace {

// The variable's value when it is set and non-empty (an empty value means "unset", as for
// MOCKDEV_MACHINE).
std::optional<std::string_view> races_variable() {
  const char* value = std::getenv(kRacesVariable);
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  return std::string_view(value);
}

}  // namespace

RacePolicy race_policy_in_force(const MachineSpec& machine) {
  if (auto text = races_variable()) {
    if (auto policy = parse_race_policy(*text)) return *policy;
  }
  return machine.streams.races;
}

bool race_policy_set_by_variable() {
  auto text = races_variable();
  return text && parse_race_policy(*text);
}

std::optional<std::string> race_policy_environment_error() {
  auto text = races_variable();
  if (!text || parse_race_policy(*text)) return std::nullopt;
  return environment_choice_error(kRacesVariable, *text, {"report", "fail", "abort", "off"});
}

}  // namespace core
}  // namespace mockdev
