#include "core/environment_choice.h"

#include "accel_common/edit_distance.h"

namespace mockdev::core {

std::string environment_choice_error(std::string_view variable, std::string_view value,
                                     std::initializer_list<std::string_view> choices) {
  std::string message = std::string(variable) + "='" + std::string(value) + "': expected ";
  std::size_t i = 0;
  for (std::string_view choice : choices) {
    if (i > 0) message += i + 1 == choices.size() ? " or " : ", ";
    message += choice;
    ++i;
  }
  std::string_view closest;
  std::size_t best = accel::common::close_distance_limit(value) + 1;
  for (std::string_view choice : choices) {
    const std::size_t d = accel::common::edit_distance(value, choice);
    if (d < best) {
      best = d;
      closest = choice;
    }
  }
  if (!closest.empty()) message += " (closest: " + std::string(closest) + ")";
  return message;
}

}  // namespace mockdev::core
