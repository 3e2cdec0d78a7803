#pragma once
// What both trace readers share: turning (address, size, stream) rows into TraceEvents with
// dense allocation ids and dense stream numbers (trace.h says why the readers resolve
// addresses). Internal to the readers.

#include <cstdint>
#include <string>
#include <unordered_map>

#include "trace.h"

namespace accel::replay::detail {

class TraceBuilder {
 public:
  explicit TraceBuilder(Trace& trace) : trace_(trace) {}

  // An allocation of `bytes` at trace address `address`. An address already live in the
  // trace is an error (a free is missing): TraceError naming both lines.
  void allocate(std::uint64_t address, std::uint64_t bytes, std::int64_t stream,
                std::uint32_t line);
  // A free of trace address `address`; dropped and counted when it is not live.
  void free(std::uint64_t address, std::uint32_t line);
  // Whether `address` is live in the trace now.
  bool live(std::uint64_t address) const { return live_.count(address) != 0; }

 private:
  struct Live {
    std::uint64_t id;
    std::uint64_t bytes;
    std::uint32_t stream;
    std::uint32_t line;
  };
  std::uint32_t stream_index(std::int64_t stream);

  Trace& trace_;
  std::unordered_map<std::uint64_t, Live> live_;
  std::unordered_map<std::int64_t, std::uint32_t> streams_;
};

// "<file>:<line>: <message>"
[[noreturn]] void fail_at(const std::string& file, std::uint64_t line, const std::string& message);

}  // namespace accel::replay::detail
