#pragma once
// A strict, streaming JSON reader (RFC 8259) over a TraceSource: the SAX pattern, one
// handler call per token, nothing kept but the token at hand, so reading is linear in the
// input and its memory is one string or number, whatever the document's size.
//
// Note [A JSON reader of our own]
// nlohmann's DOM callback parser rescans the parent array at each object's end (quadratic
// in the entries of one device trace), and its SAX lexer, linear, still moves every byte
// through a per-character call and a token copy (about 110 MB/s): a 10-million-event
// snapshot, mostly stack frames, is 4 GB. This reader skips through strings, numbers and
// whitespace a chunk run at a time and reaches about three times that (bench/README.md). It
// accepts exactly what RFC 8259 allows -- the grammar nlohmann's strict parser accepts,
// checked by the accel_fuzz_replay_json fuzzer against nlohmann token by token -- with two
// limits of its own: arrays and objects nest at most kMaxDepth deep, and a leading
// byte-order mark is not skipped (a snapshot is written without one); and a NUL byte is a
// byte like any other, where nlohmann takes it for the end of the input.
//
// Values: integers without fraction or exponent go to integer() (negative) or
// unsigned_integer(); an integer outside 64 bits, and every number with a fraction or an
// exponent, to floating(), as nlohmann does. Strings arrive decoded (escapes resolved, valid
// UTF-8 only); the view is valid until the next call.
//
// Errors: TraceError "<file>:<line>: malformed JSON at byte <n>: <what>", n the 1-based
// offset of the offending byte in the file (the file's size at an unexpected end), the
// line that byte is on. A handler may throw TraceError itself; it passes through.

#include <cstdint>
#include <string_view>

#include "trace_source.h"

namespace accel::replay {

class JsonHandler {
 public:
  virtual ~JsonHandler() = default;
  virtual void null_value() = 0;
  virtual void boolean(bool value) = 0;
  virtual void integer(std::int64_t value) = 0;            // negative
  virtual void unsigned_integer(std::uint64_t value) = 0;  // non-negative
  virtual void floating(double value) = 0;
  virtual void string(std::string_view value) = 0;
  virtual void key(std::string_view name) = 0;
  virtual void start_object() = 0;
  virtual void end_object() = 0;
  virtual void start_array() = 0;
  virtual void end_array() = 0;
};

inline constexpr std::size_t kMaxDepth = 10000;

// Reads one JSON document from `source` (whitespace around it allowed, nothing else) and
// calls `handler` for each token, in order.
void read_json(TraceSource& source, JsonHandler& handler);

}  // namespace accel::replay
