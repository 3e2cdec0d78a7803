#pragma once
// Rendering an InfoReport for people (render_text) and for programs (render_json).
//
// The text form is what `accel info` prints; its lines are stable enough for tests to
// match (one "<role>: <path> (loaded, version 13.0)" line per backend component,
// "device count: 4 (from nvml)", one "  <index>  <name> ..." row per device,
// "fallback: cpu" when unavailable). The JSON form carries the same facts with byte counts
// as integers and the components as a list of {role, path, loaded, version}. Neither knows
// which backend it renders. Pure functions of their input; thread-safe.

#include <cstdint>
#include <ostream>
#include <string>

#include "info.h"

namespace accel::tools {

// "79.65 GiB", "512.00 MiB", "0 B": binary units, two decimals above bytes.
std::string format_bytes(std::uint64_t bytes);

void render_text(const InfoReport& report, std::ostream& out);
void render_json(const InfoReport& report, std::ostream& out);

}  // namespace accel::tools
