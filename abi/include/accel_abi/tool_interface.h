#pragma once
// The runtime's tool interface: how a tool (a profiler, a tracer, the simulated hardware's
// race detector and trace) learns what only the runtime knows -- the runtime's names for the
// driver's queues, and the caching allocator's bytes -- without the runtime knowing which
// tool it is talking to. The same shape as NVTX's and CUPTI's injection: the user names a
// shared library in an environment variable, the runtime loads it and calls what it exports.
//
// Note [The tool interface]
// ACCEL_TOOL_LIBRARY=<path> (unset or empty: no tool). At its initialisation the runtime
// dlopens the file (RTLD_NOW | RTLD_LOCAL; a library already loaded, such as the one behind
// the simulated driver, is the same instance), looks up accel_tool_attach and calls it with
// ACCEL_TOOL_INTERFACE_VERSION. A file that does not load, that lacks accel_tool_attach, or
// whose accel_tool_attach returns non-zero is a configuration error of the runtime's
// initialisation naming the variable, the path and the reason: a tool the user asked for
// never silently goes missing. The other functions are optional: each is looked up once and
// called only when present. Calls come from any thread the runtime runs on, without the
// runtime's locks held; a tool must be thread-safe and must not call back into the runtime.
// Strings are valid only during the call.
//
// The calls (the runtime's device is "cuda:0", "xpu:1": its type and visible index):
//   accel_tool_name_queue(device, native_queue, name)
//       once per queue the runtime creates for its stream pools, right after creating it:
//       `native_queue` is the driver's handle (a CUstream, a ze_command_list_handle_t), as
//       Stream::native_handle() returns it; `name` is "cuda:0 stream id=<Stream::id()>
//       (priority <p>)", what the program sees through accel::Stream.
//   accel_tool_memory(device, allocated_bytes, reserved_bytes)
//       after each caching-allocator call that may change them (allocate, free,
//       empty_cache, a freed block's events completing): memory_stats()'s
//       allocated_bytes.all.current and reserved_bytes.all.current for that device.
//   accel_tool_enter_api(caller) ... accel_tool_leave_api()
//       around each runtime call that queues work on a device (copy_async, fill_async, copy,
//       fill, Event::record, Event::wait), on the calling thread, outermost call only:
//       `caller` is the return address into the code that called the runtime, so a tool can
//       attribute the driver calls made in between to the program's line rather than to the
//       runtime's. Each enter is followed by its leave on the same thread, also when the call
//       throws.
//
// C linkage, C types only, so a tool can be written in any language.

#ifdef __cplusplus
extern "C" {
#endif

#define ACCEL_TOOL_INTERFACE_VERSION 1u
#define ACCEL_TOOL_LIBRARY_VARIABLE "ACCEL_TOOL_LIBRARY"

typedef int (*accel_tool_attach_fn)(unsigned interface_version);
typedef void (*accel_tool_name_queue_fn)(const char* device, const void* native_queue,
                                         const char* name);
typedef void (*accel_tool_memory_fn)(const char* device, long long allocated_bytes,
                                     long long reserved_bytes);
typedef void (*accel_tool_enter_api_fn)(const void* caller);
typedef void (*accel_tool_leave_api_fn)(void);

#ifdef __cplusplus
}
#endif
