#pragma once
// Note [Leaky state] (core/engine.h) says driver objects handed to callers (contexts,
// streams, events, modules, functions) are never freed: a caller may hold a handle across a
// machine reset or into an atexit handler, and the engine must be able to reject it without
// touching freed memory. keep_forever() records each such object in a list that lives as
// long as the process, so the objects stay reachable after the registry that validated them
// is rebuilt for a new machine: a leak checker then sees them as kept on purpose, while a
// real leak (an object nobody recorded) is still reported.
// Thread safety: requires the engine lock.

#include "core/engine_lock.h"

namespace mockdev::core {

void keep_forever(const void* object) MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
