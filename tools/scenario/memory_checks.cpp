// What the allocator steps check beyond calling the API (memory_steps.h): expected values of
// statistics and snapshots, checked and normalised when the file is read, and the
// `invariants: memory_stats` watch, which runs the allocator's own invariants
// (runtime/src/allocator/stats_invariants.h) after every step and follows the statistics'
// history across steps, resets included.
#include <charconv>
#include <map>
#include <memory>
#include <set>

#include "accel/accelerator.h"
#include "accel/memory.h"
#include "allocator/device_stats.h"
#include "allocator/stats_invariants.h"
#include "memory_steps.h"

namespace accel::scenario {

namespace {

using nlohmann::json;
namespace inv = detail::alloc::invariants;

std::map<std::string, ExpectedValueCheck>& value_checks() {
  static std::map<std::string, ExpectedValueCheck> checks;
  return checks;
}

}  // namespace

const ExpectedValueCheck* expected_value_check(const std::string& step) {
  const auto it = value_checks().find(step);
  return it == value_checks().end() ? nullptr : &it->second;
}

ExpectedValueRegistrar::ExpectedValueRegistrar(
    std::vector<std::pair<std::string, ExpectedValueCheck>> checks) {
  for (auto& [name, check] : checks) value_checks()[name] = std::move(check);
}

const std::vector<std::string>& invariant_names() {
  static const std::vector<std::string> names = {"memory_stats"};
  return names;
}

namespace {

// The invariants' view of the run: one history per device, the devices whose statistics a
// step reset since the last check, the devices that have had expandable segments.
struct Watch {
  // Note [Resets between invariant checks]: a reset changes what the invariants' history
  // may expect (peaks fall to current, accumulated counts to 0), so a reset step names its
  // device here and the next check applies the reset's own rules instead.
  std::set<int> reset_peak, reset_accumulated;
  std::map<int, std::unique_ptr<inv::StatHistory>> history;
  std::set<int> expandable;
};
Watch& watch() {
  static Watch w;
  return w;
}

// An integer as written ("-1", "4096") or a size with a unit ("1MiB").
json number_or_size(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (node.IsScalar()) {
    const std::string& s = node.Scalar();
    std::int64_t value = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && ptr == s.data() + s.size()) return value;
  }
  return reader.size(node, path);
}

// `expect: {value: {KEY: N, ...}}` of a statistics step: every key one of `keys`.
json expected_stats(const Reader& reader, const YAML::Node& node, const std::string& path,
                    const std::map<std::string, std::int64_t>& keys) {
  reader.require_map(node, path, "a map of statistic: value");
  std::vector<std::string> known;
  for (const auto& entry : keys) known.push_back(entry.first);
  json out = json::object();
  for (const auto& entry : node) {
    const std::string key = reader.text(entry.first, path, "a statistic name");
    if (!keys.count(key)) {
      reader.fail(entry.first, path, "a statistic (closest: " + closest_names(key, known) + ")",
                  key);
    }
    out[key] = number_or_size(reader, entry.second, Reader::join(path, key));
  }
  return out;
}

// `expect: {value: [segment, ...]}` of memory_snapshot: the keys a segment and a block have,
// sizes with units, states by name.
json expected_segments(const Reader& reader, const YAML::Node& node, const std::string& path) {
  if (!node.IsSequence()) reader.fail(node, path, "a list of segments", Reader::shown(node));
  static const std::set<std::string> kSizes = {"address",     "total_size",     "allocated_size",
                                               "active_size", "requested_size", "size"};
  json out = json::array();
  std::size_t i = 0;
  for (const auto& segment : node) {
    const std::string p = path + "[" + std::to_string(i++) + "]";
    reader.require_map(segment, p, "a segment: a map of its fields");
    reader.check_keys(segment, p,
                      {"device", "address", "total_size", "stream", "segment_type",
                       "allocated_size", "active_size", "requested_size", "is_expandable",
                       "segment_pool_id", "private_pool", "blocks"});
    json s = json::object();
    for (const auto& entry : segment) {
      const std::string key = entry.first.Scalar();
      const std::string q = Reader::join(p, key);
      if (key == "blocks") {
        if (!entry.second.IsSequence())
          reader.fail(entry.second, q, "a list of blocks", Reader::shown(entry.second));
        json blocks = json::array();
        std::size_t j = 0;
        for (const auto& block : entry.second) {
          const std::string bp = q + "[" + std::to_string(j++) + "]";
          reader.require_map(block, bp, "a block: a map of address, size, requested_size, state");
          reader.check_keys(block, bp, {"address", "size", "requested_size", "state"});
          json b = json::object();
          for (const auto& field : block) {
            const std::string name = field.first.Scalar();
            const std::string fp = Reader::join(bp, name);
            if (name == "state") {
              const std::string state = reader.text(field.second, fp, "a block state");
              if (state != "active_allocated" && state != "active_pending_free" &&
                  state != "inactive") {
                reader.fail(field.second, fp, "active_allocated, active_pending_free or inactive",
                            state);
              }
              b[name] = state;
            } else {
              b[name] = number_or_size(reader, field.second, fp);
            }
          }
          blocks.push_back(b);
        }
        s[key] = blocks;
      } else if (kSizes.count(key)) {
        s[key] = number_or_size(reader, entry.second, q);
      } else if (key == "segment_type") {
        const std::string type = reader.text(entry.second, q, "small or large");
        if (type != "small" && type != "large")
          reader.fail(entry.second, q, "small or large", type);
        s[key] = type;
      } else if (key == "is_expandable" || key == "private_pool") {
        s[key] = reader.boolean(entry.second, q);
      } else {
        s[key] = Reader::to_json(entry.second);
      }
    }
    out.push_back(s);
  }
  return out;
}

const ExpectedValueRegistrar value_registrar({
    {"memory_stats",
     [](const Reader& r, const YAML::Node& n, const std::string& p) {
       static const auto keys = detail::alloc::flatten(detail::alloc::DeviceStats{});
       return expected_stats(r, n, p, keys);
     }},
    {"memory_snapshot", expected_segments},
    {"get_per_process_memory_fraction",
     [](const Reader& r, const YAML::Node& n, const std::string& p) -> json {
       // YAML reads 0.25 as text; the step returns a number.
       const std::string text = r.scalar(n, p, "a fraction");
       try {
         return n.as<double>();
       } catch (const YAML::Exception&) {
         r.fail(n, p, "a number", text);
       }
     }},
});

}  // namespace

json expected_statistics(const Reader& reader, const YAML::Node& node, const std::string& path,
                         const std::map<std::string, std::int64_t>& keys) {
  return expected_stats(reader, node, path, keys);
}

void note_stats_reset(int device, bool peak) {
  (peak ? watch().reset_peak : watch().reset_accumulated).insert(device);
}

std::vector<std::string> check_memory_invariants() {
  std::vector<std::string> out;
  // Before initialisation there is nothing to read; in a forked child of an initialised
  // parent every memory call is a ForkError (is_allocator_initialized() is false there).
  if (!is_allocator_initialized()) return out;
  Watch& o = watch();
  const MemorySnapshot snapshot = memory_snapshot();
  const bool setting_expandable =
      get_allocator_settings().find("expandable_segments:True") != std::string::npos;
  for (int d = 0; d < device_count(); ++d) {
    const inv::FlatStats now = memory_stats(d);
    bool has_expandable = setting_expandable;
    for (const SegmentSnapshot& s : snapshot.segments) {
      if (s.device == d && s.is_expandable) has_expandable = true;
    }
    if (has_expandable) o.expandable.insert(d);
    const inv::LayoutRules rules{o.expandable.count(d) > 0, d};
    inv::Violations found = inv::check_stats(now, rules);
    for (std::string& v : inv::check_snapshot(now, snapshot.segments, rules)) found.push_back(v);
    std::unique_ptr<inv::StatHistory>& history = o.history[d];
    inv::Violations past;
    if (!history) {
      history = std::make_unique<inv::StatHistory>(now);
    } else if (o.reset_accumulated.count(d)) {
      past = history->after_reset_accumulated(now);
    } else if (o.reset_peak.count(d)) {
      past = history->after_reset_peak(now);
    } else {
      past = history->observe(now);
    }
    for (std::string& v : past) found.push_back(v);
    for (const std::string& v : found) out.push_back("device " + std::to_string(d) + ": " + v);
  }
  o.reset_peak.clear();
  o.reset_accumulated.clear();
  return out;
}

AllocationOnStream allocation_on_stream(const StepArgs& a, const char* allocation_kind) {
  a.reader.require_map(a.node, a.path, "{alloc, stream}");
  a.reader.check_keys(a.node, a.path, {"alloc", "stream"});
  if (!a.node["alloc"] || !a.node["stream"]) {
    a.reader.fail(a.node, a.path, "alloc and stream (both required)", "{...}");
  }
  return {object_name(a, a.node["alloc"], Reader::join(a.path, "alloc"), allocation_kind, false),
          object_name(a, a.node["stream"], Reader::join(a.path, "stream"), "stream", false)};
}

}  // namespace accel::scenario
