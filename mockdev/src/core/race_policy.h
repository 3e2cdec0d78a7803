#pragma once
// Which race policy is in force: MOCKDEV_RACES (when set and non-empty) overrides the machine
// file's `streams.races`. The engine reads it at every machine installation, next to its
// other stream settings (MOCKDEV_SCHEDULE, MOCKDEV_SEED), and turns a malformed value into a
// configuration error with race_policy_environment_error(). Pure functions of the
// environment and the machine; no lock needed.

#include <optional>
#include <string>

#include "mockdev/machine.h"

namespace mockdev::core {

inline constexpr const char* kRacesVariable = "MOCKDEV_RACES";

// MOCKDEV_RACES when it is set, non-empty and well formed; otherwise machine.streams.races.
RacePolicy race_policy_in_force(const MachineSpec& machine);

// Whether MOCKDEV_RACES decides the policy (set, non-empty, well formed) rather than the
// machine's `streams.races`: messages name the one that did.
bool race_policy_set_by_variable();

// "MOCKDEV_RACES='abrot': expected report, fail, abort or off (closest: abort)" when
// MOCKDEV_RACES is set to something else (the closest spelling only when one is close);
// nullopt when it is unset, empty or well formed.
std::optional<std::string> race_policy_environment_error();

}  // namespace mockdev::core
