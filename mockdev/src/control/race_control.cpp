// The races part of the control API (mockdev/races.h) over the race log (core/race_log.h).

#include "core/engine.h"
#include "core/race_log.h"
#include "core/race_policy.h"
#include "mockdev/races.h"

namespace mockdev::control {

using core::EngineLock;

std::vector<Race> races() {
  EngineLock lock;
  return core::logged_races();
}

std::uint64_t race_count() {
  EngineLock lock;
  return core::logged_race_count();
}

void clear_races() {
  EngineLock lock;
  core::clear_race_log();
}

std::uint64_t failing_race_count() {
  return core::failing_races().count;  // lock-free
}

RacePolicy race_policy() {
  EngineLock lock;
  return core::race_policy_in_force(core::engine().machine);
}

}  // namespace mockdev::control
