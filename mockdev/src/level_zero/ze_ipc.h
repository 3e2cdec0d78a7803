#pragma once
// Interprocess handles of the mock Level Zero driver: memory (zeMemGetIpcHandle,
// zeMemOpenIpcHandle, zeMemCloseIpcHandle, zeMemPutIpcHandle) and event pools
// (zeEventPoolGetIpcHandle, zeEventPoolOpenIpcHandle, zeEventPoolCloseIpcHandle,
// zeEventPoolPutIpcHandle). Their tables' fill functions
// (ze_memory.cpp, ze_events.cpp) include this header, as the entry points are written into the
// Mem and EventPool tables (Note [Fill functions from the entry-point list] in ze_tables.h).
// Thread safety: every entry point runs under the engine lock through call().
//
// Note [Level Zero IPC handles]
// A handle names the allocation or event pool, the process and the simulated machine that made
// it (the CUDA driver's Note [IPC handles] in cuda/driver_ipc.cpp does the same). Exporting
// follows the specification: memory must be the base of a device allocation of the context (a
// pointer that is not, host and shared memory included, is ZE_RESULT_ERROR_INVALID_ARGUMENT, as
// Intel's driver answers for an unknown pointer); an event pool must have been created with
// ZE_EVENT_POOL_FLAG_IPC (otherwise ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT, the one
// code the specification lists for the call beyond null checks [inferred]). Opening is where the
// simulation stops: a handle is for another process, and each process has its own simulated
// machine, so no handle can be opened:
// - in the process and machine that made it: ZE_RESULT_ERROR_UNSUPPORTED_FEATURE with one
//   stderr line [inferred: Intel's driver opens its own handles (the dma-buf is the process's
//   own); the simulation has no second mapping of its memory to give];
// - anywhere else, or a handle no simulated driver made: ZE_RESULT_ERROR_INVALID_ARGUMENT
//   [inferred: the handle names nothing this driver can import].
// As nothing is ever opened, zeMemCloseIpcHandle of any pointer is
// ZE_RESULT_ERROR_INVALID_ARGUMENT and zeEventPoolCloseIpcHandle of a pool made by
// zeEventPoolCreate is ZE_RESULT_ERROR_INVALID_ARGUMENT [inferred]. zeDriverGetIpcProperties
// keeps reporting no IPC support (flags 0): what the simulation can deliver.
// Giving a handle back (spec 1.6: zeMemPutIpcHandle, zeEventPoolPutIpcHandle; written into the
// tables only for a loader that asks at 1.6, which Debian's does not) takes a valid context and
// answers ZE_RESULT_SUCCESS whatever the handle holds: the specification lists no code for a
// handle that was never obtained, and Intel's open-source driver (compute-runtime,
// ContextImp::putIpcMemHandle) ignores a handle it does not track. It frees nothing: the
// allocation or pool the handle names stays, as the specification says [inferred for handles
// this driver did not make].

#include <level_zero/ze_api.h>

namespace mockdev::level_zero {

ze_result_t zeMemGetIpcHandle(ze_context_handle_t context, const void* pointer,
                              ze_ipc_mem_handle_t* handle);
ze_result_t zeMemOpenIpcHandle(ze_context_handle_t context, ze_device_handle_t device,
                               ze_ipc_mem_handle_t handle, ze_ipc_memory_flags_t flags,
                               void** pointer);
ze_result_t zeMemCloseIpcHandle(ze_context_handle_t context, const void* pointer);

ze_result_t zeEventPoolGetIpcHandle(ze_event_pool_handle_t pool,
                                    ze_ipc_event_pool_handle_t* handle);
ze_result_t zeEventPoolOpenIpcHandle(ze_context_handle_t context, ze_ipc_event_pool_handle_t handle,
                                     ze_event_pool_handle_t* pool);
ze_result_t zeEventPoolCloseIpcHandle(ze_event_pool_handle_t pool);
// Spec 1.6 (tables asked for at >= 1.6).
ze_result_t zeMemPutIpcHandle(ze_context_handle_t context, ze_ipc_mem_handle_t handle);
ze_result_t zeEventPoolPutIpcHandle(ze_context_handle_t context, ze_ipc_event_pool_handle_t handle);

}  // namespace mockdev::level_zero
