#pragma once
// What `accel replay` prints: the text report, the --compare table and the JSON form.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "replay.h"
#include "trace.h"

namespace accel::replay {

struct RunReport {
  std::string config;  // as the user wrote it ("" = the defaults)
  std::uint64_t capacity = 0;
  std::optional<MinCapacity> min_capacity;  // --find-min-capacity
  ReplayResult result;
};

// "16GiB", "512 MiB", "1.5GB", "1073741824" (bytes): binary units KiB..TiB, decimal units
// KB..TB, a bare number is bytes; nullopt for anything else or a value that overflows.
std::optional<std::uint64_t> parse_size(std::string_view text);

void render_text(const Trace& trace, std::uint64_t granularity, const RunReport& run,
                 std::ostream& out);
void render_compare(const Trace& trace, std::uint64_t granularity,
                    const std::vector<RunReport>& runs, std::ostream& out);
void render_json(const Trace& trace, std::uint64_t granularity, const std::vector<RunReport>& runs,
                 bool compare, std::ostream& out);

}  // namespace accel::replay
