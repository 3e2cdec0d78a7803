// PyTorch memory snapshots (JSON): {"segments": [...], "device_traces": [[entry, ...], ...],
// ...} where an entry is {"action": ..., "addr": ..., "size": ..., "stream": ..., ...}.
//
// Which entries are the user's calls: "alloc" allocates; "free_requested" frees (the user's
// free; the allocator may complete it later, after the events of record_stream, which the
// replayed allocator decides again by itself); "free_completed" frees only when no
// free_requested came first (older snapshots, and frees without pending events, may log
// only the completion); "free" (the name before the split) frees. segment_*, snapshot and
// oom entries are the recorded allocator's own decisions, which the replay recomputes:
// skipped and counted. Anything else is an error naming the action. Frees of addresses
// that are not live: Note [Frees of unknown addresses] (trace_builder.h).
//
// Note [Streaming the snapshot]
// The snapshot is read with the streaming JSON reader (json_reader.h), one handler call per
// token, so reading is linear in the file and keeps nothing but the events: "segments",
// "frames" and every other device's trace are skipped token by token, and an entry is
// turned into an event as soon as its '}' is read. Lines come from the source, which counts
// them as the reader consumes bytes: at an entry's '{' the last byte consumed is that '{'.
// Every object the reader interprets (the snapshot itself and each entry of the device read)
// must name each key once: a duplicate is an error, not a silent "last one wins".
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "json_reader.h"
#include "trace.h"
#include "trace_builder.h"
#include "trace_source.h"

namespace accel::replay {
namespace {

using nlohmann::json;

// One value as the reader saw it: scalars kept, containers only named.
struct Value {
  enum class Kind : std::uint8_t {
    kMissing, kNull, kBoolean, kInteger, kUnsigned, kFloat, kString, kArray, kObject
  };
  Kind kind = Kind::kMissing;
  bool boolean = false;
  std::int64_t integer = 0;
  std::uint64_t unsigned_value = 0;
  double floating = 0;
  std::string text;
};

Value of_kind(Value::Kind kind) {
  Value value;
  value.kind = kind;
  return value;
}

// The value as JSON, cut to 40 characters, for messages.
std::string shown(const Value& value) {
  std::string text;
  switch (value.kind) {
    case Value::Kind::kMissing: text = "(missing)"; break;
    case Value::Kind::kNull: text = "null"; break;
    case Value::Kind::kBoolean: text = value.boolean ? "true" : "false"; break;
    case Value::Kind::kInteger: text = std::to_string(value.integer); break;
    case Value::Kind::kUnsigned: text = std::to_string(value.unsigned_value); break;
    case Value::Kind::kFloat: text = json(value.floating).dump(); break;
    case Value::Kind::kString: text = json(value.text).dump(); break;
    case Value::Kind::kArray: text = "[...]"; break;
    case Value::Kind::kObject: text = "{...}"; break;
  }
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// The entry keys the reader knows; any other key is skipped (but still named once only).
constexpr std::array<std::string_view, 9> kEntryKeys = {
    "action", "addr", "size", "stream", "frames", "time_us", "device_free", "compile_context",
    "user_metadata"};
constexpr std::size_t kKept = 4;  // action, addr, size, stream: the values kept

bool is_allocator_decision(std::string_view action) {
  return action == "segment_alloc" || action == "segment_free" || action == "segment_map" ||
         action == "segment_unmap" || action == "snapshot" || action == "oom";
}

// The SAX handler: a small state machine over where in the snapshot the parser is.
class SnapshotHandler final : public JsonHandler {
 public:
  SnapshotHandler(TraceSource& source, Trace& trace, int device)
      : source_(source),
        trace_(trace),
        builder_(trace, detail::TraceBuilder::History::kWindow),
        device_(device) {}

  // After the parse: the checks that need the whole snapshot.
  void finish() const {
    if (!seen_traces_) {
      throw TraceError(fmt::format(
          "{}: no device_traces (the snapshot was taken without memory history; record it "
          "with torch.cuda.memory._record_memory_history())",
          trace_.file));
    }
    if (device_ < 0 || static_cast<std::uint64_t>(device_) >= devices_) {
      throw TraceError(fmt::format("{}: --device {}: the snapshot has device_traces for {} device{}",
                                   trace_.file, device_, devices_, devices_ == 1 ? "" : "s"));
    }
  }

  // ---- JsonHandler ----
  void null_value() override { scalar(of_kind(Value::Kind::kNull)); }
  void boolean(bool b) override {
    if (skip_ > 0) return;
    Value v = of_kind(Value::Kind::kBoolean);
    v.boolean = b;
    scalar(std::move(v));
  }
  void integer(std::int64_t n) override {
    if (skip_ > 0) return;
    Value v = of_kind(Value::Kind::kInteger);
    v.integer = n;
    scalar(std::move(v));
  }
  void unsigned_integer(std::uint64_t n) override {
    if (skip_ > 0) return;
    if (where_ == Where::kEntryValue && kept_ < kKept) {  // the common case, without a copy
      Value& v = fields_[kept_];
      v.kind = Value::Kind::kUnsigned;
      v.unsigned_value = n;
      where_ = Where::kEntry;
      return;
    }
    Value v = of_kind(Value::Kind::kUnsigned);
    v.unsigned_value = n;
    scalar(std::move(v));
  }
  void floating(double n) override {
    if (skip_ > 0) return;
    Value v = of_kind(Value::Kind::kFloat);
    v.floating = n;
    scalar(std::move(v));
  }
  void string(std::string_view s) override {
    if (skip_ > 0) return;
    if (where_ == Where::kEntryValue && kept_ < kKept) {
      Value& v = fields_[kept_];
      v.kind = Value::Kind::kString;
      v.text.assign(s);
      where_ = Where::kEntry;
      return;
    }
    Value v = of_kind(Value::Kind::kString);
    v.text = s;
    scalar(std::move(v));
  }
  void start_object() override { start(Value::Kind::kObject); }
  void start_array() override { start(Value::Kind::kArray); }
  void end_object() override { end(); }
  void end_array() override { end(); }
  void key(std::string_view k) override {
    if (skip_ > 0) return;
    if (where_ == Where::kTop) {
      if (!top_keys_.emplace(k).second) {
        detail::fail_at(trace_.file, source_.last_line(),
                        fmt::format("{}: duplicate key (the snapshot names each key once)", k));
      }
      traces_key_ = k == "device_traces";
      where_ = Where::kTopValue;
    } else {  // Where::kEntry
      entry_key(k);
      where_ = Where::kEntryValue;
    }
  }

 private:
  enum class Where {
    kRoot,        // before the snapshot object
    kTop,         // in the snapshot object: a key or its end
    kTopValue,    // the value of a key of the snapshot object
    kDevices,     // in device_traces: one array per device
    kEntries,     // in device_traces[device_]: entries
    kEntry,       // in an entry: a key or its end
    kEntryValue,  // the value of a key of an entry
    kDone,
  };

  std::string entry_path() const {
    return fmt::format("device_traces[{}][{}]", device_, entry_index_);
  }
  [[noreturn]] void fail_field(std::string_view field, const std::string& message) const {
    detail::fail_at(trace_.file, entry_line_,
                    fmt::format("{}{}{}: {}", entry_path(), field.empty() ? "" : ".", field,
                                message));
  }

  // A key of an entry: which value to keep, and whether it came before.
  void entry_key(std::string_view k) {
    const auto known = std::find(kEntryKeys.begin(), kEntryKeys.end(), k);
    bool duplicate = false;
    if (known != kEntryKeys.end()) {
      const auto index = static_cast<std::size_t>(known - kEntryKeys.begin());
      duplicate = (seen_keys_ >> index & 1u) != 0;
      seen_keys_ |= 1u << index;
      kept_ = index;
    } else {
      duplicate = !other_keys_.emplace(k).second;
      kept_ = kEntryKeys.size();
    }
    if (duplicate) {
      detail::fail_at(trace_.file, source_.last_line(),
                      fmt::format("{}.{}: duplicate key (an entry names each key once)",
                                  entry_path(), k));
    }
  }

  // A whole value just ended in the current place: move on.
  void value_done() {
    if (where_ == Where::kTopValue) where_ = Where::kTop;
    else if (where_ == Where::kDevices) ++device_index_;
    else if (where_ == Where::kEntryValue) where_ = Where::kEntry;
  }

  void scalar(Value value) {
    if (skip_ > 0) return;
    begin_value(std::move(value));
  }

  void start(Value::Kind kind) {
    if (skip_ > 0) {
      ++skip_;
      return;
    }
    begin_value(of_kind(kind));
  }

  void end() {
    if (skip_ > 0) {
      if (--skip_ == 0) value_done();
      return;
    }
    switch (where_) {
      case Where::kTop: where_ = Where::kDone; break;
      case Where::kDevices:
        devices_ = device_index_;
        seen_traces_ = true;
        where_ = Where::kTop;
        break;
      case Where::kEntries:
        ++device_index_;
        where_ = Where::kDevices;
        break;
      case Where::kEntry:
        replay_entry();
        ++entry_index_;
        where_ = Where::kEntries;
        break;
      default: break;  // the reader pairs every end with its start
    }
  }

  // A value begins (a scalar, or a container's start) where the parser is now.
  void begin_value(Value value) {
    const bool container = value.kind == Value::Kind::kArray || value.kind == Value::Kind::kObject;
    switch (where_) {
      case Where::kRoot:
        if (value.kind != Value::Kind::kObject) {
          throw TraceError(fmt::format("{}: expected a JSON object, got '{}'", trace_.file,
                                       shown(value)));
        }
        where_ = Where::kTop;
        return;
      case Where::kTopValue:
        if (!traces_key_) break;
        if (value.kind != Value::Kind::kArray) {
          detail::fail_at(trace_.file, source_.last_line(),
                          fmt::format("device_traces: expected an array, got '{}'", shown(value)));
        }
        where_ = Where::kDevices;
        device_index_ = 0;
        return;
      case Where::kDevices:
        if (device_index_ != static_cast<std::uint64_t>(device_)) break;
        if (value.kind != Value::Kind::kArray) {
          detail::fail_at(trace_.file, source_.last_line(),
                          fmt::format("device_traces[{}]: expected an array, got '{}'", device_,
                                      shown(value)));
        }
        where_ = Where::kEntries;
        entry_index_ = 0;
        return;
      case Where::kEntries:
        entry_line_ = source_.last_line();
        if (value.kind != Value::Kind::kObject) {
          fail_field("", fmt::format("expected an object, got '{}'", shown(value)));
        }
        for (std::size_t i = 0; i < kKept; ++i) fields_[i].kind = Value::Kind::kMissing;
        seen_keys_ = 0;
        if (!other_keys_.empty()) other_keys_.clear();
        where_ = Where::kEntry;
        return;
      case Where::kEntryValue:
        if (kept_ < kKept) fields_[kept_] = std::move(value);
        break;
      default: break;
    }
    // Not interpreted here: skip it whole.
    if (container) {
      skip_ = 1;
    } else {
      value_done();
    }
  }

  std::uint64_t unsigned_field(std::size_t index) const {
    const Value& v = fields_[index];
    if (v.kind == Value::Kind::kMissing) fail_field(kEntryKeys[index], "missing");
    if (v.kind != Value::Kind::kUnsigned) {
      fail_field(kEntryKeys[index],
                 fmt::format("expected a non-negative integer, got '{}'", shown(v)));
    }
    return v.unsigned_value;
  }
  std::int64_t integer_field(std::size_t index) const {
    const Value& v = fields_[index];
    if (v.kind == Value::Kind::kMissing) fail_field(kEntryKeys[index], "missing");
    if (v.kind == Value::Kind::kUnsigned) return static_cast<std::int64_t>(v.unsigned_value);
    if (v.kind != Value::Kind::kInteger) {
      fail_field(kEntryKeys[index], fmt::format("expected an integer, got '{}'", shown(v)));
    }
    return v.integer;
  }

  // The entry just read, as a trace event (or skipped and counted, or an error).
  void replay_entry() {
    const Value& action = fields_[0];
    if (action.kind == Value::Kind::kMissing) fail_field("action", "missing");
    if (action.kind != Value::Kind::kString) {
      fail_field("action", fmt::format("expected a string, got '{}'", shown(action)));
    }
    const std::string& name = action.text;
    if (is_allocator_decision(name)) {
      ++trace_.ignored_entries;
    } else if (name == "alloc") {
      const std::uint64_t addr = unsigned_field(1);
      const std::uint64_t size = unsigned_field(2);
      builder_.allocate(addr, size, integer_field(3), entry_line_);
    } else if (name == "free_requested" || name == "free") {
      builder_.free(unsigned_field(1), entry_line_, name, /*completes=*/name == "free");
    } else if (name == "free_completed") {
      builder_.free_completed(unsigned_field(1), entry_line_);
    } else {
      fail_field("action", fmt::format("unknown action '{}' (expected alloc, free_requested, "
                                       "free_completed, free, segment_alloc, segment_free, "
                                       "segment_map, segment_unmap, snapshot or oom)",
                                       name));
    }
  }

  TraceSource& source_;
  Trace& trace_;
  detail::TraceBuilder builder_;
  int device_;

  Where where_ = Where::kRoot;
  std::uint64_t skip_ = 0;  // depth inside a value being skipped
  std::unordered_set<std::string> top_keys_;
  bool traces_key_ = false;  // the current key of the snapshot object is device_traces
  bool seen_traces_ = false;
  std::uint64_t devices_ = 0;       // device_traces entries, once read
  std::uint64_t device_index_ = 0;  // the device_traces entry being read
  std::uint64_t entry_index_ = 0;
  std::uint64_t entry_line_ = 0;
  std::array<Value, kKept> fields_;
  std::size_t kept_ = kKept;     // which of fields_ the current value goes to (kKept: none)
  std::uint32_t seen_keys_ = 0;  // bit i: kEntryKeys[i] seen in this entry
  std::unordered_set<std::string> other_keys_;
};

}  // namespace

namespace detail {

Trace read_snapshot(TraceSource& source, int device) {
  Trace trace;
  trace.file = source.name();
  trace.format = TraceFormat::kPyTorchSnapshot;
  trace.device = device;
  SnapshotHandler handler(source, trace, device);
  read_json(source, handler);
  handler.finish();
  return trace;
}

}  // namespace detail
}  // namespace accel::replay
