#pragma once
// The control API of the mock Level Zero driver (libze_mock.so), for tests and tools in
// the same process: what its zeInit decided and why, the handles it keeps alive, and the
// fork policy. Like control.h: thread-safe, never throws, usable in a forked child. The
// driver's entry points are reached only through the real loader (or the facade's
// *ProcAddrTable getters); this header never calls them.

#include <cstddef>
#include <cstdint>
#include <string>

#include "mockdev/machine.h"

namespace mockdev::control::level_zero {

struct Status {
  bool init_attempted = false;  // the driver's zeInit ran in this machine generation
  bool initialized = false;     // and succeeded (in the process that called it)
  int init_result = 0;          // the first zeInit's ze_result_t (cached, as Intel's driver does)
  // Why zeInit failed in words (the affinity-mask entry, "selects no device", the fault
  // schedule, no Intel device); empty after a success.
  std::string init_failure;
  std::string hierarchy;        // "COMPOSITE", "FLAT" or "COMBINED" as applied at zeInit
  std::size_t devices = 0;      // what zeDeviceGet returns
  std::string sysman_route;     // "none", "legacy" (ZES_ENABLE_SYSMAN=1) or "zesInit"
  std::size_t live_handles = 0; // every handle in the registry (drivers, devices, modules, ...)
  bool forked_after_init = false;  // this is a child of a process that initialised
};
Status status();

// What a forked child's zeInit meets (in a child of an initialised parent): overrides the machine
// file's `level_zero.child_policy` until the next reset.
void set_child_policy(LevelZeroDriverSpec::ChildPolicy policy);

}  // namespace mockdev::control::level_zero
