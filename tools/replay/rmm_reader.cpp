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
// non-negative integer, got 'abc'"; so is a header naming a column twice, and a free of a
// pointer the log never allocated (Note [Frees of unknown addresses], trace_builder.h).
// The log is read a line at a time from the TraceSource, never whole.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <vector>

#include "trace.h"
#include "trace_builder.h"
#include "trace_source.h"

namespace accel::replay {
namespace {

std::string_view trim(std::string_view s) {
  const std::size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// The fields of `line` into `fields` (reused from row to row).
void split(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
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

[[noreturn]] void not_a_trace(const std::string& file, std::uint64_t line) {
  detail::fail_at(file, line,
                  "not a trace: expected a PyTorch snapshot (a JSON object with device_traces) "
                  "or an RMM log (CSV with the header Thread,Time,Action,Pointer,Size,Stream)");
}

constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;  // a row is a few dozen bytes

bool looks_like_header(std::string_view line) {
  return line.find("Action") != std::string_view::npos && line.find(',') != std::string_view::npos;
}

}  // namespace

namespace detail {

Trace read_rmm(TraceSource& source, int device) {
  Trace trace;
  trace.file = source.name();
  trace.format = TraceFormat::kRmmLog;
  const std::string& file = trace.file;
  TraceBuilder builder(trace, TraceBuilder::History::kComplete);

  constexpr std::array<std::string_view, 4> kRequired = {"Action", "Pointer", "Size", "Stream"};
  std::array<std::size_t, 4> column{};  // index of each required column
  std::size_t columns = 0;
  std::string header_text;
  std::vector<std::string_view> fields;
  std::string_view line;
  while (true) {
    const TraceSource::LineStatus status = source.read_line(line, kMaxLineBytes);
    if (status == TraceSource::LineStatus::kEnd) break;
    const std::uint64_t line_number = source.last_line();
    if (status == TraceSource::LineStatus::kTooLong) {
      if (columns == 0) not_a_trace(file, line_number);
      fail_at(file, line_number,
              fmt::format("line longer than {} bytes (an RMM log row is a few dozen)",
                          kMaxLineBytes));
    }
    if (trim(line).empty()) continue;
    split(line, fields);
    if (columns == 0) {
      if (!looks_like_header(line)) not_a_trace(file, line_number);
      if (device != 0) {
        throw TraceError(fmt::format("{}: --device {}: an RMM log holds one device's events",
                                     file, device));
      }
      std::unordered_map<std::string_view, std::size_t> first;  // name -> its column
      for (std::size_t f = 0; f < fields.size(); ++f) {
        const auto [it, inserted] = first.emplace(fields[f], f);
        if (!inserted) {
          fail_at(file, line_number,
                  fmt::format("header: duplicate column '{}' (columns {} and {}) in '{}'",
                              fields[f], it->second + 1, f + 1, trim(line)));
        }
      }
      for (std::size_t r = 0; r < kRequired.size(); ++r) {
        const auto found = std::find(fields.begin(), fields.end(), kRequired[r]);
        if (found == fields.end()) {
          fail_at(file, line_number,
                  fmt::format("header: no {} column (expected Thread,Time,Action,Pointer,Size,"
                              "Stream, got '{}')",
                              kRequired[r], trim(line)));
        }
        column[r] = static_cast<std::size_t>(found - fields.begin());
      }
      columns = fields.size();
      header_text = std::string(trim(line));
      continue;
    }
    if (fields.size() != columns) {
      fail_at(file, line_number,
              fmt::format("expected {} fields ({}), got {}", columns, header_text, fields.size()));
    }
    const std::string_view action = fields[column[0]];
    if (action == "allocate failure") {
      ++trace.failed_allocations;
      continue;
    }
    if (action != "allocate" && action != "free") {
      fail_at(file, line_number,
              fmt::format("Action: expected allocate, free or allocate failure, got '{}'", action));
    }
    const auto pointer = parse_number(fields[column[1]], /*allow_hex=*/true);
    if (!pointer) {
      fail_at(file, line_number,
              fmt::format("Pointer: expected an address (0x... or decimal), got '{}'",
                          fields[column[1]]));
    }
    const auto size = parse_number(fields[column[2]], /*allow_hex=*/false);
    if (!size) {
      fail_at(file, line_number,
              fmt::format("Size: expected a non-negative integer, got '{}'", fields[column[2]]));
    }
    const auto stream = parse_number(fields[column[3]], /*allow_hex=*/true);
    if (!stream) {
      fail_at(file, line_number,
              fmt::format("Stream: expected a stream (0x... or decimal), got '{}'",
                          fields[column[3]]));
    }
    if (action == "allocate") {
      builder.allocate(*pointer, *size, static_cast<std::int64_t>(*stream), line_number);
    } else {
      builder.free(*pointer, line_number, "free", /*completes=*/true);
    }
  }
  if (columns == 0) throw TraceError(fmt::format("{}: empty file", file));
  return trace;
}

}  // namespace detail
}  // namespace accel::replay
