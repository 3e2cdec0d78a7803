#pragma once
// Which vendor API a machine-file fault belongs to, and that API's result-code names: the
// one place the machine-file reader learns about APIs (a new adapter adds its row here).
// Pure; thread-safe.

#include <optional>
#include <string_view>

#include "mockdev/machine.h"

namespace mockdev::machine_file {

// "CUDA", "NVML": the prefix of the API's result-code names, as error messages say it.
std::string_view code_family(Api api);

// The API whose facade exports `symbol` ("cuMemAlloc_v2" -> kCuda), or nullopt.
std::optional<Api> api_of_entry_point(std::string_view symbol);

// The API named `name` in a machine file ("cuda", "nvml"), or nullopt.
std::optional<Api> api_from_name(std::string_view name);

}  // namespace mockdev::machine_file
