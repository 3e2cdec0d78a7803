#pragma once
// The allocator invariants the properties check after every step live in the allocator
// (runtime/src/allocator/stats_invariants.h), one copy shared with the scenario runner's
// `invariants: memory_stats`; this header names them in the properties' namespace.

#include "allocator/stats_invariants.h"

namespace accel::test::alloc_model {

using detail::alloc::invariants::check_snapshot;
using detail::alloc::invariants::check_stats;
using detail::alloc::invariants::FlatStats;
using detail::alloc::invariants::join_violations;
using detail::alloc::invariants::LayoutRules;
using detail::alloc::invariants::stat_bytes;
using detail::alloc::invariants::stat_prefixes;
using detail::alloc::invariants::StatHistory;
using detail::alloc::invariants::Violations;

}  // namespace accel::test::alloc_model
