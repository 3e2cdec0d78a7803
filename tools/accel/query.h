#pragma once
// `accel info --query FIELD,... [--format csv|text]`: chosen facts of each device, one line
// per device, in the spirit of `nvidia-smi --query-gpu=... --format=csv` (decision 209).
//
// The fields are nvidia-smi's names where nvidia-smi has the fact (index, name, uuid,
// pci.bus_id, compute_cap, mig.mode.current, memory.total, memory.used, memory.free) and
// `multiprocessors` for the one it lacks. Memory is in MiB as nvidia-smi prints it
// ("81920 MiB"); memory.used is total - free, as the driver's cuMemGetInfo pair gives it.
// An unknown value is "[N/A]", nvidia-smi's word.
//
// Formats: `csv` is nvidia-smi's csv: a header line naming the fields (with "[MiB]" after
// each memory field), then one line per device, values separated by ", "; the modifiers
// `noheader` and `nounits` may follow, comma-separated (`csv,noheader,nounits`), as
// nvidia-smi takes them. A value holding a comma or a double quote is quoted as RFC 4180
// quotes it, so a line always splits into the fields asked for. `text` is a table with the
// same header, columns aligned, as `accel info` prints its device table. Pure functions;
// thread-safe.

#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "info.h"

namespace accel::tools {

// A field list or format that cannot be honoured; what() names the value and lists the
// valid ones ("unknown field 'memory.usd' (fields: index, name, ...)"); the command line
// puts the option's name before it.
class QueryError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct QueryFormat {
  bool csv = true;  // false: text
  bool header = true;
  bool units = true;
};

// The valid field names, in the order the help lists them.
const std::vector<std::string_view>& query_field_names();

// "name,uuid" -> {"name", "uuid"}. Throws QueryError for an empty list, an empty field or
// an unknown one.
std::vector<std::string> parse_query_fields(std::string_view text);

// "csv", "text", "csv,noheader,nounits", ... Throws QueryError naming the bad word.
QueryFormat parse_query_format(std::string_view text);

// The header (unless format.header is false) and one line per row.
void render_query(const std::vector<DeviceRow>& rows, const std::vector<std::string>& fields,
                  const QueryFormat& format, std::ostream& out);

}  // namespace accel::tools
