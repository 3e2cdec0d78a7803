// PyTorch memory snapshots (JSON): {"segments": [...], "device_traces": [[entry, ...], ...]}
// where an entry is {"action": ..., "addr": ..., "size": ..., "stream": ..., "frames": ...}.
//
// Which entries are the user's calls: "alloc" allocates; "free_requested" frees (the user's
// free; the allocator may complete it later, after the events of record_stream, which the
// replayed allocator decides again by itself); "free_completed" frees only when no
// free_requested came first (older snapshots, and frees without pending events, may log
// only the completion); "free" (the name before the split) frees. segment_*, snapshot and
// oom entries are the recorded allocator's own decisions, which the replay recomputes:
// skipped and counted. Anything else is an error naming the action.
//
// Note [Line numbers in JSON]
// nlohmann's DOM keeps no positions, so the text is fed through an iterator that remembers
// the last character the parser read; the parse callback, called at each entry's '{',
// turns that position into a line. "segments" and "frames" are discarded while parsing
// (the callback returns false), so a large snapshot costs little memory.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "trace.h"
#include "trace_builder.h"

namespace accel::replay {
namespace {

using nlohmann::json;

// Line numbers of byte offsets (1-based lines).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') newlines_.push_back(i);
    }
  }
  std::uint32_t line_of(std::size_t offset) const {
    return static_cast<std::uint32_t>(
        std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin() + 1);
  }

 private:
  std::vector<std::size_t> newlines_;
};

// An input iterator over the text that records the last position read (Note [Line numbers
// in JSON]).
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator() = default;
  TrackingIterator(const char* at, const char** last_read) : at_(at), last_read_(last_read) {}
  reference operator*() const {
    *last_read_ = at_;
    return *at_;
  }
  TrackingIterator& operator++() {
    ++at_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++at_;
    return before;
  }
  bool operator==(const TrackingIterator& other) const { return at_ == other.at_; }
  bool operator!=(const TrackingIterator& other) const { return at_ != other.at_; }

 private:
  const char* at_ = nullptr;
  const char** last_read_ = nullptr;
};

// The text after nlohmann's "parse error at line L, column C: ".
std::string parse_error_detail(const std::string& what) {
  const std::size_t column = what.find("column ");
  if (column != std::string::npos) {
    const std::size_t colon = what.find(": ", column);
    if (colon != std::string::npos) return what.substr(colon + 2);
  }
  const std::size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

std::string shown(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

class EntryReader {
 public:
  EntryReader(const std::string& file, int device, std::size_t index, std::uint32_t line,
              const json& entry)
      : file_(file), device_(device), index_(index), line_(line), entry_(entry) {}

  [[noreturn]] void fail(std::string_view field, const std::string& message) const {
    detail::fail_at(file_, line_,
                    fmt::format("device_traces[{}][{}]{}{}: {}", device_, index_,
                                field.empty() ? "" : ".", field, message));
  }

  const json& field(const char* name) const {
    const auto it = entry_.find(name);
    if (it == entry_.end()) fail(name, "missing");
    return *it;
  }
  std::uint64_t unsigned_field(const char* name) const {
    const json& value = field(name);
    if (!value.is_number_unsigned()) {
      fail(name, fmt::format("expected a non-negative integer, got '{}'", shown(value)));
    }
    return value.get<std::uint64_t>();
  }
  std::int64_t integer_field(const char* name) const {
    const json& value = field(name);
    if (!value.is_number_integer()) {
      fail(name, fmt::format("expected an integer, got '{}'", shown(value)));
    }
    return value.is_number_unsigned() ? static_cast<std::int64_t>(value.get<std::uint64_t>())
                                      : value.get<std::int64_t>();
  }
  std::string action() const {
    if (!entry_.is_object()) fail("", fmt::format("expected an object, got '{}'", shown(entry_)));
    const json& value = field("action");
    if (!value.is_string()) fail("action", fmt::format("expected a string, got '{}'", shown(value)));
    return value.get<std::string>();
  }

 private:
  const std::string& file_;
  int device_;
  std::size_t index_;
  std::uint32_t line_;
  const json& entry_;
};

bool is_allocator_decision(const std::string& action) {
  return action == "segment_alloc" || action == "segment_free" || action == "segment_map" ||
         action == "segment_unmap" || action == "snapshot" || action == "oom";
}

}  // namespace

Trace read_snapshot_text(std::string_view text, const std::string& file, int device) {
  Trace trace;
  trace.file = file;
  trace.format = TraceFormat::kPyTorchSnapshot;
  trace.device = device;
  const LineIndex lines(text);

  const char* last_read = text.data();
  std::string top_key;
  int device_arrays = 0;  // device_traces entries seen so far
  std::vector<std::uint32_t> entry_lines;
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event,
                                               json& parsed) {
    if (event == json::parse_event_t::key) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (depth == 1) {
        top_key = key;
        return key == "device_traces";  // "segments" and the rest: discarded
      }
      return !(depth == 4 && key == "frames");
    }
    if (top_key != "device_traces") return true;
    if (event == json::parse_event_t::array_start && depth == 2) ++device_arrays;
    if (event == json::parse_event_t::object_start && depth == 3 &&
        device_arrays == device + 1) {
      entry_lines.push_back(lines.line_of(static_cast<std::size_t>(last_read - text.data())));
    }
    return true;
  };

  json root;
  try {
    root = json::parse(TrackingIterator(text.data(), &last_read),
                       TrackingIterator(text.data() + text.size(), &last_read), callback);
  } catch (const json::parse_error& e) {
    // e.byte counts the end of input as a character: at most the text's size.
    const std::size_t byte = std::min(e.byte, text.size());
    detail::fail_at(file, lines.line_of(byte == 0 ? 0 : byte - 1),
                    fmt::format("malformed JSON at byte {}: {}", byte,
                                parse_error_detail(e.what())));
  }
  if (!root.is_object()) throw TraceError(fmt::format("{}: expected a JSON object", file));
  const auto traces = root.find("device_traces");
  if (traces == root.end()) {
    throw TraceError(fmt::format(
        "{}: no device_traces (the snapshot was taken without memory history; record it "
        "with torch.cuda.memory._record_memory_history())",
        file));
  }
  if (!traces->is_array()) {
    throw TraceError(fmt::format("{}: device_traces: expected an array, got '{}'", file,
                                 shown(*traces)));
  }
  if (device < 0 || static_cast<std::size_t>(device) >= traces->size()) {
    throw TraceError(fmt::format("{}: --device {}: the snapshot has device_traces for {} device{}",
                                 file, device, traces->size(), traces->size() == 1 ? "" : "s"));
  }
  const json& entries = (*traces)[static_cast<std::size_t>(device)];
  if (!entries.is_array()) {
    throw TraceError(fmt::format("{}: device_traces[{}]: expected an array, got '{}'", file,
                                 device, shown(entries)));
  }

  detail::TraceBuilder builder(trace);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    // Non-object entries have no recorded line: the array's own line is the best there is.
    const std::uint32_t line =
        i < entry_lines.size() ? entry_lines[i] : (entry_lines.empty() ? 1 : entry_lines.back());
    const EntryReader entry(file, device, i, line, entries[i]);
    const std::string action = entry.action();
    if (is_allocator_decision(action)) {
      ++trace.ignored_entries;
      continue;
    }
    if (action == "alloc") {
      const std::uint64_t addr = entry.unsigned_field("addr");
      const std::uint64_t size = entry.unsigned_field("size");
      builder.allocate(addr, size, entry.integer_field("stream"), line);
    } else if (action == "free_requested" || action == "free") {
      builder.free(entry.unsigned_field("addr"), line);
    } else if (action == "free_completed") {
      const std::uint64_t addr = entry.unsigned_field("addr");
      if (builder.live(addr)) {
        builder.free(addr, line);
      }  // else its free_requested freed it already (or it predates the trace: not counted twice)
    } else {
      entry.fail("action",
                 fmt::format("unknown action '{}' (expected alloc, free_requested, "
                             "free_completed, free, segment_alloc, segment_free, segment_map, "
                             "segment_unmap, snapshot or oom)",
                             action));
    }
  }
  return trace;
}

}  // namespace accel::replay
