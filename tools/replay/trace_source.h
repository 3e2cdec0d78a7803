#pragma once
// TraceSource: the bytes of a trace, consumed once from the front. Either a file, opened
// by accel_common's bounded reader (Note [Bounded readers]: a FIFO, a device or a directory
// is refused before a byte is read) and read in chunks of kChunkBytes, or text already in
// memory (tests, fuzzers). The readers (snapshot_reader.cpp, rmm_reader.cpp) pull bytes or
// lines from it; it counts lines as bytes are consumed, so a reader names the line of what
// it is reading without an index of the whole file, and a trace of any size costs one chunk
// of memory here.
//
// Errors: TraceError (trace.h), "trace '<path>': <what>" for the file (what the bounded
// reader says, a read error, a file that grows past the limit while being read).
// Single-threaded; owns its descriptor and buffer.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "accel_common/bounded_file.h"

namespace accel::replay {

class TraceSource {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

  // Opens `path` (a regular file of at most `max_bytes`); TraceError otherwise.
  static TraceSource open_file(const std::string& path, std::uint64_t max_bytes);
  // Reads `text`, which must outlive the source; `name` is the file name errors give.
  TraceSource(std::string_view text, std::string name);

  TraceSource(TraceSource&&) noexcept = default;
  TraceSource& operator=(TraceSource&&) noexcept = default;

  const std::string& name() const noexcept { return name_; }

  // Whether every byte has been consumed (reads the next chunk first when needed).
  bool at_end() { return pos_ == end_ && !refill(); }
  // The next byte, not consumed; only when !at_end().
  char peek() const noexcept { return *pos_; }
  // Consumes the next byte; only when !at_end().
  void advance() noexcept {
    last_line_ = newlines_ + 1;
    if (*pos_ == '\n') ++newlines_;
    ++pos_;
  }

  // The line of the last byte consumed (1 before any).
  std::uint64_t last_line() const noexcept { return last_line_; }
  // The line the next byte is on.
  std::uint64_t next_line() const noexcept { return newlines_ + 1; }
  // Bytes consumed so far.
  std::uint64_t consumed() const noexcept {
    return chunk_offset_ + static_cast<std::uint64_t>(pos_ - chunk_begin_);
  }

  // Consumes spaces, tabs, carriage returns and newlines.
  void skip_whitespace();

  // The bytes available now without reading (the rest of the chunk), reading the next
  // chunk first when none are; empty only at the end.
  std::string_view window() {
    if (pos_ == end_) refill();
    return std::string_view(pos_, static_cast<std::size_t>(end_ - pos_));
  }
  // Consumes `n` bytes of window() that hold no '\n' (a fast path for string and number
  // runs).
  void skip_within_line(std::size_t n) noexcept {
    pos_ += n;
    last_line_ = newlines_ + 1;
  }

  // The next line, without its '\n' (a "\r" before it is kept), consumed. `line` stays
  // valid until the next call. kEnd when nothing is left; kTooLong (nothing consumed
  // beyond `max_bytes`) when no '\n' comes within `max_bytes`.
  enum class LineStatus { kLine, kEnd, kTooLong };
  LineStatus read_line(std::string_view& line, std::size_t max_bytes);

 private:
  TraceSource() = default;
  bool refill();  // the next chunk; false at the end of the file

  std::string name_;
  accel::common::UniqueFd fd_;  // none: text in memory
  std::uint64_t max_bytes_ = 0;
  std::unique_ptr<char[]> buffer_;
  std::string line_;  // a line that spans chunks
  const char* chunk_begin_ = nullptr;
  const char* pos_ = nullptr;
  const char* end_ = nullptr;
  std::uint64_t chunk_offset_ = 0;  // file offset of chunk_begin_
  std::uint64_t newlines_ = 0;
  std::uint64_t last_line_ = 1;
};

}  // namespace accel::replay
