// Note [What a snapshot says of the statistics] (snapshot_summary.h) is the contract here.
#include "snapshot_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "accel_common/bounded_file.h"
#include "allocator/stats_invariants.h"
#include "json_reader.h"
#include "trace.h"
#include "trace_builder.h"

namespace accel::replay {
namespace {

using nlohmann::json;
namespace inv = accel::detail::alloc::invariants;

constexpr std::uint64_t kSmallBlock = std::uint64_t{1} << 20;    // kSmallSize
constexpr std::uint64_t kSmallSegment = std::uint64_t{2} << 20;  // kSmallBuffer

// Builds one JSON value from reader events; done() once its outermost value has ended.
class ValueBuilder {
 public:
  void scalar(json value) {
    if (stack_.empty()) {
      root_ = std::move(value);
      done_ = true;
      return;
    }
    place(std::move(value));
  }
  void start(json container) {
    if (stack_.empty()) {
      root_ = std::move(container);
      stack_.push_back(&root_);
      return;
    }
    stack_.push_back(place(std::move(container)));
  }
  void end() {
    stack_.pop_back();
    if (stack_.empty()) done_ = true;
  }
  void key(std::string_view k) { key_.assign(k); }
  bool done() const { return done_; }
  json take() {
    done_ = false;
    return std::move(root_);
  }

 private:
  json* place(json value) {
    json& parent = *stack_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(value));
      return &parent.back();
    }
    json& slot = parent[key_];
    slot = std::move(value);
    return &slot;
  }
  json root_;
  std::vector<json*> stack_;
  std::string key_;
  bool done_ = false;
};

// One statistic's window walk: the running change and its extremes.
struct Walk {
  std::int64_t running = 0, highest = 0, allocated = 0, freed = 0;
  void change(std::int64_t delta) {
    running += delta;
    highest = std::max(highest, running);
    (delta > 0 ? allocated : freed) += delta > 0 ? delta : -delta;
  }
};

// The reader's handler: segments and allocator_settings and device_traces[device] are built
// value by value; everything else is skipped.
class SummaryHandler final : public JsonHandler {
 public:
  SummaryHandler(TraceSource& source, int device) : source_(source), device_(device) {}

  // The statistics, once the whole snapshot has been read.
  SnapshotSummary finish() {
    if (traces_read_ && device_index_ <= static_cast<std::uint64_t>(device_)) {
      throw TraceError(fmt::format("{}: --device {}: the snapshot has device_traces for {} device{}",
                                   source_.name(), device_, device_index_,
                                   device_index_ == 1 ? "" : "s"));
    }
    SnapshotSummary out;
    out.segments = device_segments_;
    out.entries = entries_;
    out.has_traces = traces_seen_;
    const inv::FlatStats current = inv::current_from_segments(segments_, device_);
    for (const std::string& prefix : inv::stat_prefixes()) {
      if (prefix.starts_with("oversize_")) continue;
      const std::int64_t now = current.at(prefix + ".current");
      const Walk& w = walks_[prefix];
      // The state before the window is now - running; the peak is that plus the highest
      // running change, and at least now (an inconsistent window cannot lower it).
      out.stats[prefix + ".current"] = now;
      out.stats[prefix + ".peak"] = std::max(now, now - w.running + w.highest);
      out.stats[prefix + ".allocated"] = w.allocated;
      out.stats[prefix + ".freed"] = w.freed;
    }
    std::int64_t oversize_allocations = 0, oversize_segments = 0;
    for (const SegmentSnapshot& seg : segments_) {
      if (seg.device != device_ || !max_split_size_) continue;
      if (!seg.is_expandable && seg.total_size >= *max_split_size_) ++oversize_segments;
      for (const BlockSnapshot& b : seg.blocks) {
        if (b.state == "active_allocated" && b.size >= *max_split_size_) ++oversize_allocations;
      }
    }
    const std::pair<const char*, std::int64_t> oversize[] = {
        {"oversize_allocations", oversize_allocations}, {"oversize_segments", oversize_segments}};
    for (const auto& [prefix, now] : oversize) {
      out.stats[std::string(prefix) + ".current"] = now;
      out.stats[std::string(prefix) + ".peak"] = now;
      out.stats[std::string(prefix) + ".allocated"] = 0;
      out.stats[std::string(prefix) + ".freed"] = 0;
    }
    out.stats["max_split_size"] =
        max_split_size_ ? static_cast<std::int64_t>(*max_split_size_) : -1;
    out.stats["num_alloc_retries"] = 0;
    out.stats["num_device_alloc"] = walks_["segment.all"].allocated;
    out.stats["num_device_free"] = walks_["segment.all"].freed;
    out.stats["num_ooms"] = ooms_;
    out.stats["num_sync_all_streams"] = 0;
    return out;
  }

  // Values inside a skipped one (frames, other devices' traces) are never built.
  void null_value() override {
    if (skip_ == 0) scalar(json(nullptr));
  }
  void boolean(bool b) override {
    if (skip_ == 0) scalar(json(b));
  }
  void integer(std::int64_t n) override {
    if (skip_ == 0) scalar(json(n));
  }
  void unsigned_integer(std::uint64_t n) override {
    if (skip_ == 0) scalar(json(n));
  }
  void floating(double n) override {
    if (skip_ == 0) scalar(json(n));
  }
  void string(std::string_view s) override {
    if (skip_ == 0) scalar(json(std::string(s)));
  }
  void key(std::string_view k) override {
    if (skip_ > 0) return;
    if (building_) {
      builder_.key(k);
    } else if (where_ == Where::kTop) {
      top_key_.assign(k);
      where_ = Where::kTopValue;
    }
  }
  void start_object() override { start(json::object()); }
  void start_array() override { start(json::array()); }
  void end_object() override { end(); }
  void end_array() override { end(); }

 private:
  enum class Where { kRoot, kTop, kTopValue, kSegments, kDevices, kEntries, kDone };

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    detail::fail_at(source_.name(), line_, path + ": " + what);
  }

  void scalar(json value) {
    if (building_) {
      builder_.scalar(std::move(value));
      if (builder_.done()) built();
      return;
    }
    if (where_ == Where::kRoot) {
      throw TraceError(fmt::format("{}: expected a JSON object, got '{}'", source_.name(),
                                   value.dump()));
    }
    if (where_ == Where::kTopValue) {
      if (top_key_ == "segments" || top_key_ == "device_traces") {
        line_ = source_.last_line();
        fail(top_key_, "expected an array, got '" + value.dump() + "'");
      }
      where_ = Where::kTop;
      return;
    }
    if (where_ == Where::kDevices) {
      ++device_index_;
      return;
    }
    line_ = source_.last_line();
    fail(where_ == Where::kSegments ? fmt::format("segments[{}]", segment_index_)
                                    : fmt::format("device_traces[{}][{}]", device_, entries_),
         "expected an object, got '" + value.dump() + "'");
  }

  void start(json container) {
    if (skip_ > 0) {
      ++skip_;
      return;
    }
    if (building_) {
      builder_.start(std::move(container));
      return;
    }
    const bool array = container.is_array();
    switch (where_) {
      case Where::kRoot:
        if (array) throw TraceError(fmt::format("{}: expected a JSON object, got '[...]'", source_.name()));
        where_ = Where::kTop;
        return;
      case Where::kTopValue:
        if (top_key_ == "segments" || top_key_ == "device_traces") {
          if (!array) {
            line_ = source_.last_line();
            fail(top_key_, "expected an array, got '{...}'");
          }
          where_ = top_key_ == "segments" ? Where::kSegments : Where::kDevices;
          if (where_ == Where::kDevices) traces_read_ = true;
          return;
        }
        if (top_key_ == "allocator_settings" && !array) break;  // built
        skip_ = 1;
        return;
      case Where::kDevices:
        if (device_index_ != static_cast<std::uint64_t>(device_) || !array) {
          skip_ = 1;
          return;
        }
        traces_seen_ = true;
        where_ = Where::kEntries;
        return;
      case Where::kSegments:
      case Where::kEntries:
        if (array) {
          line_ = source_.last_line();
          fail(where_ == Where::kSegments ? fmt::format("segments[{}]", segment_index_)
                                          : fmt::format("device_traces[{}][{}]", device_, entries_),
               "expected an object, got '[...]'");
        }
        break;  // built
      default: break;
    }
    line_ = source_.last_line();
    building_ = true;
    builder_.start(std::move(container));
  }

  void end() {
    if (skip_ > 0) {
      if (--skip_ == 0) skipped();
      return;
    }
    if (building_) {
      builder_.end();
      if (builder_.done()) built();
      return;
    }
    switch (where_) {
      case Where::kTop: where_ = Where::kDone; break;
      case Where::kSegments: where_ = Where::kTop; break;
      case Where::kDevices: where_ = Where::kTop; break;
      case Where::kEntries:
        ++device_index_;
        where_ = Where::kDevices;
        break;
      default: break;
    }
  }

  void skipped() {
    if (where_ == Where::kTopValue) where_ = Where::kTop;
    else if (where_ == Where::kDevices) ++device_index_;
  }

  void built() {
    building_ = false;
    const json value = builder_.take();
    switch (where_) {
      case Where::kTopValue:  // allocator_settings
        settings(value);
        where_ = Where::kTop;
        break;
      case Where::kSegments:
        segment(value, fmt::format("segments[{}]", segment_index_));
        ++segment_index_;
        break;
      case Where::kEntries:
        entry(value, fmt::format("device_traces[{}][{}]", device_, entries_));
        ++entries_;
        break;
      default: break;
    }
  }

  // A required field: an unsigned integer, a string or a boolean.
  std::uint64_t count(const json& object, const std::string& path, const char* name) const {
    const auto it = object.find(name);
    if (it == object.end()) fail(path + "." + name, "missing");
    if (!it->is_number_unsigned()) {
      fail(path + "." + name, "expected a non-negative integer, got '" + it->dump() + "'");
    }
    return it->get<std::uint64_t>();
  }
  std::string text(const json& object, const std::string& path, const char* name) const {
    const auto it = object.find(name);
    if (it == object.end()) fail(path + "." + name, "missing");
    if (!it->is_string()) fail(path + "." + name, "expected a string, got '" + it->dump() + "'");
    return it->get<std::string>();
  }

  void settings(const json& value) {
    const auto it = value.find("max_split_size");
    if (it == value.end() || !it->is_number_unsigned()) return;
    const auto limit = it->get<std::uint64_t>();
    // PyTorch writes SIZE_MAX for "no limit".
    if (limit < (std::uint64_t{1} << 63)) max_split_size_ = limit;
  }

  void segment(const json& value, const std::string& path) {
    const auto device_field = value.find("device");
    if (device_field == value.end()) fail(path + ".device", "missing");
    if (!device_field->is_number_integer()) {
      fail(path + ".device", "expected an integer, got '" + device_field->dump() + "'");
    }
    if (device_field->get<std::int64_t>() != device_) return;
    SegmentSnapshot seg;
    seg.device = device_;
    seg.address = count(value, path, "address");
    seg.total_size = count(value, path, "total_size");
    seg.segment_type = text(value, path, "segment_type");
    if (seg.segment_type != "small" && seg.segment_type != "large") {
      fail(path + ".segment_type", "expected \"small\" or \"large\", got '" + seg.segment_type + "'");
    }
    const auto expandable = value.find("is_expandable");
    seg.is_expandable = expandable != value.end() && expandable->is_boolean() && expandable->get<bool>();
    const auto blocks = value.find("blocks");
    if (blocks == value.end()) fail(path + ".blocks", "missing");
    if (!blocks->is_array()) fail(path + ".blocks", "expected an array, got '" + blocks->dump() + "'");
    std::size_t i = 0;
    for (const json& b : *blocks) {
      const std::string block_path = fmt::format("{}.blocks[{}]", path, i++);
      if (!b.is_object()) fail(block_path, "expected an object, got '" + b.dump() + "'");
      BlockSnapshot block;
      block.address = count(b, block_path, "address");
      block.size = count(b, block_path, "size");
      block.requested_size = b.contains("requested_size") ? count(b, block_path, "requested_size") : 0;
      block.state = text(b, block_path, "state");
      if (block.state != "active_allocated" && block.state != "active_pending_free" &&
          block.state != "inactive") {
        fail(block_path + ".state", "expected active_allocated, active_pending_free or inactive, "
                                    "got '" + block.state + "'");
      }
      seg.blocks.push_back(std::move(block));
    }
    ++device_segments_;
    segments_.push_back(std::move(seg));
  }

  void change(const char* stat, bool small, std::int64_t delta) {
    walks_[std::string(stat) + ".all"].change(delta);
    walks_[std::string(stat) + (small ? ".small_pool" : ".large_pool")].change(delta);
  }

  void entry(const json& value, const std::string& path) {
    const std::string action = text(value, path, "action");
    if (action == "snapshot") return;
    if (action == "oom") {
      ++ooms_;
      return;
    }
    const auto size = static_cast<std::int64_t>(count(value, path, "size"));
    const bool small_block = static_cast<std::uint64_t>(size) <= kSmallBlock;
    const bool allocates = action == "alloc";
    if (allocates || action == "free_requested" || action == "free") {
      const std::int64_t sign = allocates ? 1 : -1;
      change("allocation", small_block, sign);
      change("allocated_bytes", small_block, sign * size);
    }
    if (allocates || action == "free_completed" || action == "free") {
      const std::int64_t sign = allocates ? 1 : -1;
      change("active", small_block, sign);
      change("active_bytes", small_block, sign * size);
    }
    if (action == "segment_alloc" || action == "segment_free") {
      const std::int64_t sign = action == "segment_alloc" ? 1 : -1;
      const bool small = static_cast<std::uint64_t>(size) == kSmallSegment;
      change("segment", small, sign);
      change("reserved_bytes", small, sign * size);
    } else if (action == "segment_map" || action == "segment_unmap") {
      change("reserved_bytes", false, action == "segment_map" ? size : -size);
    } else if (!allocates && action != "free_requested" && action != "free_completed" &&
               action != "free") {
      fail(path + ".action", "unknown action '" + action +
                                 "' (expected alloc, free_requested, free_completed, free, "
                                 "segment_alloc, segment_free, segment_map, segment_unmap, "
                                 "snapshot or oom)");
    }
  }

  TraceSource& source_;
  int device_;
  Where where_ = Where::kRoot;
  std::uint64_t skip_ = 0;
  bool building_ = false;
  ValueBuilder builder_;
  std::string top_key_;
  std::uint64_t line_ = 0;  // the line where the value being read began
  std::uint64_t device_index_ = 0, segment_index_ = 0, entries_ = 0, device_segments_ = 0;
  bool traces_read_ = false, traces_seen_ = false;
  std::int64_t ooms_ = 0;
  std::optional<std::uint64_t> max_split_size_;
  std::vector<SegmentSnapshot> segments_;
  std::map<std::string, Walk> walks_;
};

}  // namespace

SnapshotSummary summarize_snapshot(TraceSource& source, int device) {
  SummaryHandler handler(source, device);
  read_json(source, handler);
  return handler.finish();
}

SnapshotSummary summarize_snapshot_file(const std::string& path, int device) {
  TraceSource source = TraceSource::open_file(path, accel::common::kMaxTraceFileBytes);
  return summarize_snapshot(source, device);
}

std::string render_snapshot_summary(const SnapshotSummary& summary, const std::string& file,
                                    int device, bool abbreviated) {
  std::string out = format_memory_summary(summary.stats, device, abbreviated);
  out += fmt::format("snapshot: {}, device {}: Cur Usage from its {} segment{}\n", file, device,
                     summary.segments, summary.segments == 1 ? "" : "s");
  if (summary.has_traces) {
    out += fmt::format(
        "Peak Usage, Tot Alloc, Tot Freed and CUDA OOMs: over the {} entr{} of "
        "device_traces[{}] (the recorded window; events before it are not in the snapshot)\n",
        summary.entries, summary.entries == 1 ? "y" : "ies", device);
  } else {
    out += fmt::format(
        "Peak Usage is Cur Usage and the totals are 0: the snapshot has no device_traces[{}] "
        "(record it with memory history on)\n",
        device);
  }
  out += "not in a snapshot's trace: Requested memory, Non-releasable memory and allocs, the "
         "Oversize rows and cudaMalloc retries show Cur Usage only\n";
  return out;
}

}  // namespace accel::replay
