#pragma once
// The message for an environment variable set to none of the words it accepts
// (MOCKDEV_SCHEDULE, MOCKDEV_RACES), in the shape the engine prints after
// "mockdev: cannot start the simulated hardware: " (docs/MACHINE_FILES.md):
//   MOCKDEV_SCHEDULE='adverserial': expected eager, random or adversarial (closest: adversarial)
// The closest word is named only when it is close (accel::common::close_distance_limit), so
// a value that resembles nothing gets no guess. Pure; thread-safe.

#include <initializer_list>
#include <string>
#include <string_view>

namespace mockdev::core {

// `choices` in the order the message lists them ("a, b or c").
std::string environment_choice_error(std::string_view variable, std::string_view value,
                                     std::initializer_list<std::string_view> choices);

}  // namespace mockdev::core
