// RMM allocation logs (CSV, as rmm::mr::logging_resource_adaptor writes them):
//
//   Thread,Time,Action,Pointer,Size,Stream
//   140229,14:35:11.123456,allocate,0x7f4a2c000000,1048576,0x0
//
// Columns are found by name in the header (Action, Pointer, Size and Stream are required;
// others are ignored). Action is allocate, free, or "allocate failure" (the allocation the
// logged program could not get: it never existed, so the row is skipped and counted).
// Pointer and Stream are hexadecimal with 0x, or decimal; Size is decimal. Every other
// value is an error naming the line and column: "trace.csv:17: Size: expected a
// non-negative integer, got 'abc'".
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <optional>

#include "trace.h"
#include "trace_builder.h"

namespace accel::replay {
namespace {

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

// Hexadecimal with 0x/0X, else decimal; the whole text must be a number.
std::optional<std::uint64_t> parse_number(std::string_view text, bool allow_hex) {
  int base = 10;
  if (allow_hex && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

}  // namespace

Trace read_rmm_text(std::string_view text, const std::string& file) {
  Trace trace;
  trace.file = file;
  trace.format = TraceFormat::kRmmLog;
  detail::TraceBuilder builder(trace);

  constexpr std::array<std::string_view, 4> kRequired = {"Action", "Pointer", "Size", "Stream"};
  std::array<std::size_t, 4> column{};  // index of each required column
  std::size_t columns = 0;
  std::uint32_t line_number = 0;
  std::string header_text;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (trim(line).empty()) continue;
    const std::vector<std::string_view> fields = split(line);
    if (columns == 0) {
      for (std::size_t r = 0; r < kRequired.size(); ++r) {
        std::size_t found = fields.size();
        for (std::size_t f = 0; f < fields.size(); ++f) {
          if (fields[f] == kRequired[r]) found = f;
        }
        if (found == fields.size()) {
          detail::fail_at(file, line_number,
                          fmt::format("header: no {} column (expected Thread,Time,Action,"
                                      "Pointer,Size,Stream, got '{}')",
                                      kRequired[r], trim(line)));
        }
        column[r] = found;
      }
      columns = fields.size();
      header_text = std::string(trim(line));
      continue;
    }
    if (fields.size() != columns) {
      detail::fail_at(file, line_number,
                      fmt::format("expected {} fields ({}), got {}", columns, header_text,
                                  fields.size()));
    }
    const std::string_view action = fields[column[0]];
    if (action == "allocate failure") {
      ++trace.failed_allocations;
      continue;
    }
    if (action != "allocate" && action != "free") {
      detail::fail_at(file, line_number,
                      fmt::format("Action: expected allocate, free or allocate failure, got '{}'",
                                  action));
    }
    const auto pointer = parse_number(fields[column[1]], /*allow_hex=*/true);
    if (!pointer) {
      detail::fail_at(file, line_number,
                      fmt::format("Pointer: expected an address (0x... or decimal), got '{}'",
                                  fields[column[1]]));
    }
    const auto size = parse_number(fields[column[2]], /*allow_hex=*/false);
    if (!size) {
      detail::fail_at(file, line_number,
                      fmt::format("Size: expected a non-negative integer, got '{}'",
                                  fields[column[2]]));
    }
    const auto stream = parse_number(fields[column[3]], /*allow_hex=*/true);
    if (!stream) {
      detail::fail_at(file, line_number,
                      fmt::format("Stream: expected a stream (0x... or decimal), got '{}'",
                                  fields[column[3]]));
    }
    if (action == "allocate") {
      builder.allocate(*pointer, *size, static_cast<std::int64_t>(*stream), line_number);
    } else {
      builder.free(*pointer, line_number);
    }
  }
  if (columns == 0) throw TraceError(fmt::format("{}: empty file", file));
  return trace;
}

}  // namespace accel::replay
