#pragma once
// Which vendor API a machine-file fault belongs to, and that API's result-code names: the
// machine-file reader's (and the control API's) view of the vendor registry, whose rows the
// adapters register (Note [Vendor registry] in core/vendor_registry.h); a new API adds
// nothing here. Pure; thread-safe.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mockdev/machine.h"

namespace mockdev::machine_file {

// "CUDA", "NVML", "ZE": the prefix of the API's result-code names, as error messages say it.
std::string_view code_family(Api api);

// An entry point as a fault names it: by its exported symbol ("cuMemGetInfo_v2") or, for
// CUDA, by the base name that error messages and cuGetProcAddress use ("cuMemGetInfo").
// An exported symbol wins over a base name ("cuGetProcAddress" is both: the symbol).
struct EntryPointName {
  std::string_view symbol;  // the exported symbol, under which calls are counted
  Api api;
};
std::optional<EntryPointName> resolve_entry_point(std::string_view name);

// The exported symbols of `api`'s entry points a call fault may name, in its row's order.
std::vector<std::string_view> entry_point_symbols(Api api);
// entry_point_symbols(Api::kLevelZero): ACCEL_ZE_SERVED_TABLE
// (accel_abi/level_zero_entry_points.h), in the table's order.
std::vector<std::string_view> level_zero_entry_points();

// The entry points closest to an unknown `name` by edit distance (ignoring case; an entry
// point is as near as the nearer of its two names): those within max(2, size/3) edits,
// nearest first, then by name; at most 3, each as its base name then, when it differs,
// its exported symbol ("cuMemAlloc", "cuMemAlloc_v2").
std::vector<std::string_view> close_entry_points(std::string_view name);

// What an unknown entry-point name was expected to be, for "expected <what>, got '<name>'":
// "an entry point of the mock's APIs (closest: cuMemAlloc, cuMemAlloc_v2)", or, with no
// close name, "an entry point of the mock's APIs, by exported symbol (cuMemAlloc_v2) or
// base name (cuMemAlloc)".
std::string expected_entry_point(std::string_view name);

// The API named `name` in a machine file ("cuda", "nvml", "level_zero"), or nullopt.
std::optional<Api> api_from_name(std::string_view name);

}  // namespace mockdev::machine_file
