// The Level Zero adapter's state, registry and call wrapper (Note [Level Zero call order]
// in ze_state.h).

#include "level_zero/ze_state.h"

#include <cstdint>
#include <cstdio>
#include <new>
#include <optional>
#include <string>

#include "accel_abi/level_zero_results.h"
#include "core/engine.h"
#include "core/memory.h"
#include "core/race_call_site.h"
#include "core/timeline.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {

ZeState& ze_state() {
  static ZeState* const state = new ZeState();  // never deleted: Note [Leaky state]
  const core::Engine& e = core::engine();
  if (state->generation != e.generation) {
    // A new machine (a power cycle): old handle objects stay allocated (callers may still
    // hold them) but leave the registry, so they are rejected from now on.
    *state = ZeState{};
    state->generation = e.generation;
  }
  return *state;
}

bool in_forked_child() {
  const ZeState& s = ze_state();
  return s.initialized && s.init_pid != core::current_pid();
}

bool driver_ready() {
  const ZeState& s = ze_state();
  return s.initialized && s.init_pid == core::current_pid();
}

bool is_live(const void* handle) { return handle != nullptr && ze_state().live.count(handle) != 0; }

void register_handle(const void* handle) { ze_state().live.insert(handle); }

void unregister_handle(const void* handle) { ze_state().live.erase(handle); }

ZeDevice* find_device(ze_device_handle_t handle) {
  if (!is_live(handle)) return nullptr;
  // Other kinds of handles share the registry: a device is one of this init's device
  // objects (core) or Sysman cards.
  const ZeState& s = ze_state();
  for (ZeDevice* d : s.handles)
    if (d == handle) return d;
  for (ZeDevice* c : s.cards)
    if (c == handle) return c;
  return nullptr;
}

std::uint64_t tile_used_bytes(int card, int tile) {
  const ZeState& s = ze_state();
  const int tiles = core::engine().machine.devices[static_cast<std::size_t>(card)].tiles;
  if (tiles <= 0) return core::used_bytes(card);  // an untiled card: all of it
  std::uint64_t charged = 0;                      // every tile's own allocations
  std::uint64_t own = 0;
  for (int t = 0; t < tiles; ++t) {
    const auto found = s.tile_used.find({card, t});
    if (found == s.tile_used.end()) continue;
    charged += found->second;
    if (t == tile) own = found->second;
  }
  const std::uint64_t card_used = core::used_bytes(card);
  const std::uint64_t rest = card_used > charged ? card_used - charged : 0;
  return own + rest / static_cast<std::uint64_t>(tiles);
}

std::uint64_t device_memory_bytes(const ZeDevice& device) {
  const DeviceSpec& spec = core::engine().machine.devices[static_cast<std::size_t>(device.card)];
  // A tile (or an untiled card) reports its own memory; a root scales over the tiles
  // it exposes, so a card showing all its tiles reports the whole card.
  if (spec.tiles == 0) return spec.memory_bytes;
  const std::uint64_t per_tile = spec.memory_bytes / static_cast<std::uint64_t>(spec.tiles);
  return device.tile >= 0 ? per_tile : per_tile * static_cast<std::uint64_t>(device.tile_span);
}

namespace {

// The calling thread's last error (Note [Last error description] in ze_state.h).
thread_local std::string t_last_error;

const char* result_name(ze_result_t result) {
  const char* name = accel::abi::level_zero::ze_result_name(static_cast<std::uint32_t>(result));
  return name != nullptr ? name : "an unknown ze_result_t";
}

ze_result_t call_unrecorded(EntryPoint entry_point, CallKind kind,
                            const std::function<ze_result_t()>& body);

}  // namespace

const char* last_error_description() { return t_last_error.c_str(); }

ze_result_t call(EntryPoint entry_point, CallKind kind, const std::function<ze_result_t()>& body) {
  const ze_result_t result = call_unrecorded(entry_point, kind, body);
  if (result != ZE_RESULT_SUCCESS && result != ZE_RESULT_NOT_READY) {
    char code[16];
    std::snprintf(code, sizeof code, "0x%x", static_cast<unsigned>(result));
    t_last_error =
        std::string(entry_point.view()) + " returned " + result_name(result) + " (" + code + ")";
  }
  return result;
}

namespace {

ze_result_t call_unrecorded(EntryPoint entry_point, CallKind kind,
                            const std::function<ze_result_t()>& body) {
  try {
    core::EngineLock lock;
    ZeState& s = ze_state();
    std::optional<int> fault = core::count_call(entry_point.view());
    const bool core_call = kind == CallKind::kCore || kind == CallKind::kCoreBeforeInit;
    if (core_call && in_forked_child()) {
      // The pid gate. Only zeInit may get through, and only under the reinit policy.
      const bool reinit = core::engine().machine.level_zero.child_policy ==
                          LevelZeroDriverSpec::ChildPolicy::kReinit;
      if (!(reinit && kind == CallKind::kCoreBeforeInit)) return ZE_RESULT_ERROR_UNINITIALIZED;
    }
    if (fault) return static_cast<ze_result_t>(*fault);
    if (kind == CallKind::kCore && !(s.initialized && s.init_pid == core::current_pid()))
      return ZE_RESULT_ERROR_UNINITIALIZED;
    if (kind == CallKind::kSysman && !s.sysman_initialized && s.sysman != SysmanRoute::kLegacy)
      return ZE_RESULT_ERROR_UNINITIALIZED;
    // The operations an enqueuing call makes carry the program's call site while observers
    // want one (Note [Call sites of operations]): the loader's dispatch hides the return
    // address, so the stack is unwound, and only then.
    std::optional<core::CallerScope> caller;
    if (!core::engine().observers.empty() && enqueues_work(entry_point.view())) {
      // The runtime gave the program's address (tool interface): no unwind needed.
      caller.emplace(core::detail::t_api_caller != nullptr ? nullptr : enqueue_call_site());
    }
    return body();
  } catch (const std::bad_alloc&) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  } catch (...) {
    return ZE_RESULT_ERROR_UNKNOWN;
  }
}

}  // namespace

}  // namespace mockdev::level_zero
