// The trace byte stream (trace_source.h).
#include "trace_source.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trace.h"

namespace accel::replay {

TraceSource TraceSource::open_file(const std::string& path, std::uint64_t max_bytes) {
  accel::common::OpenedFile file = accel::common::open_for_reading(path, max_bytes, "trace");
  if (!file.ok()) throw TraceError(file.error);
  TraceSource source;
  source.name_ = path;
  source.fd_ = std::move(file.fd);
  source.max_bytes_ = max_bytes;
  source.buffer_ = std::make_unique<char[]>(kChunkBytes);
  source.chunk_begin_ = source.pos_ = source.end_ = source.buffer_.get();
  return source;
}

TraceSource::TraceSource(std::string_view text, std::string name)
    : name_(std::move(name)),
      chunk_begin_(text.data()),
      pos_(text.data()),
      end_(text.data() + text.size()) {}

bool TraceSource::refill() {
  if (!fd_) return false;
  chunk_offset_ += static_cast<std::uint64_t>(end_ - chunk_begin_);
  chunk_begin_ = pos_ = end_ = buffer_.get();
  while (true) {
    const ssize_t n = ::read(fd_.get(), buffer_.get(), kChunkBytes);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      throw TraceError(fmt::format("trace '{}': cannot read: {}", name_, std::strerror(errno)));
    }
    if (n == 0) return false;
    end_ = buffer_.get() + n;
    // The size was checked when the file was opened; a file that grows while it is read is
    // refused at the limit rather than read without end (Note [Bounded readers]).
    if (chunk_offset_ + static_cast<std::uint64_t>(n) > max_bytes_) {
      throw TraceError(fmt::format("trace '{}': grew past the limit of {} bytes while being read",
                                   name_, max_bytes_));
    }
    return true;
  }
}

void TraceSource::skip_whitespace() {
  while (!at_end()) {
    const char c = peek();
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
    advance();
  }
}

TraceSource::LineStatus TraceSource::read_line(std::string_view& line, std::size_t max_bytes) {
  if (at_end()) return LineStatus::kEnd;
  bool spanning = false;  // the line is being gathered in line_
  line_.clear();
  while (true) {
    const auto* newline =
        static_cast<const char*>(std::memchr(pos_, '\n', static_cast<std::size_t>(end_ - pos_)));
    const char* stop = newline != nullptr ? newline : end_;
    const auto piece = static_cast<std::size_t>(stop - pos_);
    if (line_.size() + piece > max_bytes) return LineStatus::kTooLong;
    last_line_ = newlines_ + 1;
    if (newline != nullptr && !spanning) {
      line = std::string_view(pos_, piece);
      pos_ = newline + 1;
      ++newlines_;
      return LineStatus::kLine;
    }
    line_.append(pos_, piece);
    spanning = true;
    pos_ = stop;
    if (newline != nullptr) {
      ++pos_;
      ++newlines_;
      line = line_;
      return LineStatus::kLine;
    }
    if (!refill()) {  // the last line has no '\n'
      line = line_;
      return LineStatus::kLine;
    }
  }
}

}  // namespace accel::replay
