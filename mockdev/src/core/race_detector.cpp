// The race detector: Note [Race detection] in core/race_detector.h.

#include "core/race_detector.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/memory.h"
#include "core/race_call_site.h"
#include "core/shadow_memory.h"
#include "core/string_table.h"
#include "core/vector_clock.h"
#include "core/vendor_registry.h"

namespace mockdev::core {
namespace {

constexpr std::uint32_t kNoQueue = std::numeric_limits<std::uint32_t>::max();

// 16 bytes: the caller is an index into the detector's table of return addresses (one per
// call site of the program, not per operation), symbolised only when reported.
struct OpMeta {
  std::uint32_t queue = kNoQueue;  // dense queue index
  std::uint32_t name = 0;
  std::uint32_t site = 0;
  std::uint32_t caller : 31 = 0;  // callers_[caller]; 0: none
  std::uint32_t unknown : 1 = 0;
};
static_assert(sizeof(OpMeta) == 16, "one cache line holds four operations");

// The queue's clock from operation `first` on, until the next segment (own entry aside).
struct Segment {
  OpId first = 0;
  VectorClock clock;
};

struct Queue {
  std::uint64_t id = 0;
  int device = 0;
  std::string label;
  std::string handle;
  std::string runtime_name;        // on_queue_named's ("" until then)
  VectorClock clock;               // the clock of its latest operation
  std::vector<Segment> segments;   // never empty
  std::uint64_t host_version = 0;  // the host clock version already joined
};

// A conflicting pair found while checking one operation, with its overlapping range.
struct Conflict {
  OpId other = 0;
  bool other_writes = false;
  bool this_writes = false;
  bool host = false;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

std::uint64_t range_end(const AccessRange& r) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  return r.bytes > max - r.begin ? max : r.begin + r.bytes;
}

// Whether `object` (a file name without its directory) is one of the driver files, whose
// frames are the mock's as much as libmockdev.so's: every registered API's facade
// (core/vendor_registry.h), libze_mock.so included.
bool is_facade(std::string_view object) {
  for (const ApiRow& row : kApiRows) {
    if (row.facade == object) return true;
  }
  return false;
}

// Where the host enqueued the operation being checked, when the engine gave no call site:
// the first frame of the current stack outside libmockdev.so and the facades, as
// describe_call_site's text ("app.cpp:42 main", else "object+0xoffset"). Only
// computed when a race is found, so its cost (an unwind) never touches the op path.
std::string current_call_site() {
  void* frames[64];
  const int n = backtrace(frames, 64);
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&current_call_site), &self) == 0) return "";
  for (int i = 1; i < n; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
    if (info.dli_fbase == self.dli_fbase) continue;  // libmockdev.so
    std::string_view object(info.dli_fname);
    if (auto slash = object.rfind('/'); slash != std::string_view::npos) {
      object.remove_prefix(slash + 1);
    }
    if (is_facade(object)) continue;
    return describe_call_site(frames[i]);  // file:line function, where it can
  }
  return "";
}

class RaceDetector final : public OpObserver {
 public:
  explicit RaceDetector(RaceDetectorOptions options) : options_(std::move(options)) {}

  void on_queue_created(const QueueInfo& info) override {
    if (queue_index_.count(info.id) != 0) return;  // ids are never reused
    add_queue(info);
  }

  void on_queue_named(std::uint64_t queue, const std::string& name) override {
    auto it = queue_index_.find(queue);
    if (it != queue_index_.end()) queues_[it->second].runtime_name = name;
  }

  void on_queue_destroyed(std::uint64_t) override {
    // Its operations stay in the shadow state and may still race with later ones.
  }

  void on_enqueue(const OpRecord& record) override {
    if (record.id == 0) return;
    const std::uint32_t q = queue_of(record.queue);
    if (record.id >= meta_.size()) meta_.resize(record.id + 1);
    meta_[record.id] = OpMeta{q, names_.intern(record.name), sites_.intern(record.call_site),
                              caller_index(record.caller), record.unknown_accesses ? 1u : 0u};

    // The operation's clock: its queue's (program order), the host's, its deps'.
    Queue& queue = queues_[q];
    bool grew = false;
    if (queue.host_version != host_version_) {
      grew = queue.clock.join(host_clock_, q);
      queue.host_version = host_version_;
    }
    for (OpId dep : record.deps) grew = join_op(queue.clock, dep, q) || grew;
    queue.clock.raise(q, record.id);
    if (grew) queues_[q].segments.push_back(Segment{record.id, queues_[q].clock});
    const VectorClock& clock = queues_[q].clock;

    conflicts_.clear();
    for (const AccessRange& r : record.reads) check(r, false, q, clock);
    for (const AccessRange& r : record.writes) check(r, true, q, clock);
    const AccessRange window = device_window(queues_[q].device);
    if (record.unknown_accesses) check(window, true, q, clock);

    const ShadowAccess self{record.id, q};
    for (const AccessRange& r : record.reads) shadow(r).record_read(r.begin, range_end(r), self);
    for (const AccessRange& r : record.writes) shadow(r).record_write(r.begin, range_end(r), self);
    if (record.unknown_accesses) device_shadow_.record_write(window.begin, range_end(window), self);

    for (const Conflict& c : conflicts_) report(c, record.id);
  }

  void on_complete(OpId, std::uint64_t, std::uint64_t) override {}

  void on_host_wait(OpId op, std::uint64_t) override {
    if (op == 0 || op >= meta_.size() || meta_[op].queue == kNoQueue) return;
    const std::uint32_t p = meta_[op].queue;
    if (host_clock_.get(p) >= op) return;
    host_clock_.join(clock_of_segment(p, op), kNoQueue);
    host_clock_.raise(p, op);
    ++host_version_;
  }

  void on_event_flow(OpId, OpId) override {}  // the wait's deps carry the edge
  void flush() override {}

 private:
  std::uint32_t add_queue(const QueueInfo& info) {
    const auto index = static_cast<std::uint32_t>(queues_.size());
    Queue queue;
    queue.id = info.id;
    queue.device = info.device;
    queue.label = info.label;
    queue.handle = info.handle;
    queue.segments.push_back(Segment{0, VectorClock{}});
    queues_.push_back(std::move(queue));
    queue_index_.emplace(info.id, index);
    return index;
  }

  // The index of `caller` in callers_: consecutive operations mostly share a call site, so
  // the last one is checked before the map.
  std::uint32_t caller_index(const void* caller) {
    if (caller == last_caller_) return last_caller_index_;
    auto [it, added] = caller_ids_.emplace(caller, static_cast<std::uint32_t>(callers_.size()));
    if (added) callers_.push_back(caller);
    last_caller_ = caller;
    last_caller_index_ = it->second;
    return it->second;
  }

  std::uint32_t queue_of(std::uint64_t id) {
    if (id == last_queue_id_ && last_queue_index_ != kNoQueue) return last_queue_index_;
    auto it = queue_index_.find(id);
    // An operation on a queue nobody announced still gets a queue (device 0), never a crash.
    const std::uint32_t index =
        it != queue_index_.end() ? it->second
                                 : add_queue(QueueInfo{id, 0, "queue " + std::to_string(id), {}});
    last_queue_id_ = id;
    last_queue_index_ = index;
    return index;
  }

  // The clock of operation `op` of queue `p`, except its own entry (see Segment).
  const VectorClock& clock_of_segment(std::uint32_t p, OpId op) const {
    const std::vector<Segment>& segments = queues_[p].segments;
    auto it = std::upper_bound(segments.begin(), segments.end(), op,
                               [](OpId id, const Segment& s) { return id < s.first; });
    return std::prev(it)->clock;
  }

  // Joins the clock of operation `dep` into `clock` (of queue `own`); true when an entry
  // other than `own` grew.
  bool join_op(VectorClock& clock, OpId dep, std::uint32_t own) {
    if (dep == 0 || dep >= meta_.size() || meta_[dep].queue == kNoQueue) return false;
    const std::uint32_t p = meta_[dep].queue;
    if (clock.get(p) >= dep) return false;  // already covered, with everything before it
    bool grew = clock.join(clock_of_segment(p, dep), own);
    if (clock.get(p) < dep) {
      clock.raise(p, dep);
      grew = grew || p != own;
    }
    return grew;
  }

  ShadowMemory& shadow(const AccessRange& r) { return r.host ? host_shadow_ : device_shadow_; }

  static AccessRange device_window(int device) {
    const auto d = static_cast<std::uint64_t>(std::max(device, 0));
    return AccessRange{(d + 1) << kAddressRangeShift, std::uint64_t{1} << kAddressRangeShift,
                       false};
  }

  void check(const AccessRange& r, bool writes, std::uint32_t q, const VectorClock& clock) {
    if (r.bytes == 0) return;
    shadow(r).visit(r.begin, range_end(r),
                    [&](std::uint64_t begin, std::uint64_t end, const ShadowCell& cell) {
                      const ShadowAccess& w = cell.write;
                      if (w.op != 0 && w.queue != q && clock.get(w.queue) < w.op) {
                        add_conflict(Conflict{w.op, true, writes, r.host, begin, end});
                      }
                      if (!writes) return;
                      for (const ShadowAccess& read : cell.reads) {
                        if (read.queue != q && clock.get(read.queue) < read.op) {
                          add_conflict(Conflict{read.op, false, true, r.host, begin, end});
                        }
                      }
                    });
  }

  // One conflict per other operation and contiguous range.
  void add_conflict(const Conflict& c) {
    for (Conflict& known : conflicts_) {
      if (known.other == c.other && known.host == c.host && known.begin <= c.end &&
          c.begin <= known.end) {
        known.begin = std::min(known.begin, c.begin);
        known.end = std::max(known.end, c.end);
        known.other_writes = known.other_writes || c.other_writes;
        known.this_writes = known.this_writes || c.this_writes;
        return;
      }
    }
    conflicts_.push_back(c);
  }

  control::RaceAccess access_of(OpId op, bool writes) const {
    const OpMeta& m = meta_[op];
    const Queue& queue = queues_[m.queue];
    std::string site = sites_.get(m.site);
    if (site.empty()) site = describe_call_site(callers_[m.caller]);
    control::RaceAccess access;
    access.op = op;
    access.name = names_.get(m.name);
    access.queue = queue.label;
    access.handle = queue.handle;
    access.runtime_name = queue.runtime_name;
    access.device = queue.device;
    access.call_site = std::move(site);
    access.writes = writes;
    access.unknown = m.unknown != 0;
    return access;
  }

  // The queue as the program names it (the handle, then the runtime's name once the runtime
  // gave one: Note [Runtime names] in core/runtime_tool.h), with the simulation's label beside.
  static std::string describe(const control::RaceAccess& a) {
    std::string queue = a.handle;
    if (!a.runtime_name.empty()) {
      queue += (queue.empty() ? "\"" : " = \"") + a.runtime_name + "\"";
    }
    queue = queue.empty() ? "queue \"" + a.queue + "\"" : queue + " (queue \"" + a.queue + "\")";
    return "  by op " + std::to_string(a.op) + " \"" + a.name + "\" on " + queue +
           (a.call_site.empty() ? std::string(" (call site unknown)") : " at " + a.call_site) +
           (a.unknown ? " (unknown accesses: a kernel launched but never registered)" : "") + "\n";
  }

  static const char* what(const control::RaceAccess& a) {
    if (a.unknown) return "unknown access";
    return a.writes ? "write" : "read";
  }

  static std::string text_of(const control::Race& race) {
    char range[128];
    std::snprintf(range, sizeof range, "[0x%" PRIx64 ", 0x%" PRIx64 ") (%" PRIu64 " bytes)",
                  race.begin, race.begin + race.bytes, race.bytes);
    const bool unknown = race.kind == control::RaceKind::kUnknownAccesses;
    std::string text = unknown
                           ? "=========== mockdev: possible race: unknown accesses ===========\n"
                           : "==================== mockdev: data race ====================\n";
    const char* phrase = race.second.unknown  ? "unknown accesses to"
                         : race.second.writes ? "write to"
                                              : "read of";
    text += std::string(phrase) + (race.host ? " host" : " device") + " memory " + range + "\n";
    text += describe(race.second);
    text += std::string("conflicts with an earlier ") + what(race.first) + "\n";
    text += describe(race.first);
    text +=
        "Neither is ordered before the other: no stream order, event wait, barrier, graph "
        "launch or host synchronisation joins them.\n";
    text += "=============================================================\n";
    return text;
  }

  void report(const Conflict& c, OpId self) {
    control::Race race;
    race.first = access_of(c.other, c.other_writes);
    race.second = access_of(self, c.this_writes);
    if (race.second.call_site.empty()) race.second.call_site = current_call_site();
    race.kind = race.first.unknown || race.second.unknown ? control::RaceKind::kUnknownAccesses
                                                          : control::RaceKind::kDataRace;
    race.begin = c.begin;
    race.bytes = c.end - c.begin;
    race.host = c.host;
    race.text = text_of(race);

    ++found_;
    if (found_ <= control::kMaxKeptRaces) {
      std::fputs(race.text.c_str(), options_.out);
    } else if (found_ == control::kMaxKeptRaces + 1) {
      std::fprintf(options_.out,
                   "mockdev: more than %zu races; later ones are counted "
                   "(mockdev::control::race_count()) but not printed\n",
                   control::kMaxKeptRaces);
    }
    for (RaceListener* listener : options_.listeners) {
      if (listener != nullptr) listener->on_race(race);
    }
    if (options_.policy == RacePolicy::kAbort) {
      std::fputs("mockdev: aborting on the race above (race policy 'abort')\n", options_.out);
      for (RaceListener* listener : options_.listeners) {
        if (listener != nullptr) listener->before_abort();
      }
      std::fflush(options_.out);
      std::abort();
    }
  }

  RaceDetectorOptions options_;
  std::vector<Queue> queues_;
  std::unordered_map<std::uint64_t, std::uint32_t> queue_index_;
  std::uint64_t last_queue_id_ = 0;
  std::uint32_t last_queue_index_ = kNoQueue;
  std::vector<OpMeta> meta_;                   // by OpId
  std::vector<const void*> callers_{nullptr};  // OpMeta::caller -> return address
  std::unordered_map<const void*, std::uint32_t> caller_ids_{{nullptr, 0}};
  const void* last_caller_ = nullptr;
  std::uint32_t last_caller_index_ = 0;
  StringTable names_;
  StringTable sites_;
  VectorClock host_clock_;
  std::uint64_t host_version_ = 0;
  ShadowMemory device_shadow_;
  ShadowMemory host_shadow_;
  std::vector<Conflict> conflicts_;  // scratch, per operation
  std::uint64_t found_ = 0;
};

}  // namespace

std::unique_ptr<OpObserver> make_race_detector(RaceDetectorOptions options) {
  return std::make_unique<RaceDetector>(std::move(options));
}

}  // namespace mockdev::core
