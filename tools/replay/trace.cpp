// Format detection and the readers' shared address resolution (trace.h, trace_builder.h).
#include "trace.h"

#include <fmt/format.h>

#include "accel_common/bounded_file.h"
#include "trace_builder.h"
#include "trace_source.h"

namespace accel::replay {

std::string_view format_name(TraceFormat format) {
  return format == TraceFormat::kRmmLog ? "RMM log" : "PyTorch snapshot";
}

namespace detail {

void fail_at(const std::string& file, std::uint64_t line, const std::string& message) {
  throw TraceError(fmt::format("{}:{}: {}", file, line, message));
}

std::uint32_t TraceBuilder::stream_index(std::int64_t stream) {
  if (trace_.streams.empty()) {
    // The default stream is 0 in both formats and stays allocator stream 0.
    trace_.streams.push_back(0);
    streams_.emplace(0, 0);
  }
  auto [it, inserted] = streams_.emplace(stream, static_cast<std::uint32_t>(trace_.streams.size()));
  if (inserted) trace_.streams.push_back(stream);
  return it->second;
}

void TraceBuilder::allocate(std::uint64_t address, std::uint64_t bytes, std::int64_t stream,
                            std::uint64_t line) {
  const std::uint32_t s = stream_index(stream);
  const std::uint64_t id = trace_.allocations;
  auto [it, inserted] = addresses_.try_emplace(address);
  Address& slot = it->second;
  if (!inserted && slot.state == State::kLive) {
    fail_at(trace_.file, line,
            fmt::format("address {:#x} allocated again while live (allocated at line {} and "
                        "not freed since)",
                        address, slot.line));
  }
  // A block whose free waits for its free_completed is not reusable, so a new allocation at
  // its address means the snapshot did not record that completion (PyTorch's history can
  // skip actions): the completion still owed belongs to the old block, not to this one.
  const bool owed = !inserted && slot.state == State::kFreeRequested;
  slot = Address{id, bytes, line, s, State::kLive, owed};
  ++trace_.allocations;
  trace_.events.push_back(TraceEvent{TraceEvent::Kind::kAllocate, s, line, id, bytes});
}

void TraceBuilder::emit_free(Address& slot, std::uint64_t line) {
  ++trace_.frees;
  trace_.events.push_back(
      TraceEvent{TraceEvent::Kind::kFree, slot.stream, line, slot.id, slot.bytes});
}

void TraceBuilder::not_live(std::uint64_t address, const Address& slot, std::uint64_t line,
                            std::string_view action) const {
  fail_at(trace_.file, line,
          fmt::format("{} of address {:#x}, which is not live ({} at line {} and not "
                      "allocated again since)",
                      action, address,
                      slot.state == State::kFreeRequested ? "free requested" : "freed", slot.line));
}

void TraceBuilder::free(std::uint64_t address, std::uint64_t line, std::string_view action,
                        bool completes) {
  const auto it = addresses_.find(address);
  if (it == addresses_.end()) {
    if (history_ == History::kComplete) {
      fail_at(trace_.file, line,
              fmt::format("{} of address {:#x}, which the log never allocated (an RMM log "
                          "holds every allocation from its start: is it complete?)",
                          action, address));
    }
    // Allocated before the window (Note [Frees of unknown addresses]).
    ++trace_.unmatched_frees;
    addresses_.emplace(
        address, Address{0, 0, line, 0, completes ? State::kFreed : State::kFreeRequested, false});
    return;
  }
  Address& slot = it->second;
  if (slot.state != State::kLive) not_live(address, slot, line, action);
  emit_free(slot, line);
  slot.line = line;
  slot.state = completes ? State::kFreed : State::kFreeRequested;
  slot.completion_owed = false;
}

void TraceBuilder::free_completed(std::uint64_t address, std::uint64_t line) {
  auto [it, inserted] = addresses_.try_emplace(address);
  Address& slot = it->second;
  if (inserted) {
    // Allocated, and its free requested, before the window: one free of that block.
    ++trace_.unmatched_frees;
  } else if (slot.state == State::kLive && slot.completion_owed) {
    slot.completion_owed = false;  // the previous block's: this one stays live
    return;
  } else if (slot.state == State::kLive) {
    emit_free(slot, line);  // the snapshot logged only the completion
  } else if (slot.state == State::kFreed) {
    fail_at(trace_.file, line,
            fmt::format("free_completed of address {:#x}, whose free completed at line {} (not "
                        "allocated again since)",
                        address, slot.line));
  }
  slot.line = line;
  slot.state = State::kFreed;
}

}  // namespace detail

namespace {

// Note [Pickled snapshots]
// torch.cuda.memory._dump_snapshot() writes a pickle (protocol 2 and up: first byte 0x80,
// the PROTO opcode), which the replay does not read: unpickling runs whatever the file
// names. The converter, installed beside `accel` as accel-convert-memory-snapshot
// (cmake/install.cmake; tools/convert_memory_snapshot.py in the source tree), rebuilds only
// plain data and writes the JSON form, one trace entry per line. The error says so, with
// the command to run, instead of the RMM reader's "no CSV header" that the bytes would get.
constexpr unsigned char kPickleProto = 0x80;

std::string json_name_for(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  const bool has_extension =
      dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  return (has_extension ? path.substr(0, dot) : path) + ".json";
}

}  // namespace

Trace read_trace(const std::string& path, int device) {
  TraceSource source = TraceSource::open_file(path, accel::common::kMaxTraceFileBytes);
  source.skip_whitespace();
  if (source.at_end()) throw TraceError(fmt::format("{}: empty file", path));
  if (static_cast<unsigned char>(source.peek()) == kPickleProto) {
    throw TraceError(fmt::format(
        "{}: a Python pickle (torch.cuda.memory._dump_snapshot writes one), not a JSON "
        "snapshot or an RMM log: convert it first with `accel-convert-memory-snapshot {} {}` "
        "(installed beside accel; tools/convert_memory_snapshot.py in the source tree), then "
        "replay the JSON file",
        path, path, json_name_for(path)));
  }
  if (source.peek() == '{') return detail::read_snapshot(source, device);
  return detail::read_rmm(source, device);
}

Trace read_snapshot_text(std::string_view text, const std::string& file, int device) {
  TraceSource source(text, file);
  source.skip_whitespace();
  return detail::read_snapshot(source, device);
}

Trace read_rmm_text(std::string_view text, const std::string& file) {
  TraceSource source(text, file);
  source.skip_whitespace();
  if (source.at_end()) throw TraceError(fmt::format("{}: empty file", file));
  return detail::read_rmm(source, 0);
}

}  // namespace accel::replay
