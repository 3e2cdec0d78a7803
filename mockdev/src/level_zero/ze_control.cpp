// The Level Zero driver's control API (mockdev/level_zero.h) over its adapter state. It lives
// with the adapter, not in control/, which stays vendor-neutral (Note [Vendor registry] in
// core/vendor_registry.h).

#include "mockdev/level_zero.h"

#include "core/engine.h"
#include "level_zero/ze_state.h"

namespace mockdev::control::level_zero {

namespace lz = mockdev::level_zero;

Status status() {
  core::EngineLock lock;
  const lz::ZeState& s = lz::ze_state();
  Status out;
  out.init_attempted = s.init_attempted;
  out.initialized = s.initialized && s.init_pid == core::current_pid();
  out.init_result = static_cast<int>(s.init_result);
  out.init_failure = s.init_failure;
  out.hierarchy = s.hierarchy;
  out.devices = s.devices.size();
  switch (s.sysman) {
    case lz::SysmanRoute::kNone:
      out.sysman_route = "none";
      break;
    case lz::SysmanRoute::kLegacy:
      out.sysman_route = "legacy";
      break;
    case lz::SysmanRoute::kZesInit:
      out.sysman_route = "zesInit";
      break;
  }
  out.live_handles = s.live.size();
  out.forked_after_init = lz::in_forked_child();
  return out;
}

void set_child_policy(LevelZeroDriverSpec::ChildPolicy policy) {
  core::EngineLock lock;
  core::engine().machine.level_zero.child_policy = policy;
}

}  // namespace mockdev::control::level_zero
