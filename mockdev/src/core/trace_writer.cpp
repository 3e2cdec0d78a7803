// The timeline trace: Note [Timeline trace] in core/trace_writer.h.

#include "core/trace_writer.h"

#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/engine_lock.h"
#include "core/race_call_site.h"
#include "core/string_table.h"

namespace mockdev::core {
namespace {

// Length of the valid UTF-8 sequence starting at s[i] (RFC 3629 table), 0 if invalid.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF)
    n = 2;
  else if (lead == 0xE0)
    n = 3, lo = 0xA0;
  else if ((lead >= 0xE1 && lead <= 0xEC) || lead == 0xEE || lead == 0xEF)
    n = 3;
  else if (lead == 0xED)
    n = 3, hi = 0x9F;
  else if (lead == 0xF0)
    n = 4, lo = 0x90;
  else if (lead >= 0xF1 && lead <= 0xF3)
    n = 4;
  else if (lead == 0xF4)
    n = 4, hi = 0x8F;
  else
    return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

// A JSON string literal; invalid UTF-8 bytes become U+FFFD so the file always parses.
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
      ++i;
    } else if (std::size_t n = utf8_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  out += '"';
}

// Virtual nanoseconds as microseconds with three decimals.
void append_us(std::string& out, std::uint64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
  out += text;
}

const char* category(OpKind kind) {
  switch (kind) {
    case OpKind::kCopy:
      return "copy";
    case OpKind::kMemset:
      return "memset";
    case OpKind::kKernel:
      return "kernel";
    case OpKind::kHostFunction:
      return "host function";
    case OpKind::kEventRecord:
      return "event record";
    case OpKind::kEventWait:
      return "event wait";
    case OpKind::kGraphLaunch:
      return "graph launch";
    case OpKind::kBarrier:
      return "barrier";
  }
  return "operation";
}

struct Track {
  int pid = 0;
  std::uint64_t tid = 0;
};

struct Slice {
  std::uint64_t queue = 0;
  std::uint32_t name = 0;
  std::uint32_t site = 0;
  const void* caller = nullptr;  // symbolised when the slice is written
  OpKind kind = OpKind::kBarrier;
  bool enqueued = false;
  bool done = false;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

class TraceWriter;
std::atomic<TraceWriter*> g_exit_writer{nullptr};
void flush_at_exit();

class TraceWriter final : public TraceObserver {
 public:
  TraceWriter(TraceFile& file, const MachineSpec& machine, bool flush_at_exit)
      : file_(file), machine_(machine) {
    if (flush_at_exit) {
      static std::once_flag registered;
      std::call_once(registered, [] { std::atexit(core::flush_at_exit); });
      g_exit_writer.store(this);
    }
  }

  ~TraceWriter() override {
    TraceWriter* self = this;
    g_exit_writer.compare_exchange_strong(self, nullptr);
  }

  void on_queue_created(const QueueInfo& info) override {
    if (tracks_.count(info.id) != 0 || idle_queues_.count(info.id) != 0) return;
    // The track is named as the program names the queue, then the simulation's label. It is
    // written when the queue's first operation is: a queue nothing ran on (the runtime's
    // pool streams, mostly) would be only metadata, so it has no track.
    idle_queues_.emplace(
        info.id,
        IdleQueue{info.device, info.handle.empty() ? info.label : info.handle + ": " + info.label,
                  {}});
  }

  // Note [Runtime names] in core/runtime_tool.h: the track leads with the runtime's name (a
  // track column is narrow, and the program knows its streams by it). A track written already
  // gets a new thread_name event, which replaces the old name in Perfetto and
  // chrome://tracing.
  void on_queue_named(std::uint64_t queue, const std::string& name) override {
    if (auto idle = idle_queues_.find(queue); idle != idle_queues_.end()) {
      idle->second.runtime_name = name;
      return;
    }
    auto track = tracks_.find(queue);
    if (track == tracks_.end()) return;
    const std::string label = named(track_bases_.at(queue), name);
    if (label == track_labels_.at(queue)) return;
    track_labels_[queue] = label;
    write_thread_name(track->second, label);
  }

  void on_queue_destroyed(std::uint64_t queue) override { idle_queues_.erase(queue); }

  void on_enqueue(const OpRecord& record) override {
    if (record.id == 0) return;
    if (record.id >= slices_.size()) slices_.resize(record.id + 1);
    Slice& slice = slices_[record.id];
    slice.queue = record.queue;
    slice.name = names_.intern(record.name);
    slice.site = sites_.intern(record.call_site);
    slice.caller = record.caller;
    slice.kind = record.kind;
    slice.enqueued = true;
    if (record.host_thread != 0) {  // 0: a record that does not say (observer tests)
      host_calls_.push_back(HostCall{record.id, record.host_ns, record.host_thread});
    }
    if (tracks_.count(record.queue) == 0) {
      const auto idle = idle_queues_.find(record.queue);
      if (idle != idle_queues_.end()) {
        add_track(record.queue, idle->second.device, idle->second.label,
                  idle->second.runtime_name);
        idle_queues_.erase(idle);
      } else {
        add_track(record.queue, 0, "queue " + std::to_string(record.queue), {});
      }
    }
  }

  void on_complete(OpId op, std::uint64_t start_ns, std::uint64_t end_ns) override {
    if (op >= slices_.size() || !slices_[op].enqueued) return;
    Slice& slice = slices_[op];
    slice.done = true;
    slice.start_ns = start_ns;
    slice.end_ns = std::max(start_ns, end_ns);
    latest_ns_ = std::max(latest_ns_, slice.end_ns);
    std::string& out = begin_event();
    out += "{\"name\":";
    append_json_string(out, names_.get(slice.name));
    out += ",\"cat\":\"";
    out += category(slice.kind);
    out += "\",\"ph\":\"X\",";
    append_track(out, tracks_.at(slice.queue));
    out += ",\"ts\":";
    append_us(out, slice.start_ns);
    out += ",\"dur\":";
    append_us(out, slice.end_ns - slice.start_ns);
    out += ",\"args\":{\"op\":" + std::to_string(op);
    const std::string site = site_of(slice);
    if (!site.empty()) {
      out += ",\"call_site\":";
      append_json_string(out, site);
    }
    out += "}}";
  }

  void on_host_wait(OpId, std::uint64_t) override {}

  void on_event_flow(OpId record, OpId wait) override { flows_.emplace_back(record, wait); }

  void on_race(const control::Race& race) override { races_.push_back(race); }

  void before_abort() override {
    flush();
    file_.close();  // abort() follows: a FIFO's reader gets a whole document
  }

  void on_memory(int device, std::uint64_t used_bytes, std::uint64_t host_ns) override {
    auto [last, inserted] = memory_in_use_.try_emplace(device, used_bytes);
    if (!inserted && last->second == used_bytes) return;
    last->second = used_bytes;
    const int pid = process_of(device);  // before this event: it may write the process
    std::string& out = begin_event();
    out += "{\"name\":\"driver memory in use\",\"cat\":\"memory\",\"ph\":\"C\",\"pid\":" +
           std::to_string(pid) + ",\"ts\":";
    append_us(out, host_ns);
    out += ",\"args\":{\"bytes\":" + std::to_string(used_bytes) + "}}";
  }

  // Note [Runtime names]: a counter per runtime device in a process of the runtime's own,
  // written when either value changed.
  void on_runtime_memory(const std::string& device, std::int64_t allocated_bytes,
                         std::int64_t reserved_bytes, std::uint64_t host_ns) override {
    const std::pair<std::int64_t, std::int64_t> value{allocated_bytes, reserved_bytes};
    auto [last, inserted] = runtime_memory_.try_emplace(device, value);
    if (!inserted && last->second == value) return;
    last->second = value;
    const int pid = process_of(kRuntimeProcess);  // before this event: it may write the process
    std::string& out = begin_event();
    out += "{\"name\":";
    append_json_string(out, device);
    out += ",\"cat\":\"memory\",\"ph\":\"C\",\"pid\":" + std::to_string(pid) + ",\"ts\":";
    append_us(out, host_ns);
    out += ",\"args\":{\"allocated_bytes\":" + std::to_string(allocated_bytes) +
           ",\"reserved_bytes\":" + std::to_string(reserved_bytes) + "}}";
  }

  void flush() override {
    render_host_calls();
    render_flows();
    render_races();
    file_.append(pending_);
    pending_.clear();
  }

 private:
  // The trace process of `device` (kHostProcess: the host's), written when first needed.
  int process_of(int device) {
    auto process = processes_.find(device);
    if (process != processes_.end()) return process->second;
    const int pid = file_.next_process_id();
    processes_.emplace(device, pid);
    std::string name = device == kHostProcess      ? std::string("host")
                       : device == kRuntimeProcess ? std::string("accel runtime: caching allocator")
                                                   : "dev" + std::to_string(device);
    if (device >= 0 && static_cast<std::size_t>(device) < machine_.devices.size()) {
      name += ": " + machine_.devices[static_cast<std::size_t>(device)].name;
    }
    name += " (" + machine_.name + ")";
    std::string& out = begin_event();
    out += "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"args\":{\"name\":";
    append_json_string(out, name);
    out += "}}";
    begin_event() +=
        "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
        ",\"args\":{\"sort_index\":" + std::to_string(pid) + "}}";
    return pid;
  }

  // Note [Host calls in the trace]
  // Each driver call that enqueued an operation is an instant event ("i", thread scope) on
  // the track of the host thread that made it (named by its OS thread id; the process's
  // first thread is "(main)"), in a "host" process, at the host's virtual clock when it was
  // made, named by the entry point, its op id (the device slice's), its queue and call site
  // in args. An instant, not a slice: the virtual host clock moves only when the host waits,
  // so a call has no duration of its own to draw, and
  // the calls between two waits share one timestamp, in call order (Note [Virtual time] in
  // core/timeline.h).
  void render_host_calls() {
    for (const HostCall& call : host_calls_) {
      const Slice& slice = slices_[call.op];
      const int pid = process_of(kHostProcess);
      if (host_threads_.insert(call.thread).second) {
        std::string& meta = begin_event();
        meta += "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
                ",\"tid\":" + std::to_string(call.thread) + ",\"args\":{\"name\":";
        std::string name = "host thread " + std::to_string(call.thread);
        if (call.thread == static_cast<std::uint64_t>(getpid())) name += " (main)";
        append_json_string(meta, name);
        meta += "}}";
      }
      std::string& out = begin_event();
      out += "{\"name\":";
      append_json_string(out, names_.get(slice.name));
      out += ",\"cat\":\"host call\",\"ph\":\"i\",\"s\":\"t\",\"pid\":" + std::to_string(pid) +
             ",\"tid\":" + std::to_string(call.thread) + ",\"ts\":";
      append_us(out, call.host_ns);
      out += ",\"args\":{\"op\":" + std::to_string(call.op) + ",\"queue\":";
      append_json_string(out, track_labels_.at(slice.queue));
      const std::string site = site_of(slice);
      if (!site.empty()) {
        out += ",\"call_site\":";
        append_json_string(out, site);
      }
      out += "}}";
    }
    host_calls_.clear();
  }

  // `base`: the handle and label; `runtime_name`: the runtime's name ("" when none yet).
  void add_track(std::uint64_t queue, int device, const std::string& base,
                 const std::string& runtime_name) {
    const Track track{process_of(device), queue};
    const std::string label = named(base, runtime_name);
    track_bases_.emplace(queue, base);
    track_labels_.emplace(queue, label);
    tracks_.emplace(queue, track);
    write_thread_name(track, label);
  }

  void write_thread_name(const Track& track, const std::string& label) {
    std::string& out = begin_event();
    out += "{\"name\":\"thread_name\",\"ph\":\"M\",";
    append_track(out, track);
    out += ",\"args\":{\"name\":";
    append_json_string(out, label);
    out += "}}";
  }

  // A track's name: "cuda:0 stream id=3 (priority 0) = CUstream 0x5a1: dev0/stream 1" once the
  // runtime named the queue, else `base` alone.
  static std::string named(const std::string& base, const std::string& runtime_name) {
    return runtime_name.empty() ? base : runtime_name + " = " + base;
  }

  // The slice's call site: the one its record named, else its caller's, symbolised now.
  std::string site_of(const Slice& slice) {
    return slice.site != 0 ? std::string(sites_.get(slice.site)) : describe_call_site(slice.caller);
  }

  static void append_track(std::string& out, const Track& track) {
    out += "\"pid\":" + std::to_string(track.pid) + ",\"tid\":" + std::to_string(track.tid);
  }

  std::string& begin_event() {
    if (!pending_.empty()) pending_ += ",\n";
    return pending_;
  }

  bool completed(OpId op) const { return op < slices_.size() && slices_[op].done; }

  void render_flows() {
    std::vector<std::pair<OpId, OpId>> waiting;  // an end not completed yet: a later flush
    for (const auto& [record, wait] : flows_) {
      if (!completed(record) || !completed(wait)) {
        waiting.emplace_back(record, wait);
        continue;
      }
      const std::uint64_t id = file_.next_flow_id();
      const char* phases[2] = {"s", "f"};
      const OpId ends[2] = {record, wait};
      for (int k = 0; k < 2; ++k) {
        const Slice& slice = slices_[ends[k]];
        std::string& out = begin_event();
        out += "{\"name\":\"event\",\"cat\":\"event\",\"ph\":\"";
        out += phases[k];
        out += k == 1 ? "\",\"bp\":\"e\"," : "\",";
        out += "\"id\":" + std::to_string(id) + ",";
        append_track(out, tracks_.at(slice.queue));
        out += ",\"ts\":";
        append_us(out, slice.start_ns);
        out += "}";
      }
    }
    flows_ = std::move(waiting);
  }

  void render_races() {
    for (const control::Race& race : races_) {
      const control::RaceAccess* sides[2] = {&race.first, &race.second};
      for (int k = 0; k < 2; ++k) {
        const OpId op = sides[k]->op;
        if (op >= slices_.size() || !slices_[op].enqueued) continue;
        const Slice& slice = slices_[op];
        std::string& out = begin_event();
        out += race.kind == control::RaceKind::kDataRace ? "{\"name\":\"data race\""
                                                         : "{\"name\":\"unknown accesses\"";
        out += ",\"cat\":\"race\",\"ph\":\"i\",\"s\":\"t\",";
        append_track(out, tracks_.at(slice.queue));
        out += ",\"ts\":";
        append_us(out, slice.done ? slice.start_ns : latest_ns_);
        out += ",\"args\":{\"op\":" + std::to_string(op) +
               ",\"other_op\":" + std::to_string(sides[1 - k]->op) + ",\"report\":";
        append_json_string(out, race.text);
        out += "}}";
      }
    }
    races_.clear();
  }

  TraceFile& file_;
  MachineSpec machine_;
  std::map<int, int> processes_;  // device -> trace pid
  std::unordered_map<std::uint64_t, Track> tracks_;
  struct IdleQueue {
    int device = 0;
    std::string label;         // the handle and label: add_track's `base`
    std::string runtime_name;  // on_queue_named's, "" until then
  };
  std::unordered_map<std::uint64_t, IdleQueue> idle_queues_;  // created, nothing enqueued yet
  std::vector<Slice> slices_;                                 // by OpId
  StringTable names_;
  StringTable sites_;
  std::vector<std::pair<OpId, OpId>> flows_;
  std::vector<control::Race> races_;
  std::uint64_t latest_ns_ = 0;
  std::string pending_;  // rendered events since the last flush
  // Host calls (Note [Host calls in the trace]), rendered at the next flush.
  static constexpr int kHostProcess = -1;  // processes_'s key of the host process
  // processes_'s key of the runtime's allocator counters (Note [Runtime names]).
  static constexpr int kRuntimeProcess = -2;
  struct HostCall {
    OpId op = 0;
    std::uint64_t host_ns = 0;
    std::uint64_t thread = 0;
  };
  std::vector<HostCall> host_calls_;
  std::set<std::uint64_t> host_threads_;                         // threads whose track is named
  std::unordered_map<std::uint64_t, std::string> track_labels_;  // queue -> its track's name
  std::unordered_map<std::uint64_t, std::string> track_bases_;   // queue -> add_track's base
  std::map<int, std::uint64_t> memory_in_use_;  // device -> the last counter value written
  // runtime device -> the last (allocated, reserved) written
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> runtime_memory_;
};

void flush_at_exit() {
  EngineLock lock;
  finish_process_trace();
}

// Writes all of `text` to `fd` at `offset` (a regular file) or in order (offset < 0). SIGPIPE
// is held back meanwhile: a trace reader that went away is a write error (EPIPE) reported
// like any other, not a signal that kills the program being traced.
bool write_fully(int fd, std::string_view text, off_t offset, int& error) {
  sigset_t pipe_only, previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  bool ok = true;
  while (!text.empty()) {
    const ssize_t n = offset >= 0 ? ::pwrite(fd, text.data(), text.size(), offset)
                                  : ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      ok = false;
      break;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
    if (offset >= 0) offset += n;
  }
  if (!ok && error == EPIPE && !was_pending) {
    const timespec zero{0, 0};
    (void)sigtimedwait(&pipe_only, nullptr, &zero);  // the SIGPIPE this write raised
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

constexpr std::string_view kHeader =
    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mockdev\"},"
    "\"traceEvents\":[\n";
constexpr std::string_view kTail = "\n]}\n";

// The process's trace file and why it failed to open, kept for the life of the process.
bool g_trace_opened = false;
TraceFile* g_trace_file = nullptr;          // never deleted: Note [Leaky state]
std::string* g_trace_open_error = nullptr;  // likewise

}  // namespace

TraceFile::TraceFile(std::string path, std::FILE* diagnostics, accel::common::UniqueFd fd,
                     bool stream)
    : path_(std::move(path)),
      diagnostics_(diagnostics),
      fd_(std::move(fd)),
      stream_(stream),
      owner_(current_pid()) {}

std::unique_ptr<TraceFile> TraceFile::open(std::string path, std::FILE* diagnostics,
                                           std::string* error, bool report_open_error) {
  accel::common::OpenedFile opened = accel::common::open_for_writing(path, kTraceVariable);
  if (!opened.ok()) {
    if (report_open_error) {
      std::fprintf(diagnostics, "mockdev: %s; tracing is off\n", opened.error.c_str());
    }
    if (error != nullptr) *error = opened.error;
    return nullptr;
  }
  struct stat st {};
  const bool stream = ::fstat(opened.fd.get(), &st) != 0 || !S_ISREG(st.st_mode);
  // The header is part of opening: its failure is reported as an open failure is.
  std::unique_ptr<TraceFile> file(new TraceFile(
      std::move(path), report_open_error ? diagnostics : nullptr, std::move(opened.fd), stream));
  if (!file->write_at_end(kHeader, /*then_tail=*/true)) {
    if (error != nullptr) *error = file->error_;
    return nullptr;
  }
  file->diagnostics_ = diagnostics;
  return file;
}

void TraceFile::append(std::string_view events) {
  if (failed_ || closed_ || current_pid() != owner_ || events.empty()) return;
  std::string text;
  if (has_events_) text = ",\n";
  text.append(events);
  if (write_at_end(text, /*then_tail=*/true)) has_events_ = true;
}

void TraceFile::close() {
  if (failed_ || closed_ || current_pid() != owner_) return;
  if (stream_) (void)write_at_end(kTail, /*then_tail=*/false);
  closed_ = true;
}

// Writes `text` after what is written; a regular file then gets the tail (overwritten by
// the next write) and is cut after it, so it always holds a whole trace.
bool TraceFile::write_at_end(std::string_view text, bool then_tail) {
  int error = 0;
  if (stream_) {
    if (!write_fully(fd_.get(), text, -1, error)) {
      fail(error);
      return false;
    }
    return true;
  }
  std::string chunk(text);
  if (then_tail) chunk.append(kTail);
  if (!write_fully(fd_.get(), chunk, static_cast<off_t>(end_), error) ||
      ::ftruncate(fd_.get(), static_cast<off_t>(end_ + chunk.size())) != 0) {
    fail(error != 0 ? error : errno);
    return false;
  }
  end_ += text.size();
  return true;
}

void TraceFile::fail(int error) {
  error_ = std::string(kTraceVariable) + " '" + path_ +
           "': cannot write: " + (error != 0 ? std::strerror(error) : "write error");
  if (diagnostics_ != nullptr)
    std::fprintf(diagnostics_, "mockdev: %s; tracing is off\n", error_.c_str());
  failed_ = true;
}

TraceFile* process_trace_file() {
  if (!g_trace_opened) {
    const char* path = std::getenv(kTraceVariable);
    if (path == nullptr || path[0] == '\0') return nullptr;
    g_trace_opened = true;
    std::string error;
    // The engine reports an open failure as its configuration error (Note [Timeline trace]).
    g_trace_file = TraceFile::open(path, stderr, &error, /*report_open_error=*/false).release();
    if (g_trace_file == nullptr) g_trace_open_error = new std::string(std::move(error));
  }
  return g_trace_file != nullptr && !g_trace_file->failed() ? g_trace_file : nullptr;
}

std::optional<std::string> process_trace_error() {
  if (g_trace_open_error != nullptr) return *g_trace_open_error;
  if (g_trace_file != nullptr && g_trace_file->failed()) return g_trace_file->error();
  return std::nullopt;
}

void finish_process_trace() {
  if (TraceWriter* writer = g_exit_writer.load()) writer->flush();
  if (g_trace_file != nullptr) g_trace_file->close();
}

std::unique_ptr<TraceObserver> make_trace_writer(TraceFile& file, const MachineSpec& machine,
                                                 bool flush_at_exit) {
  return std::make_unique<TraceWriter>(file, machine, flush_at_exit);
}

}  // namespace mockdev::core
