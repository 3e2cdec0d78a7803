#include "json_writer.h"

#include <cstdio>
#include <stdexcept>

namespace accel::tools {

std::string json_quote(std::string_view text) {
  std::string quoted;
  quoted.reserve(text.size() + 2);
  quoted.push_back('"');
  for (char c : text) {
    switch (c) {
      case '"':
        quoted += "\\\"";
        break;
      case '\\':
        quoted += "\\\\";
        break;
      case '\b':
        quoted += "\\b";
        break;
      case '\f':
        quoted += "\\f";
        break;
      case '\n':
        quoted += "\\n";
        break;
      case '\r':
        quoted += "\\r";
        break;
      case '\t':
        quoted += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[7];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          quoted += escaped;
        } else {
          quoted.push_back(c);
        }
    }
  }
  quoted.push_back('"');
  return quoted;
}

void JsonWriter::newline_indent() {
  out_ << '\n';
  for (std::size_t i = 0; i < stack_.size(); ++i) out_ << "  ";
}

void JsonWriter::before_value() {
  if (stack_.empty()) {
    if (wrote_root_) throw std::logic_error("JsonWriter: a second root value");
    wrote_root_ = true;
    return;
  }
  Frame& top = stack_.back();
  if (top.scope == Scope::kObject) {
    if (!top.key_pending) throw std::logic_error("JsonWriter: object value without a key");
    top.key_pending = false;
    return;
  }
  if (top.has_items) out_ << ',';
  top.has_items = true;
  newline_indent();
}

void JsonWriter::key(std::string_view name) {
  if (stack_.empty() || stack_.back().scope != Scope::kObject || stack_.back().key_pending) {
    throw std::logic_error("JsonWriter: key outside an object");
  }
  Frame& top = stack_.back();
  if (top.has_items) out_ << ',';
  top.has_items = true;
  top.key_pending = true;
  newline_indent();
  out_ << json_quote(name) << ": ";
}

void JsonWriter::open(Scope scope, char bracket) {
  before_value();
  out_ << bracket;
  stack_.push_back(Frame{scope});
}

void JsonWriter::close(Scope scope, char bracket) {
  if (stack_.empty() || stack_.back().scope != scope || stack_.back().key_pending) {
    throw std::logic_error("JsonWriter: unbalanced end");
  }
  const bool had_items = stack_.back().has_items;
  stack_.pop_back();
  if (had_items) newline_indent();
  out_ << bracket;
  if (stack_.empty()) out_ << '\n';
}

void JsonWriter::begin_object() { open(Scope::kObject, '{'); }
void JsonWriter::end_object() { close(Scope::kObject, '}'); }
void JsonWriter::begin_array() { open(Scope::kArray, '['); }
void JsonWriter::end_array() { close(Scope::kArray, ']'); }

void JsonWriter::value(std::string_view text) {
  before_value();
  out_ << json_quote(text);
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ << (flag ? "true" : "false");
}

void JsonWriter::value(std::int64_t number) {
  before_value();
  out_ << number;
}

void JsonWriter::value(std::uint64_t number) {
  before_value();
  out_ << number;
}

void JsonWriter::null() {
  before_value();
  out_ << "null";
}

}  // namespace accel::tools
