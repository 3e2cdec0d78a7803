// Fuzzer: the replay's PyTorch snapshot reader (read_snapshot_text, tools/replay/trace.h)
// and the strict streaming JSON reader under it (json_reader.h). Any input must either give
// a trace that keeps the invariants of replay_trace_checks.h or raise TraceError naming
// "fuzz.json"; anything else escaping is a finding. Differentially, the JSON reader must
// accept exactly what nlohmann's strict parser accepts, with the same tokens in the same
// order (Note [A JSON reader of our own]), except where the two differ by design: a leading
// byte-order mark (nlohmann skips it), nesting deeper than kMaxDepth, and a NUL byte where a
// token may start (nlohmann takes it for the end of the input, as in a C string, and
// accepts "9\0garbage"; RFC 8259 does not, nor does the reader).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "json_reader.h"
#include "replay_trace_checks.h"
#include "trace.h"
#include "trace_source.h"

namespace {

using accel::replay::TraceError;

// A token as text, the same from both readers.
std::string as_float(double value) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return "f:" + std::to_string(bits);
}

class Ours final : public accel::replay::JsonHandler {
 public:
  std::vector<std::string> tokens;
  void null_value() override { tokens.push_back("null"); }
  void boolean(bool v) override { tokens.push_back(v ? "true" : "false"); }
  void integer(std::int64_t v) override { tokens.push_back("i:" + std::to_string(v)); }
  void unsigned_integer(std::uint64_t v) override { tokens.push_back("u:" + std::to_string(v)); }
  void floating(double v) override { tokens.push_back(as_float(v)); }
  void string(std::string_view v) override { tokens.push_back("s:" + std::string(v)); }
  void key(std::string_view v) override { tokens.push_back("k:" + std::string(v)); }
  void start_object() override { tokens.push_back("{"); }
  void end_object() override { tokens.push_back("}"); }
  void start_array() override { tokens.push_back("["); }
  void end_array() override { tokens.push_back("]"); }
};

struct Theirs {
  std::vector<std::string> tokens;
  std::size_t depth = 0;
  std::size_t max_depth = 0;
  bool null() { return add("null"); }
  bool boolean(bool v) { return add(v ? "true" : "false"); }
  bool number_integer(std::int64_t v) { return add("i:" + std::to_string(v)); }
  bool number_unsigned(std::uint64_t v) { return add("u:" + std::to_string(v)); }
  bool number_float(double v, const std::string&) { return add(as_float(v)); }
  bool string(std::string& v) { return add("s:" + v); }
  bool binary(nlohmann::json::binary_t&) { return true; }
  bool start_object(std::size_t) { return open("{"); }
  bool end_object() { return close("}"); }
  bool start_array(std::size_t) { return open("["); }
  bool end_array() { return close("]"); }
  bool key(std::string& v) { return add("k:" + v); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  bool add(std::string token) {
    tokens.push_back(std::move(token));
    return true;
  }
  bool open(const char* token) {
    max_depth = std::max(max_depth, ++depth);
    return add(token);
  }
  bool close(const char* token) {
    --depth;
    return add(token);
  }
};

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

void differential(std::string_view text) {
  Ours ours;
  bool ours_ok = true;
  std::string our_error;
  try {
    accel::replay::TraceSource source(text, "fuzz.json");
    accel::replay::read_json(source, ours);
  } catch (const TraceError& e) {
    ours_ok = false;
    our_error = e.what();
    if (our_error.rfind("fuzz.json:", 0) != 0 || our_error.find(": malformed JSON at byte ") ==
                                                      std::string::npos) {
      finding("a JSON error without its place", our_error);
    }
  }
  Theirs theirs;
  const bool theirs_ok = nlohmann::json::sax_parse(text.begin(), text.end(), &theirs);
  const bool bom = text.substr(0, 3) == "\xEF\xBB\xBF";
  if (ours_ok != theirs_ok) {
    if (bom || (theirs_ok && theirs.max_depth > accel::replay::kMaxDepth)) return;
    if (theirs_ok && our_error.find("unexpected byte 0x00") != std::string::npos) return;
    finding(ours_ok ? "accepted what nlohmann refuses" : "refused what nlohmann accepts",
            our_error);
  }
  if (ours_ok && ours.tokens != theirs.tokens) finding("tokens differ from nlohmann's", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  differential(text);
  for (int device : {0, 1}) {
    try {
      accel::replay::fuzz::check_trace(accel::replay::read_snapshot_text(text, "fuzz.json", device));
    } catch (const TraceError& e) {
      const std::string what = e.what();
      if (what.rfind("fuzz.json:", 0) != 0) finding("a TraceError without fuzz.json", what);
    } catch (const std::exception& e) {
      finding("the snapshot reader let a non-TraceError escape", e.what());
    }
  }
  return 0;
}
