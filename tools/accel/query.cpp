#include "query.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>

#include "accel_common/printable.h"

namespace accel::tools {
namespace {

constexpr std::string_view kNotAvailable = "[N/A]";  // nvidia-smi's word for an unknown
constexpr std::uint64_t kMiB = 1024 * 1024;

struct Field {
  std::string_view name;
  bool memory;  // a size in MiB: "[MiB]" in the header, " MiB" after the value
};

// The order of query_field_names() and of the help.
constexpr Field kFields[] = {
    {"index", false},
    {"name", false},
    {"uuid", false},
    {"pci.bus_id", false},
    {"compute_cap", false},
    {"multiprocessors", false},
    {"mig.mode.current", false},
    {"memory.total", true},
    {"memory.used", true},
    {"memory.free", true},
};

const Field* find_field(std::string_view name) {
  for (const Field& field : kFields) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

std::optional<std::string> mib(std::optional<std::uint64_t> bytes) {
  if (!bytes) return std::nullopt;
  return std::to_string(*bytes / kMiB);
}

// The value of `field` for `row`, without its unit; nullopt when unknown.
std::optional<std::string> value_of(const DeviceRow& row, std::string_view field) {
  if (field == "index") return std::to_string(row.index);
  if (field == "name") return row.name;
  if (field == "uuid") return row.uuid;
  if (field == "pci.bus_id") return row.pci_bus_id;
  if (field == "compute_cap") {
    if (!row.cc_major || !row.cc_minor) return std::nullopt;
    return fmt::format("{}.{}", *row.cc_major, *row.cc_minor);
  }
  if (field == "multiprocessors") {
    if (!row.multiprocessors) return std::nullopt;
    return std::to_string(*row.multiprocessors);
  }
  if (field == "mig.mode.current") return row.mig_mode;
  if (field == "memory.total") return mib(row.total_bytes);
  if (field == "memory.free") return mib(row.free_bytes);
  if (field == "memory.used") {
    if (!row.total_bytes || !row.free_bytes || *row.free_bytes > *row.total_bytes) {
      return std::nullopt;
    }
    return mib(*row.total_bytes - *row.free_bytes);
  }
  return std::nullopt;  // parse_query_fields admits no other name
}

// RFC 4180: a value holding the separator's comma, a quote or a line break is quoted, its
// quotes doubled. Other values are written as they are, as nvidia-smi writes them.
std::string csv_value(const std::string& value) {
  if (value.find_first_of(",\"\n\r") == std::string::npos) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

const std::vector<std::string_view>& query_field_names() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> all;
    for (const Field& field : kFields) all.push_back(field.name);
    return all;
  }();
  return names;
}

std::vector<std::string> parse_query_fields(std::string_view text) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view word = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (word.empty()) {
      throw QueryError(fmt::format("an empty field in '{}' (fields: {})", common::printable(text),
                                   fmt::join(query_field_names(), ", ")));
    }
    if (find_field(word) == nullptr) {
      throw QueryError(fmt::format("unknown field '{}' (fields: {})", common::printable(word),
                                   fmt::join(query_field_names(), ", ")));
    }
    fields.emplace_back(word);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

QueryFormat parse_query_format(std::string_view text) {
  QueryFormat format;
  std::size_t start = 0;
  bool first = true;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view word = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (first && word == "csv") {
      format.csv = true;
    } else if (first && word == "text") {
      format.csv = false;
    } else if (!first && word == "noheader") {
      format.header = false;
    } else if (!first && word == "nounits") {
      format.units = false;
    } else {
      throw QueryError(
          fmt::format("{} '{}' in '{}' (expected csv or text, optionally followed by ,noheader and "
                      ",nounits)",
                      first ? "unknown format" : "unknown modifier", common::printable(word),
                      common::printable(text)));
    }
    first = false;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return format;
}

void render_query(const std::vector<DeviceRow>& rows, const std::vector<std::string>& fields,
                  const QueryFormat& format, std::ostream& out) {
  std::vector<std::vector<std::string>> lines;
  if (format.header) {
    std::vector<std::string> header;
    for (const std::string& name : fields) {
      header.push_back(find_field(name)->memory ? name + " [MiB]" : name);
    }
    lines.push_back(std::move(header));
  }
  for (const DeviceRow& row : rows) {
    std::vector<std::string> line;
    for (const std::string& name : fields) {
      const std::optional<std::string> value = value_of(row, name);
      if (!value) {
        line.emplace_back(kNotAvailable);
      } else {
        // A driver's name may hold control characters: never let them break a line.
        const std::string shown = common::printable(*value);
        line.push_back(find_field(name)->memory && format.units ? shown + " MiB" : shown);
      }
    }
    lines.push_back(std::move(line));
  }
  if (format.csv) {
    for (const std::vector<std::string>& line : lines) {
      std::vector<std::string> cells;
      for (const std::string& cell : line) cells.push_back(csv_value(cell));
      out << fmt::format("{}\n", fmt::join(cells, ", "));
    }
    return;
  }
  // text: columns two spaces apart, the last one unpadded.
  std::vector<std::size_t> widths(fields.size(), 0);
  for (const auto& line : lines) {
    for (std::size_t c = 0; c < line.size(); ++c) widths[c] = std::max(widths[c], line[c].size());
  }
  for (const auto& line : lines) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      text += c + 1 < line.size() ? fmt::format("{:<{}}  ", line[c], widths[c]) : line[c];
    }
    out << text << '\n';
  }
}

}  // namespace accel::tools
