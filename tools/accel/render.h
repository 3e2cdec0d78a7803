#pragma once
// Rendering an InfoReport for people (render_text) and for programs (render_json).
//
// The text form is what `accel info` prints: a header (build, environment in effect,
// backend, one "<role>: <path> (loaded, version 13.0)" line per backend component,
// "device count: 4 (from nvml)"), then one "  <index>  <name>  <uuid> ..." row per device
// with "-" for what is unknown and, under a device whose query failed, its error on its own
// line; "fallback: cpu" when unavailable. The JSON form carries the same facts (and the full
// UUIDs), with byte counts as integers, `null` for every unknown, and is valid UTF-8
// whatever the driver returned (invalid bytes become U+FFFD). Neither knows which backend
// it renders. Pure functions of their input; thread-safe.

#include <cstdint>
#include <ostream>
#include <string>

#include "info.h"

namespace accel::tools {

void render_text(const InfoReport& report, std::ostream& out);
void render_json(const InfoReport& report, std::ostream& out);

}  // namespace accel::tools
