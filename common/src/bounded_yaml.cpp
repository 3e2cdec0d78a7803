// Bounded YAML loading (Note [Bounded YAML] in accel_common/bounded_yaml.h).
#include "accel_common/bounded_yaml.h"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <deque>
#include <istream>
#include <optional>
#include <streambuf>
#include <unordered_map>
#include <utility>
#include <vector>

#include "accel_common/printable.h"

namespace accel::common {
namespace {

int line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 1; }

[[noreturn]] void refuse(int line, const std::string& what, const std::string& got) {
  throw YamlError(line, "(document): expected " + what + ", got " + got);
}

// The text, handed to yaml-cpp's scanner a chunk at a time, never more than `budget`
// counted bytes past the position of the last event (see the note). A byte counts unless
// its line holds only blanks and a comment: such lines make no tokens, so a long comment
// costs the scanner nothing. Throws YamlError when the scanner asks for more.
class LookaheadBuffer final : public std::streambuf {
 public:
  LookaheadBuffer(std::string_view text, std::size_t budget) : text_(text), budget_(budget) {
    char* begin = const_cast<char*>(text_.data());
    setg(begin, begin, begin);
  }

  // The parser produced an event at byte `offset` (line `line`): the lookahead restarts
  // from the chunk that holds it.
  void reached(std::size_t offset, int line) {
    last_line_ = line;
    while (checkpoints_.size() > 1 && checkpoints_[1].first <= offset) checkpoints_.pop_front();
  }

 protected:
  int_type underflow() override {
    const std::size_t at = static_cast<std::size_t>(gptr() - text_.data());
    if (at >= text_.size()) return traits_type::eof();
    const std::size_t end = std::min(text_.size(), at + kChunkBytes);
    checkpoints_.emplace_back(at, counted_);
    count(text_.substr(at, end - at));
    const std::size_t since_event = counted_ - checkpoints_.front().second;
    if (since_event > budget_) {
      refuse(last_line_,
             "a flow collection ([...] or {...}) or a scalar of at most " +
                 std::to_string(budget_) + " bytes",
             "a longer one after this line");
    }
    char* begin = const_cast<char*>(text_.data());
    setg(begin, begin + at, begin + end);
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr std::size_t kChunkBytes = 4096;

  // Adds the bytes of `chunk` that are on lines with a token to counted_ (leading blanks
  // excepted: where a line's first token starts does not matter).
  void count(std::string_view chunk) {
    for (char c : chunk) {
      if (c == '\n') {
        if (line_has_token_) ++counted_;
        line_start_ = true;
        line_has_token_ = false;
        continue;
      }
      if (line_start_) {
        if (c == ' ' || c == '\t' || c == '\r') continue;
        line_start_ = false;
        line_has_token_ = c != '#';
      }
      if (line_has_token_) ++counted_;
    }
  }

  std::string_view text_;
  std::size_t budget_;
  std::size_t counted_ = 0;  // counted bytes handed out so far
  bool line_start_ = true;   // only blanks so far on this line
  bool line_has_token_ = false;
  int last_line_ = 1;
  // (offset, counted_) at the start of each chunk handed out since the last event.
  std::deque<std::pair<std::size_t, std::size_t>> checkpoints_{{0, 0}};
};

// "!!binary" for yaml-cpp's "tag:yaml.org,2002:binary": a tag as it was written.
std::string written_tag(const std::string& tag) {
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  if (tag.rfind(kCore, 0) == 0) return "!!" + tag.substr(kCore.size());
  return tag;
}

// The event pass of the note: counts, nesting, tags, cycles and documents.
class LimitChecker final : public YAML::EventHandler {
 public:
  LimitChecker(const YamlLimits& limits, LookaheadBuffer& buffer)
      : limits_(limits), buffer_(buffer) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    seen(mark);
    if (++documents_ > 1) {
      refuse(line_of(mark), "one YAML document", "a second one (a '---' line starts it)");
    }
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string&) override {
    check_tag(mark, tag);
    leaf(mark, anchor);
  }
  void OnAnchor(const YAML::Mark&, const std::string& name) override { anchor_name_ = name; }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    seen(mark);
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      // yaml-cpp knows the anchor (it reports unknown ones itself) but its node has not
      // ended: the alias is inside the node it names.
      refuse(line_of(mark), "an alias to a complete node",
             "'*" + name_of(anchor) + "' inside the node it names (a cycle)");
    }
    const Subtree subtree = it->second;
    expanded_ += subtree.nodes;
    if (expanded_ > limits_.max_nodes) {
      refuse(line_of(mark),
             "at most " + std::to_string(limits_.max_nodes) + " nodes with every alias expanded",
             "aliases that expand to more than " + std::to_string(limits_.max_nodes) +
                 " nodes ('*" + name_of(anchor) + "' here)");
    }
    if (open_.size() + subtree.height > limits_.max_depth) {
      refuse(line_of(mark), nesting_what(),
             "nesting deeper than " + std::to_string(limits_.max_depth) +
                 " levels (through the alias '*" + name_of(anchor) + "')");
    }
    finished(subtree);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, tag, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, tag, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Subtree {
    std::size_t nodes = 1;   // nodes a walk visits, this one included
    std::size_t height = 0;  // collection levels inside it, this one included
  };
  struct Open {
    YAML::anchor_t anchor;
    Subtree subtree;
  };

  void seen(const YAML::Mark& mark) {
    if (mark.pos >= 0) buffer_.reached(static_cast<std::size_t>(mark.pos), line_of(mark));
  }

  void check_tag(const YAML::Mark& mark, const std::string& tag) const {
    // "?" and "!" are the non-specific tags yaml-cpp gives untagged plain and quoted values.
    if (tag != "?" && tag != "!") {
      refuse(line_of(mark), "a value without a YAML tag (no !!binary, !!str or !name)",
             "'" + printable(written_tag(tag)) + "'");
    }
  }

  std::string nesting_what() const {
    return "nesting at most " + std::to_string(limits_.max_depth) + " levels deep";
  }

  // One more node as written; an anchor on it is named from now on.
  void count_node(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark);
    if (anchor != YAML::NullAnchor && !anchor_name_.empty()) names_[anchor] = anchor_name_;
    anchor_name_.clear();
    ++written_;
    ++expanded_;
    if (written_ > limits_.max_nodes) {
      refuse(line_of(mark), "at most " + std::to_string(limits_.max_nodes) + " nodes",
             "more than " + std::to_string(limits_.max_nodes) + " nodes");
    }
    if (expanded_ > limits_.max_nodes) {
      refuse(line_of(mark),
             "at most " + std::to_string(limits_.max_nodes) + " nodes with every alias expanded",
             "aliases that expand to more than " + std::to_string(limits_.max_nodes) + " nodes");
    }
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    count_node(mark, anchor);
    const Subtree subtree;
    if (anchor != YAML::NullAnchor) anchors_[anchor] = subtree;
    finished(subtree);
  }

  void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor) {
    check_tag(mark, tag);
    count_node(mark, anchor);
    if (open_.size() + 1 > limits_.max_depth) {
      refuse(line_of(mark), nesting_what(),
             "nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    }
    open_.push_back({anchor, Subtree{1, 1}});
  }

  void close() {
    const Open done = open_.back();
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) anchors_[done.anchor] = done.subtree;
    finished(done.subtree);
  }

  // A complete node (or an alias standing for one) joins the collection that holds it.
  void finished(const Subtree& subtree) {
    if (open_.empty()) return;
    Subtree& parent = open_.back().subtree;
    parent.nodes += subtree.nodes;
    parent.height = std::max(parent.height, subtree.height + 1);
  }

  std::string name_of(YAML::anchor_t anchor) const {
    const auto it = names_.find(anchor);
    return printable(it != names_.end() ? it->second : std::to_string(anchor));
  }

  const YamlLimits& limits_;
  LookaheadBuffer& buffer_;
  std::vector<Open> open_;
  std::unordered_map<YAML::anchor_t, Subtree> anchors_;  // anchors whose node has ended
  std::unordered_map<YAML::anchor_t, std::string> names_;
  std::string anchor_name_;  // from OnAnchor, for the node event that follows it
  std::size_t written_ = 0;
  std::size_t expanded_ = 0;
  int documents_ = 0;
};

void check(std::string_view text, const YamlLimits& limits) {
  LookaheadBuffer buffer(text, limits.max_lookahead_bytes);
  std::istream in(&buffer);
  in.exceptions(std::ios::badbit);  // an error from the buffer reaches us, not a flag
  YAML::Parser parser(in);
  LimitChecker checker(limits, buffer);
  while (parser.HandleNextDocument(checker)) {
  }
}

}  // namespace

YAML::Node load_yaml(std::string_view text, const YamlLimits& limits) {
  try {
    check(text, limits);
    return YAML::Load(std::string(text));
  } catch (const YamlError&) {
    throw;
  } catch (const YAML::Exception& e) {
    refuse(line_of(e.mark), "valid YAML", "'" + printable(e.msg) + "'");
  } catch (const std::ios_base::failure&) {
    // The stream reports an error of its buffer this way when the library catches it.
    refuse(1, "valid YAML", "'an unreadable stream'");
  }
}

}  // namespace accel::common
