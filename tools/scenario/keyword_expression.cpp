#include "keyword_expression.h"

#include <algorithm>
#include <cctype>

namespace accel::scenario {

struct KeywordExpression::Node {
  enum class Kind { kName, kNot, kAnd, kOr } kind = Kind::kName;
  std::string name;  // kName: lower case
  std::shared_ptr<const Node> left, right;
};

namespace {

using Node = KeywordExpression::Node;
using NodePtr = std::shared_ptr<const Node>;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

struct Token {
  std::string text;        // "" at the end
  std::size_t column = 0;  // 1-based
};

// Words are runs of anything but blanks and parentheses, so ids such as "name[4xh100]"
// and globs' characters are plain names.
std::vector<Token> tokens_of(const std::string& text) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back(Token{std::string(1, c), i + 1});
      ++i;
    } else {
      const std::size_t start = i;
      while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '(' &&
             text[i] != ')') {
        ++i;
      }
      out.push_back(Token{text.substr(start, i - start), start + 1});
    }
  }
  out.push_back(Token{"", text.size() + 1});
  return out;
}

class Parser {
 public:
  explicit Parser(const std::string& text) : text_(text), tokens_(tokens_of(text)) {}

  NodePtr parse() {
    NodePtr root = parse_or();
    if (!peek().text.empty()) fail("'and', 'or' or the end");
    return root;
  }

 private:
  const Token& peek() const { return tokens_[at_]; }
  bool is_operator(const std::string& word) const {
    return word == "and" || word == "or" || word == "not";
  }

  [[noreturn]] void fail(const std::string& expected) const {
    const Token& t = peek();
    throw KeywordError("-k '" + text_ + "': at column " + std::to_string(t.column) + ": expected " +
                       expected + ", got " +
                       (t.text.empty() ? std::string("the end") : "'" + t.text + "'"));
  }

  NodePtr binary(Node::Kind kind, NodePtr left, NodePtr right) {
    auto n = std::make_shared<Node>();
    n->kind = kind;
    n->left = std::move(left);
    n->right = std::move(right);
    return n;
  }

  NodePtr parse_or() {
    NodePtr left = parse_and();
    while (peek().text == "or") {
      ++at_;
      left = binary(Node::Kind::kOr, left, parse_and());
    }
    return left;
  }

  NodePtr parse_and() {
    NodePtr left = parse_not();
    while (peek().text == "and") {
      ++at_;
      left = binary(Node::Kind::kAnd, left, parse_not());
    }
    return left;
  }

  NodePtr parse_not() {
    const Token& t = peek();
    if (t.text == "not") {
      ++at_;
      return binary(Node::Kind::kNot, parse_not(), nullptr);
    }
    if (t.text == "(") {
      const std::size_t open = t.column;
      ++at_;
      NodePtr inner = parse_or();
      if (peek().text != ")") {
        fail("')' closing the '(' at column " + std::to_string(open));
      }
      ++at_;
      return inner;
    }
    if (t.text.empty() || t.text == ")" || is_operator(t.text)) fail("a name, 'not' or '('");
    auto n = std::make_shared<Node>();
    n->name = lower(t.text);
    ++at_;
    return n;
  }

  const std::string& text_;
  std::vector<Token> tokens_;
  std::size_t at_ = 0;
};

bool evaluate(const Node& n, const std::string& id, const std::vector<std::string>& tags) {
  switch (n.kind) {
    case Node::Kind::kName:
      return id.find(n.name) != std::string::npos ||
             std::find(tags.begin(), tags.end(), n.name) != tags.end();
    case Node::Kind::kNot:
      return !evaluate(*n.left, id, tags);
    case Node::Kind::kAnd:
      return evaluate(*n.left, id, tags) && evaluate(*n.right, id, tags);
    case Node::Kind::kOr:
      return evaluate(*n.left, id, tags) || evaluate(*n.right, id, tags);
  }
  return false;
}

}  // namespace

KeywordExpression KeywordExpression::parse(const std::string& text) {
  KeywordExpression e;
  e.text_ = text;
  e.root_ = Parser(text).parse();
  return e;
}

bool KeywordExpression::matches(const std::string& id, const std::vector<std::string>& tags) const {
  std::vector<std::string> lowered;
  lowered.reserve(tags.size());
  for (const std::string& t : tags) lowered.push_back(lower(t));
  return evaluate(*root_, lower(id), lowered);
}

}  // namespace accel::scenario
