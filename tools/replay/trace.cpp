// Format detection and the readers' shared address resolution (trace.h).
#include "trace.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "trace_builder.h"

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
                            std::uint32_t line) {
  const std::uint32_t s = stream_index(stream);
  const std::uint64_t id = trace_.allocations;
  auto [it, inserted] = live_.emplace(address, Live{id, bytes, s, line});
  if (!inserted) {
    fail_at(trace_.file, line,
            fmt::format("address {:#x} allocated again while live (allocated at line {} and "
                        "not freed since)",
                        address, it->second.line));
  }
  ++trace_.allocations;
  trace_.events.push_back(TraceEvent{TraceEvent::Kind::kAllocate, s, line, id, bytes});
}

void TraceBuilder::free(std::uint64_t address, std::uint32_t line) {
  const auto it = live_.find(address);
  if (it == live_.end()) {
    ++trace_.unmatched_frees;
    return;
  }
  ++trace_.frees;
  trace_.events.push_back(
      TraceEvent{TraceEvent::Kind::kFree, it->second.stream, line, it->second.id, it->second.bytes});
  live_.erase(it);
}

}  // namespace detail

Trace read_trace(const std::string& path, int device) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = std::move(buffer).str();
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw TraceError(fmt::format("{}: empty file", path));
  if (text[first] == '{') return read_snapshot_text(text, path, device);
  const std::size_t end = text.find('\n');
  const std::string_view header = std::string_view(text).substr(0, end);
  if (header.find("Action") != std::string_view::npos &&
      header.find(',') != std::string_view::npos) {
    if (device != 0) {
      throw TraceError(fmt::format("{}: --device {}: an RMM log holds one device's events", path,
                                   device));
    }
    return read_rmm_text(text, path);
  }
  throw TraceError(fmt::format(
      "{}:1: not a trace: expected a PyTorch snapshot (a JSON object with device_traces) or an "
      "RMM log (CSV with the header Thread,Time,Action,Pointer,Size,Stream)",
      path));
}

}  // namespace accel::replay
