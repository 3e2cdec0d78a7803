#pragma once
// JsonWriter: a small streaming JSON writer for the `accel` tool's --json output.
//
// Writes objects, arrays, strings, numbers and booleans to a std::ostream with
// two-space indentation, escaping strings per RFC 8259 (quotes, backslashes, control
// characters as \uXXXX; bytes >= 0x80 pass through unchanged, so UTF-8 stays UTF-8).
// The writer tracks nesting so commas and keys are placed correctly; misuse (a value
// without a key inside an object, an unbalanced end) is a programming error and
// throws std::logic_error. Not thread-safe; one writer per output.

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace accel::tools {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out) : out_(out) {}

  void begin_object();
  void end_object();
  void begin_array();
  void end_array();

  // Names the next value; only inside an object.
  void key(std::string_view name);

  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void value(bool flag);
  void value(std::int64_t number);
  void value(std::uint64_t number);
  void value(int number) { value(static_cast<std::int64_t>(number)); }
  void null();

  // Shorthands for key(name) followed by value(v).
  template <class T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }

  // True when every begun object and array has been ended.
  bool complete() const noexcept { return stack_.empty() && wrote_root_; }

 private:
  enum class Scope { kObject, kArray };
  struct Frame {
    Scope scope;
    bool has_items = false;
    bool key_pending = false;
  };

  void before_value();
  void open(Scope scope, char bracket);
  void close(Scope scope, char bracket);
  void newline_indent();

  std::ostream& out_;
  std::vector<Frame> stack_;
  bool wrote_root_ = false;
};

// `text` as a quoted JSON string literal.
std::string json_quote(std::string_view text);

}  // namespace accel::tools
