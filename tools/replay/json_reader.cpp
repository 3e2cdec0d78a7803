// The streaming JSON reader (json_reader.h, Note [A JSON reader of our own]).
#include "json_reader.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "trace.h"

namespace accel::replay {
namespace {

constexpr std::size_t kMaxStringBytes = std::size_t{16} << 20;  // a file name, a key
constexpr std::size_t kMaxNumberBytes = std::size_t{64} << 10;

// Bytes that end a run of plain string content: '"', '\\', control characters and every
// byte of a multi-byte UTF-8 sequence (checked one at a time).
constexpr std::array<bool, 256> special_string_bytes() {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return table;
}
constexpr std::array<bool, 256> kSpecial = special_string_bytes();

bool is_number_byte(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; sets `fraction_or_exponent`.
bool valid_number(std::string_view s, bool& fraction_or_exponent) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (s[i] >= '1' && s[i] <= '9') {
    while (i < n && is_digit(s[i])) ++i;
  } else {
    return false;
  }
  fraction_or_exponent = false;
  if (i < n && s[i] == '.') {
    ++i;
    fraction_or_exponent = true;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    fraction_or_exponent = true;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  return i == n;
}

void append_utf8(std::string& out, std::uint32_t code_point) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

class Reader {
 public:
  Reader(TraceSource& source, JsonHandler& handler) : source_(source), handler_(handler) {}

  void run() {
    enum class Expect { kValue, kValueOrEnd, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kDone };
    Expect expect = Expect::kValue;
    auto after_value = [&] { expect = stack_.empty() ? Expect::kDone : Expect::kCommaOrEnd; };
    while (true) {
      skip_whitespace();
      if (source_.at_end()) {
        switch (expect) {
          case Expect::kDone: return;
          case Expect::kValue:
          case Expect::kValueOrEnd: fail_at_end("a value");
          case Expect::kKeyOrEnd: fail_at_end("a key (a string) or '}'");
          case Expect::kKey: fail_at_end("a key (a string)");
          case Expect::kColon: fail_at_end("':'");
          case Expect::kCommaOrEnd: fail_at_end(stack_.back() ? "',' or '}'" : "',' or ']'");
        }
      }
      const char c = source_.peek();
      switch (expect) {
        case Expect::kDone:
          fail("unexpected " + describe(c) + " after the end of the document");
        case Expect::kValueOrEnd:
          if (c == ']') {
            close(false);
            after_value();
            break;
          }
          [[fallthrough]];
        case Expect::kValue:
          if (c == '{') {
            open(true);
            expect = Expect::kKeyOrEnd;
          } else if (c == '[') {
            open(false);
            expect = Expect::kValueOrEnd;
          } else {
            scalar(c);
            after_value();
          }
          break;
        case Expect::kKeyOrEnd:
          if (c == '}') {
            close(true);
            after_value();
            break;
          }
          [[fallthrough]];
        case Expect::kKey:
          if (c != '"') {
            fail("unexpected " + describe(c) + "; expected " +
                 (expect == Expect::kKey ? "a key (a string)" : "a key (a string) or '}'"));
          }
          read_string();
          handler_.key(text_);
          expect = Expect::kColon;
          break;
        case Expect::kColon:
          if (c != ':') fail("unexpected " + describe(c) + "; expected ':'");
          source_.advance();
          expect = Expect::kValue;
          break;
        case Expect::kCommaOrEnd: {
          const bool object = stack_.back();
          if (c == ',') {
            source_.advance();
            expect = object ? Expect::kKey : Expect::kValue;
          } else if (c == (object ? '}' : ']')) {
            close(object);
            after_value();
          } else {
            fail("unexpected " + describe(c) + "; expected " + (object ? "',' or '}'" : "',' or ']'"));
          }
          break;
        }
      }
    }
  }

 private:
  // "'x'" for a printable byte, else "byte 0xNN".
  static std::string describe(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F) return fmt::format("'{}'", c);
    return fmt::format("byte {:#04x}", u);
  }
  [[noreturn]] void fail_at(std::uint64_t byte, std::uint64_t line, std::string_view what) const {
    throw TraceError(
        fmt::format("{}:{}: malformed JSON at byte {}: {}", source_.name(), line, byte, what));
  }
  // At the next byte (not consumed yet).
  [[noreturn]] void fail(std::string_view what) const {
    fail_at(source_.consumed() + 1, source_.next_line(), what);
  }
  [[noreturn]] void fail_at_end(std::string_view expected) const {
    fail_at(source_.consumed(), source_.last_line(),
            fmt::format("unexpected end of input; expected {}", expected));
  }

  void skip_whitespace() {
    while (!source_.at_end()) {
      const char c = source_.peek();
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return;
      source_.advance();
    }
  }

  void open(bool object) {
    if (stack_.size() == kMaxDepth) {
      fail(fmt::format("arrays and objects nested deeper than {} levels", kMaxDepth));
    }
    source_.advance();
    stack_.push_back(object);
    if (object) {
      handler_.start_object();
    } else {
      handler_.start_array();
    }
  }
  void close(bool object) {
    source_.advance();
    stack_.pop_back();
    if (object) {
      handler_.end_object();
    } else {
      handler_.end_array();
    }
  }

  void scalar(char c) {
    if (c == '"') {
      read_string();
      handler_.string(text_);
    } else if (c == '-' || is_digit(c)) {
      read_number();
    } else if (c == 't') {
      read_literal("true");
      handler_.boolean(true);
    } else if (c == 'f') {
      read_literal("false");
      handler_.boolean(false);
    } else if (c == 'n') {
      read_literal("null");
      handler_.null_value();
    } else {
      fail("unexpected " + describe(c) + "; expected a value");
    }
  }

  void read_literal(std::string_view word) {
    for (const char expected : word) {
      if (source_.at_end()) fail_at_end(fmt::format("'{}'", word));
      if (source_.peek() != expected) {
        fail(fmt::format("unexpected {}; expected '{}'", describe(source_.peek()), word));
      }
      source_.advance();
    }
  }

  void read_number() {
    const std::uint64_t byte = source_.consumed() + 1;
    const std::uint64_t line = source_.next_line();
    number_.clear();
    while (true) {
      const std::string_view w = source_.window();
      std::size_t i = 0;
      while (i < w.size() && is_number_byte(w[i])) ++i;
      number_.append(w.data(), i);
      source_.skip_within_line(i);
      if (number_.size() > kMaxNumberBytes) {
        fail_at(byte, line, fmt::format("a number longer than {} characters", kMaxNumberBytes));
      }
      if (i < w.size() || w.empty()) break;
    }
    bool fraction_or_exponent = false;
    if (!valid_number(number_, fraction_or_exponent)) {
      fail_at(byte, line, fmt::format("invalid number '{}'", number_));
    }
    const char* first = number_.data();
    const char* last = first + number_.size();
    if (!fraction_or_exponent) {
      if (number_[0] == '-') {
        std::int64_t value = 0;
        if (std::from_chars(first, last, value).ec == std::errc()) {
          handler_.integer(value);
          return;
        }
      } else {
        std::uint64_t value = 0;
        if (std::from_chars(first, last, value).ec == std::errc()) {
          handler_.unsigned_integer(value);
          return;
        }
      }
    }
    // A fraction, an exponent, or an integer outside 64 bits: a double (the C locale's
    // strtod: the program never sets another).
    const double value = std::strtod(first, nullptr);
    if (!std::isfinite(value)) fail_at(byte, line, fmt::format("number out of range '{}'", number_));
    handler_.floating(value);
  }

  std::uint32_t hex4() {
    std::uint32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      if (source_.at_end()) fail_at_end("four hexadecimal digits after \\u");
      const char c = source_.peek();
      int digit = -1;
      if (c >= '0' && c <= '9') digit = c - '0';
      if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      if (digit < 0) fail("unexpected " + describe(c) + "; expected four hexadecimal digits after \\u");
      source_.skip_within_line(1);
      value = value * 16 + static_cast<std::uint32_t>(digit);
    }
    return value;
  }
  void read_escape() {
    source_.skip_within_line(1);  // the backslash
    if (source_.at_end()) fail_at_end("an escape sequence");
    const char c = source_.peek();
    switch (c) {
      case '"': text_ += '"'; break;
      case '\\': text_ += '\\'; break;
      case '/': text_ += '/'; break;
      case 'b': text_ += '\b'; break;
      case 'f': text_ += '\f'; break;
      case 'n': text_ += '\n'; break;
      case 'r': text_ += '\r'; break;
      case 't': text_ += '\t'; break;
      case 'u': {
        source_.skip_within_line(1);
        std::uint32_t unit = hex4();
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          fail(fmt::format("a lone low surrogate \\u{:04X} in a string", unit));
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          for (const char wanted : {'\\', 'u'}) {
            if (source_.at_end()) fail_at_end("a low surrogate after a high one");
            if (source_.peek() != wanted) {
              fail(fmt::format("a high surrogate \\u{:04X} not followed by a low one", unit));
            }
            source_.skip_within_line(1);
          }
          const std::uint32_t low = hex4();
          if (low < 0xDC00 || low > 0xDFFF) {
            fail(fmt::format("a high surrogate \\u{:04X} not followed by a low one", unit));
          }
          unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(text_, unit);
        return;
      }
      default: fail("invalid escape \\" + std::string(1, c) + " in a string");
    }
    source_.skip_within_line(1);
  }

  // A string, from its opening quote to its closing one, decoded into text_.
  void read_string() {
    source_.skip_within_line(1);  // the opening quote
    text_.clear();
    int continuation = 0;  // UTF-8 continuation bytes still due, and their allowed range
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    while (true) {
      const std::string_view w = source_.window();
      if (w.empty()) fail_at_end("'\"' to close the string");
      if (text_.size() > kMaxStringBytes) {
        fail(fmt::format("a string longer than {} bytes", kMaxStringBytes));
      }
      std::size_t run = 0;
      if (continuation == 0) {
        while (run < w.size() && !kSpecial[static_cast<unsigned char>(w[run])]) ++run;
        if (run > 0) {
          text_.append(w.data(), run);
          source_.skip_within_line(run);
          continue;
        }
      }
      const auto c = static_cast<unsigned char>(w[0]);
      if (continuation > 0) {
        if (c < low || c > high) fail("invalid UTF-8 in a string");
        --continuation;
        low = 0x80;
        high = 0xBF;
      } else if (c == '"') {
        source_.skip_within_line(1);
        return;
      } else if (c == '\\') {
        read_escape();
        continue;
      } else if (c < 0x20) {
        fail(fmt::format("control character U+{:04X} in a string (it must be escaped)",
                         static_cast<unsigned>(c)));
      } else if (c >= 0xC2 && c <= 0xDF) {
        continuation = 1;
      } else if (c >= 0xE0 && c <= 0xEF) {
        continuation = 2;
        if (c == 0xE0) low = 0xA0;   // no overlong forms
        if (c == 0xED) high = 0x9F;  // no surrogates
      } else if (c >= 0xF0 && c <= 0xF4) {
        continuation = 3;
        if (c == 0xF0) low = 0x90;   // no overlong forms
        if (c == 0xF4) high = 0x8F;  // nothing above U+10FFFF
      } else {
        fail("invalid UTF-8 in a string");
      }
      text_ += static_cast<char>(c);
      source_.skip_within_line(1);
    }
  }

  TraceSource& source_;
  JsonHandler& handler_;
  std::string text_;
  std::string number_;
  std::vector<bool> stack_;  // open containers: true = object
};

}  // namespace

void read_json(TraceSource& source, JsonHandler& handler) { Reader(source, handler).run(); }

}  // namespace accel::replay
