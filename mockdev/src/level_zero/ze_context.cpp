// Contexts of the mock Level Zero driver (zeContextCreate, zeContextDestroy, residency), the
// objects state and handle kinds of ze_objects.h, and the context table.
//
// A context covers every device of the one driver (the backend makes one per driver).
// zeContextDestroy frees what was made in it: its allocations (device memory returns to
// the device), lists, queues (their queued work still runs in virtual time), event pools
// and events, modules and kernels, reservations and physical memory; every such handle is
// rejected afterwards, except by the one destroy Intel's driver allows (Note [Objects after
// their context] in ze_objects.h).

#include <cstdio>
#include <string>

#include "core/engine.h"
#include "core/keep_forever.h"
#include "core/memory.h"
#include "level_zero/ze_objects.h"
#include "level_zero/ze_tables.h"

namespace mockdev::level_zero {

ObjectsState& objects() {
  static ObjectsState* const state = new ObjectsState();  // Note [Leaky state]
  const std::uint64_t generation = core::engine().generation;
  if (state->generation != generation) {
    *state = ObjectsState{};
    state->generation = generation;
  }
  return *state;
}

void add_handle(const void* handle, HandleKind kind) {
  // Note [Leaky state]: object handles are never freed; a destroyed one only leaves the
  // registry, so it is kept on purpose, not leaked.
  core::keep_forever(handle);
  register_handle(handle);
  objects().kinds[handle] = kind;
  if (const void* caller = program_call_site()) objects().callers[handle] = caller;
}

void add_child(_ze_context_handle_t* context, void* object, HandleKind kind) {
  add_handle(object, kind);
  context->children.push_back(object);
}

void remove_child(_ze_context_handle_t* context, void* object) {
  std::erase(context->children, object);
}

void remove_handle(const void* handle) {
  unregister_handle(handle);
  objects().kinds.erase(handle);
  objects().callers.erase(handle);
}

bool destroy_orphan(const void* handle, HandleKind kind) {
  auto& orphans = objects().orphans;
  auto it = orphans.find(handle);
  if (it == orphans.end() || it->second != kind) return false;
  orphans.erase(it);
  return true;
}

bool is_handle(const void* handle, HandleKind kind) {
  if (handle == nullptr || !is_live(handle)) return false;
  const auto& kinds = objects().kinds;
  auto it = kinds.find(handle);
  return it != kinds.end() && it->second == kind;
}

void report(const std::string& text) {
  std::fprintf(stderr, "mockdev: level zero: %s\n", text.c_str());
  std::fflush(stderr);
}

namespace {

// The kinds whose objects outlive their context for one destroy (Note [Objects after their
// context] in ze_objects.h).
bool outlives_context(HandleKind kind) {
  switch (kind) {
    case HandleKind::kCommandList:
    case HandleKind::kCommandQueue:
    case HandleKind::kEventPool:
    case HandleKind::kEvent:
    case HandleKind::kFence:
    case HandleKind::kModule:
    case HandleKind::kKernel:
      return true;
    case HandleKind::kContext:
    case HandleKind::kPhysicalMem:
    case HandleKind::kBuildLog:
      return false;
  }
  return false;
}

void destroy_context(_ze_context_handle_t* context) MOCKDEV_ZE_LOCKED {
  const std::map<const void*, HandleKind> before = objects().kinds;
  // Children first: lists and queues stop taking work, pools take their events along.
  for (void* child : context->children) {
    auto& kinds = objects().kinds;
    auto it = kinds.find(child);
    if (it == kinds.end()) continue;  // destroyed on its own earlier
    switch (it->second) {
      case HandleKind::kCommandList:
        destroy_list(static_cast<_ze_command_list_handle_t*>(child));
        break;
      case HandleKind::kCommandQueue:
        destroy_queue(static_cast<_ze_command_queue_handle_t*>(child));
        break;
      case HandleKind::kEventPool:
        destroy_pool(static_cast<_ze_event_pool_handle_t*>(child));
        break;
      case HandleKind::kModule:
      case HandleKind::kKernel:
        remove_handle(child);  // a module's globals are memory of the context, freed below
        break;
      case HandleKind::kPhysicalMem:
      case HandleKind::kContext:
      case HandleKind::kEvent:
      case HandleKind::kFence:
      case HandleKind::kBuildLog:
        break;  // physical memory goes with the virtual memory below, fences with their queue
    }
  }
  free_context_virtual_memory(*context);
  free_context_memory(*context);
  context->children.clear();
  remove_handle(context);
  // What went with the context and may still be destroyed once (events of its pools, fences of
  // its queues included).
  const auto& after = objects().kinds;
  for (const auto& [handle, kind] : before) {
    if (outlives_context(kind) && after.count(handle) == 0) objects().orphans[handle] = kind;
  }
  auto& live = objects().contexts;
  std::erase(live, context);
}

// Flags must be 0 (the only flag, TBD 0x1, is accepted as the headers define it).
// zeContextCreate and zeContextCreateEx (1.1): `devices` null (with count 0) means every device
// of the driver. [inferred] The device list is checked (each a live device of the driver,
// INVALID_NULL_HANDLE otherwise) but not kept: a context of the mock covers every device.
ze_result_t create_context(ze_driver_handle_t driver, const ze_context_desc_t* desc,
                           std::uint32_t device_count, ze_device_handle_t* devices,
                           ze_context_handle_t* out) MOCKDEV_ZE_LOCKED {
  if (driver == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!is_live(driver) || driver != ze_state().driver) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (desc == nullptr || out == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  if (desc->flags > ZE_CONTEXT_FLAG_TBD) return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  if (devices == nullptr && device_count > 0) return ZE_RESULT_ERROR_INVALID_SIZE;
  for (std::uint32_t i = 0; i < device_count; ++i) {
    if (core_device(devices[i]) == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  auto* context = new _ze_context_handle_t();
  add_handle(context, HandleKind::kContext);
  objects().contexts.push_back(context);
  *out = context;
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextCreate(ze_driver_handle_t driver, const ze_context_desc_t* desc,
                            ze_context_handle_t* out) {
  return call("zeContextCreate", CallKind::kCore,
              [&]() MOCKDEV_ZE_LOCKED { return create_context(driver, desc, 0, nullptr, out); });
}

ze_result_t zeContextCreateEx(ze_driver_handle_t driver, const ze_context_desc_t* desc,
                              std::uint32_t device_count, ze_device_handle_t* devices,
                              ze_context_handle_t* out) {
  return call("zeContextCreateEx", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    return create_context(driver, desc, device_count, devices, out);
  });
}

ze_result_t zeContextDestroy(ze_context_handle_t handle) {
  return call("zeContextDestroy", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(handle, HandleKind::kContext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    destroy_context(context);
    return ZE_RESULT_SUCCESS;
  });
}

// The mock models no device loss here, so a live context is always usable.
ze_result_t zeContextGetStatus(ze_context_handle_t handle) {
  return call("zeContextGetStatus", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(handle, HandleKind::kContext) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    return ZE_RESULT_SUCCESS;
  });
}

// Residency (zeContextMakeMemoryResident, zeContextEvictMemory): the range must lie in one
// allocation of the context (any kind), else INVALID_ARGUMENT, as Intel's driver answers for
// memory it did not allocate; plain host memory is refused the same way, as by a device
// without shared-system allocations. The mock keeps every allocation resident: nothing else
// changes [inferred: no eviction is modelled, so a later access never faults].
ze_result_t check_residency(ze_context_handle_t hcontext, ze_device_handle_t hdevice, void* ptr,
                            std::size_t size) MOCKDEV_ZE_LOCKED {
  _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
  if (context == nullptr || core_device(hdevice) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (ptr == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const auto address = reinterpret_cast<std::uintptr_t>(ptr);
  if (containing_allocation(*context, address, size, nullptr) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t zeContextMakeMemoryResident(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                        void* ptr, std::size_t size) {
  return call("zeContextMakeMemoryResident", CallKind::kCore,
              [&]() MOCKDEV_ZE_LOCKED { return check_residency(hcontext, hdevice, ptr, size); });
}

ze_result_t zeContextEvictMemory(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                                 void* ptr, std::size_t size) {
  return call("zeContextEvictMemory", CallKind::kCore,
              [&]() MOCKDEV_ZE_LOCKED { return check_residency(hcontext, hdevice, ptr, size); });
}

}  // namespace

void drop_all_objects() {
  // A copy: destroy_context edits the list.
  const std::vector<_ze_context_handle_t*> live = objects().contexts;
  for (_ze_context_handle_t* context : live) destroy_context(context);
}

MOCKDEV_ZE_FILL_FUNCTION(fill_context_table, ze_context_dditable_t, ACCEL_ZE_CONTEXT_ENTRY_POINTS)

}  // namespace mockdev::level_zero
