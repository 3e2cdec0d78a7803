#pragma once
// `-k EXPR`, pytest's keyword expressions (docs/SCENARIOS.md, "Selection"): names joined by
// `and`, `or`, `not` and parentheses, e.g. `-k 'guard and not fork'`. A name matches a case
// when it is a substring of the case's id ("name" or "name[machine]") or equals one of its
// tags, ignoring case as pytest does. Precedence as pytest's (and Python's): not, then
// and, then or. Values only; thread-safe.

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace accel::scenario {

// A malformed expression: what() is the whole message, e.g.
// "-k 'guard and': at column 10: expected a name, 'not' or '(', got the end".
class KeywordError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class KeywordExpression {
 public:
  // Parses `text`. Throws KeywordError.
  static KeywordExpression parse(const std::string& text);

  // Whether a case with this id and these tags matches.
  bool matches(const std::string& id, const std::vector<std::string>& tags) const;
  const std::string& text() const { return text_; }

  struct Node;  // the parsed tree (keyword_expression.cpp)

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace accel::scenario
