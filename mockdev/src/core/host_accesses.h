#pragma once
// Declared accesses of host functions: the ranges a host function reads and writes, keyed by
// its user_data pointer, given by tests through the control API (mockdev/streams.h) so that
// the race detector sees what a host callback touches. Engine lock; reset with the machine.

#include <vector>

#include "core/engine_lock.h"
#include "core/op_observer.h"

namespace mockdev::core {

// Replaces the declaration for `user_data` (both lists empty: removes it).
void declare_accesses(const void* user_data, std::vector<AccessRange> reads,
                      std::vector<AccessRange> writes) MOCKDEV_REQUIRES(g_engine_mutex);
// Appends the declaration for `user_data`, if any, to `reads` and `writes`.
void declared_accesses(const void* user_data, std::vector<AccessRange>& reads,
                       std::vector<AccessRange>& writes) MOCKDEV_REQUIRES(g_engine_mutex);

}  // namespace mockdev::core
