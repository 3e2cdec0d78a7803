// The replay's reports (report.h).
#include "report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <utility>

#include "accel_common/units.h"

namespace accel::replay {
namespace {

std::string config_name(const std::string& config) {
  return config.empty() ? "(default)" : config;
}

std::string streams_text(const Trace& trace) {
  std::string values;
  for (std::size_t i = 0; i < trace.streams.size(); ++i) {
    values += fmt::format("{}{:#x}", i == 0 ? "" : ", ", trace.streams[i]);
  }
  return fmt::format("{} ({})", trace.streams.size(), values);
}

std::string with_human(std::uint64_t bytes) {
  return fmt::format("{} bytes ({})", bytes, common::binary_size(bytes));
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text) {
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"B", 1.0},           {"KiB", 1024.0},       {"MiB", 1048576.0},   {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0}, {"KB", 1e3},       {"MB", 1e6},          {"GB", 1e9},
      {"TB", 1e12}};
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 || text[digits] == '.')) {
    ++digits;
  }
  const std::string number(text.substr(0, digits));
  std::string_view unit = text.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (number.empty() || number.front() == '.' || number.back() == '.' ||
      std::count(number.begin(), number.end(), '.') > 1) {
    return std::nullopt;
  }
  double scale = 0;
  if (unit.empty()) scale = 1.0;
  for (const auto& [name, factor] : kUnits) {
    if (unit == name) scale = factor;
  }
  if (scale == 0) return std::nullopt;
  const double value = std::stod(number) * scale;
  if (value >= 18446744073709551616.0) return std::nullopt;
  const auto bytes = static_cast<std::uint64_t>(value);
  if (static_cast<double>(bytes) != value) return std::nullopt;  // a fraction of a byte
  return bytes;
}

void render_text(const Trace& trace, std::uint64_t granularity, const RunReport& run,
                 std::ostream& out) {
  const ReplayResult& r = run.result;
  std::string where = trace.format == TraceFormat::kPyTorchSnapshot
                          ? fmt::format(", device {}", trace.device)
                          : std::string();
  out << fmt::format("trace: {} ({}{})\n", trace.file, format_name(trace.format), where);
  out << fmt::format("events replayed: {} of {} ({} allocations, {} frees)\n", r.events_replayed,
                     trace.events.size(), trace.allocations, trace.frees);
  if (trace.format == TraceFormat::kPyTorchSnapshot) {
    out << fmt::format("skipped: {} frees of addresses allocated before the trace, {} allocator "
                       "entries\n",
                       trace.unmatched_frees, trace.ignored_entries);
  } else {  // an RMM log has neither (every free matches an allocation, or it is an error)
    out << fmt::format("skipped: {} failed allocations\n", trace.failed_allocations);
  }
  out << fmt::format("streams: {}\n", streams_text(trace));
  if (run.min_capacity) {
    out << fmt::format("minimum capacity: {} ({} replays; bisection alone: {} bytes)\n",
                       with_human(run.min_capacity->capacity), run.min_capacity->replays,
                       run.min_capacity->bisection);
  }
  out << fmt::format("capacity: {}, granularity {}\n", with_human(run.capacity),
                     common::binary_size(granularity));
  out << fmt::format("config: {}\n", config_name(run.config));
  out << fmt::format("peak allocated: {}\n", with_human(static_cast<std::uint64_t>(r.peak_allocated)));
  out << fmt::format("peak reserved: {}\n", with_human(static_cast<std::uint64_t>(r.peak_reserved)));
  out << fmt::format("peak requested: {}\n",
                     with_human(static_cast<std::uint64_t>(r.peak_requested)));
  out << fmt::format("device allocations: {}\n", r.device_allocations);
  if (r.allocated_at_peak > 0) {
    const TraceEvent& e = trace.events[r.peak_event_index];
    out << fmt::format(
        "at the peak (event {}, {}:{}): reserved - allocated = {}, largest free block {}\n",
        r.peak_event_index, trace.file, e.line,
        with_human(static_cast<std::uint64_t>(r.reserved_at_peak - r.allocated_at_peak)),
        with_human(r.largest_free_block_at_peak));
  }
  if (r.oom) {
    out << fmt::format("first OOM: event {} ({}:{}): {} on stream {:#x}: {}\n",
                       r.oom->event_index, trace.file, r.oom->line,
                       with_human(r.oom->requested_bytes), trace.streams.at(r.oom->stream),
                       r.oom->message);
  } else {
    out << "result: no out of memory\n";
  }
}

void render_compare(const Trace& trace, std::uint64_t granularity,
                    const std::vector<RunReport>& runs, std::ostream& out) {
  out << fmt::format("trace: {} ({}), {} events, granularity {}\n", trace.file,
                     format_name(trace.format), trace.events.size(), common::binary_size(granularity));
  std::size_t width = std::string("config").size();
  for (const RunReport& run : runs) width = std::max(width, config_name(run.config).size());
  const bool with_min = !runs.empty() && runs.front().min_capacity.has_value();
  out << fmt::format("{:<{}}  {:>14}  {:>14}  {:>14}  {:>14}  {:>14}  {:>8}  {:>12}{}\n", "config",
                     width, "capacity", "peak allocated", "peak reserved", "res-alloc@peak",
                     "largest free", "segments", "first OOM",
                     with_min ? fmt::format("  {:>14}", "min capacity") : "");
  for (const RunReport& run : runs) {
    const ReplayResult& r = run.result;
    out << fmt::format(
        "{:<{}}  {:>14}  {:>14}  {:>14}  {:>14}  {:>14}  {:>8}  {:>12}{}\n", config_name(run.config),
        width, run.capacity, r.peak_allocated, r.peak_reserved,
        r.reserved_at_peak - r.allocated_at_peak, r.largest_free_block_at_peak,
        r.device_allocations,
        r.oom ? fmt::format("event {}", r.oom->event_index) : std::string("none"),
        with_min ? fmt::format("  {:>14}", run.min_capacity->capacity) : "");
  }
}

void render_json(const Trace& trace, std::uint64_t granularity, const std::vector<RunReport>& runs,
                 bool compare, std::ostream& out) {
  using nlohmann::json;
  json doc;
  doc["trace"] = trace.file;
  doc["format"] = trace.format == TraceFormat::kRmmLog ? "rmm" : "pytorch";
  doc["device"] = trace.device;
  doc["events"] = trace.events.size();
  doc["allocations"] = trace.allocations;
  doc["frees"] = trace.frees;
  doc["unmatched_frees"] = trace.unmatched_frees;
  doc["failed_allocations"] = trace.failed_allocations;
  doc["ignored_entries"] = trace.ignored_entries;
  doc["streams"] = trace.streams;
  doc["granularity_bytes"] = granularity;
  json results = json::array();
  for (const RunReport& run : runs) {
    const ReplayResult& r = run.result;
    json one;
    one["config"] = run.config;
    one["capacity_bytes"] = run.capacity;
    one["min_capacity_bytes"] =
        run.min_capacity ? json(run.min_capacity->capacity) : json(nullptr);
    one["min_capacity_bisection_bytes"] =
        run.min_capacity ? json(run.min_capacity->bisection) : json(nullptr);
    one["min_capacity_replays"] = run.min_capacity ? json(run.min_capacity->replays) : json(nullptr);
    one["events_replayed"] = r.events_replayed;
    one["peak_allocated_bytes"] = r.peak_allocated;
    one["peak_reserved_bytes"] = r.peak_reserved;
    one["peak_requested_bytes"] = r.peak_requested;
    one["device_allocations"] = r.device_allocations;
    one["driver_peak_bytes"] = r.driver_peak_bytes;
    one["at_peak"] = {{"event_index", r.peak_event_index},
                      {"line", r.allocated_at_peak > 0 ? trace.events[r.peak_event_index].line : std::uint64_t{0}},
                      {"allocated_bytes", r.allocated_at_peak},
                      {"reserved_bytes", r.reserved_at_peak},
                      {"reserved_minus_allocated_bytes", r.reserved_at_peak - r.allocated_at_peak},
                      {"largest_free_block_bytes", r.largest_free_block_at_peak}};
    if (r.oom) {
      one["oom"] = {{"event_index", r.oom->event_index}, {"line", r.oom->line},
                    {"requested_bytes", r.oom->requested_bytes},
                    {"stream", trace.streams.at(r.oom->stream)},
                    {"message", r.oom->message}};
    } else {
      one["oom"] = nullptr;
    }
    results.push_back(std::move(one));
  }
  if (compare) {
    doc["results"] = std::move(results);
  } else {
    doc.update(results.at(0));
  }
  out << doc.dump(2) << '\n';
}

}  // namespace accel::replay
