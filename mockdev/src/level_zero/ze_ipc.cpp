// Interprocess handles of the mock Level Zero driver (Note [Level Zero IPC handles] in ze_ipc.h).

#include "level_zero/ze_ipc.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "core/engine.h"
#include "core/engine_lock.h"
#include "level_zero/ze_objects.h"

namespace mockdev::level_zero {
namespace {

// What a handle holds: a tag, the exporting process and machine generation, and the object
// (an allocation's id and address, or an event pool's identity and size).
struct HandleBody {
  char tag[8];
  std::uint64_t pid;
  std::uint64_t generation;
  std::uint64_t object;
  std::uint64_t detail;
};
static_assert(sizeof(HandleBody) <= ZE_MAX_IPC_HANDLE_SIZE);

constexpr char kMemTag[8] = {'a', 'c', 'c', 'e', 'l', 'z', 'e', 'm'};
constexpr char kPoolTag[8] = {'a', 'c', 'c', 'e', 'l', 'z', 'e', 'p'};

void write_handle(char (&out)[ZE_MAX_IPC_HANDLE_SIZE], const char (&tag)[8], std::uint64_t object,
                  std::uint64_t detail) MOCKDEV_ZE_LOCKED {
  HandleBody body{};
  std::memcpy(body.tag, tag, sizeof body.tag);
  body.pid = static_cast<std::uint64_t>(core::current_pid());
  body.generation = core::engine().generation;
  body.object = object;
  body.detail = detail;
  std::memset(out, 0, sizeof out);
  std::memcpy(out, &body, sizeof body);
}

// The answer to opening `in` (Note [Level Zero IPC handles]).
ze_result_t open_code(const char (&in)[ZE_MAX_IPC_HANDLE_SIZE], const char (&tag)[8],
                      const char* what) MOCKDEV_ZE_LOCKED {
  HandleBody body{};
  std::memcpy(&body, in, sizeof body);
  const bool ours = std::memcmp(body.tag, tag, sizeof body.tag) == 0 &&
                    body.pid == static_cast<std::uint64_t>(core::current_pid()) &&
                    body.generation == core::engine().generation;
  if (!ours) return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  report(std::string(what) +
         ": the handle was made in this process; the simulation cannot open an IPC handle "
         "(a handle is for another process, and each process has its own simulated machine)");
  return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

// A handle given back by `entry` (zeMemPutIpcHandle, zeEventPoolPutIpcHandle).
ze_result_t put_handle(EntryPoint entry, ze_context_handle_t hcontext) {
  return call(entry, CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(hcontext, HandleKind::kContext) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace

ze_result_t zeMemGetIpcHandle(ze_context_handle_t hcontext, const void* pointer,
                              ze_ipc_mem_handle_t* handle) {
  return call("zeMemGetIpcHandle", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_context_handle_t* context = find_handle(hcontext, HandleKind::kContext);
    if (context == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (pointer == nullptr || handle == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto address = reinterpret_cast<std::uint64_t>(pointer);
    const auto found = context->allocations.find(address);
    if (found == context->allocations.end() || found->second.kind != MemKind::kDevice ||
        found->second.module_global) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    write_handle(handle->data, kMemTag, found->second.id, address);
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeMemOpenIpcHandle(ze_context_handle_t hcontext, ze_device_handle_t hdevice,
                               ze_ipc_mem_handle_t handle, ze_ipc_memory_flags_t flags,
                               void** pointer) {
  return call("zeMemOpenIpcHandle", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(hcontext, HandleKind::kContext) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (core_device(hdevice) == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (flags > (ZE_IPC_MEMORY_FLAG_BIAS_CACHED | ZE_IPC_MEMORY_FLAG_BIAS_UNCACHED)) {
      return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    }
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return open_code(handle.data, kMemTag, "zeMemOpenIpcHandle");
  });
}

ze_result_t zeMemCloseIpcHandle(ze_context_handle_t hcontext, const void* pointer) {
  return call("zeMemCloseIpcHandle", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(hcontext, HandleKind::kContext) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (pointer == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // nothing is ever opened
  });
}

ze_result_t zeEventPoolGetIpcHandle(ze_event_pool_handle_t hpool,
                                    ze_ipc_event_pool_handle_t* handle) {
  return call("zeEventPoolGetIpcHandle", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    _ze_event_pool_handle_t* pool = find_handle(hpool, HandleKind::kEventPool);
    if (pool == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (handle == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if ((pool->flags & ZE_EVENT_POOL_FLAG_IPC) == 0) {
      return ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT;
    }
    write_handle(handle->data, kPoolTag, reinterpret_cast<std::uint64_t>(pool), pool->slots.size());
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zeEventPoolOpenIpcHandle(ze_context_handle_t hcontext,
                                     ze_ipc_event_pool_handle_t handle,
                                     ze_event_pool_handle_t* pool) {
  return call("zeEventPoolOpenIpcHandle", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(hcontext, HandleKind::kContext) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (pool == nullptr) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    return open_code(handle.data, kPoolTag, "zeEventPoolOpenIpcHandle");
  });
}

ze_result_t zeEventPoolCloseIpcHandle(ze_event_pool_handle_t hpool) {
  return call("zeEventPoolCloseIpcHandle", CallKind::kCore, [&]() MOCKDEV_ZE_LOCKED {
    if (find_handle(hpool, HandleKind::kEventPool) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;  // a pool of zeEventPoolCreate: never opened
  });
}

// Both give a handle back (Note [Level Zero IPC handles]): nothing was opened or pinned for it,
// so there is nothing to release; only the context is checked.
ze_result_t zeMemPutIpcHandle(ze_context_handle_t hcontext, ze_ipc_mem_handle_t /*handle*/) {
  return put_handle("zeMemPutIpcHandle", hcontext);
}

ze_result_t zeEventPoolPutIpcHandle(ze_context_handle_t hcontext,
                                    ze_ipc_event_pool_handle_t /*handle*/) {
  return put_handle("zeEventPoolPutIpcHandle", hcontext);
}

}  // namespace mockdev::level_zero
