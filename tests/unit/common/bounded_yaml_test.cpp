// accel_common/bounded_yaml.h (Note [Bounded YAML]): each limit holds exactly at its
// value and refuses one more, with the line and the shape every reader prints; what
// YAML::Load would silently drop or misread (a second document, a tag, a cycle) is
// refused; comments cost nothing against the scanner's lookahead.
#include "accel_common/bounded_yaml.h"

#include <gtest/gtest.h>

#include <string>

namespace accel::common {
namespace {

std::string error_of(std::string_view text, const YamlLimits& limits = kYamlLimits) {
  try {
    (void)load_yaml(text, limits);
  } catch (const YamlError& e) {
    return std::to_string(e.line()) + ": " + e.what();
  }
  return "(no error)";
}

// A flow list of `n` scalars: n + 1 nodes.
std::string flat_list(std::size_t n) {
  std::string text = "[";
  for (std::size_t i = 0; i < n; ++i) text += i ? ",1" : "1";
  return text + "]";
}

TEST(BoundedYaml, TheDefaultLimitsAreTheDocumentedOnes) {
  EXPECT_EQ(kYamlLimits.max_nodes, 100000u);
  EXPECT_EQ(kYamlLimits.max_depth, 64u);
  EXPECT_EQ(kYamlLimits.max_lookahead_bytes, 65536u);
}

TEST(BoundedYaml, LoadsAnOrdinaryDocument) {
  const YAML::Node node = load_yaml("a: [1, 2]\nb: {c: d}\n");
  EXPECT_EQ(node["a"][1].as<int>(), 2);
  EXPECT_EQ(node["b"]["c"].as<std::string>(), "d");
  EXPECT_TRUE(load_yaml("").IsNull());
  EXPECT_TRUE(load_yaml("# only a comment\n").IsNull());
  // One document may say so explicitly, and end with '...'.
  EXPECT_EQ(load_yaml("---\na: 1\n...\n")["a"].as<int>(), 1);
}

TEST(BoundedYaml, NodesUpToTheLimitLoadAndOneMoreDoesNot) {
  const YamlLimits limits{11, 64, kMaxYamlLookaheadBytes};
  EXPECT_EQ(load_yaml(flat_list(10), limits).size(), 10u);
  EXPECT_EQ(error_of(flat_list(11), limits),
            "1: (document): expected at most 11 nodes, got more than 11 nodes");
  // Keys are nodes too: {a: 1} is three.
  EXPECT_EQ(error_of("{a: 1, b: 2}", YamlLimits{4, 64, kMaxYamlLookaheadBytes}),
            "1: (document): expected at most 4 nodes, got more than 4 nodes");
}

TEST(BoundedYaml, AliasesCountAsCopiesOfTheirAnchorsNode) {
  // &a names a 3-node list; each alias adds 3 more: 1 + 3 + 3 * 2 = 10 nodes.
  const std::string text = "[&a [1, 1], *a, *a]";
  EXPECT_EQ(load_yaml(text, YamlLimits{10, 64, kMaxYamlLookaheadBytes}).size(), 3u);
  EXPECT_EQ(error_of(text, YamlLimits{9, 64, kMaxYamlLookaheadBytes}),
            "1: (document): expected at most 9 nodes with every alias expanded, got aliases "
            "that expand to more than 9 nodes ('*a' here)");
  // The bomb: each line multiplies the one above by ten.
  std::string bomb = "- &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "- &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  EXPECT_EQ(error_of(bomb),
            "5: (document): expected at most 100000 nodes with every alias expanded, got aliases "
            "that expand to more than 100000 nodes ('*a3' here)");
}

TEST(BoundedYaml, AnAliasInsideTheNodeItNamesIsACycle) {
  EXPECT_EQ(error_of("a: &x [1, *x]\n"),
            "1: (document): expected an alias to a complete node, got '*x' inside the node it "
            "names (a cycle)");
  EXPECT_EQ(error_of("a: &x {b: {c: *x}}\n"),
            "1: (document): expected an alias to a complete node, got '*x' inside the node it "
            "names (a cycle)");
  // yaml-cpp's own error for an anchor never defined.
  EXPECT_EQ(error_of("a: *nowhere\n"),
            "1: (document): expected valid YAML, got 'the referenced anchor is not defined'");
}

TEST(BoundedYaml, NestingUpToTheLimitLoadsAndOneLevelMoreDoesNot) {
  auto nested = [](std::size_t levels) {
    return std::string(levels, '[') + std::string(levels, ']');
  };
  EXPECT_TRUE(load_yaml(nested(64)).IsSequence());
  EXPECT_EQ(error_of(nested(65)),
            "1: (document): expected nesting at most 64 levels deep, got nesting deeper than 64 "
            "levels");
  // Far past yaml-cpp's own guard (500 levels, "bad file"): the limit is still what is named.
  EXPECT_EQ(error_of("a:\n  b: " + nested(5000)),
            "2: (document): expected nesting at most 64 levels deep, got nesting deeper than 64 "
            "levels");
  // Block nesting counts the same.
  std::string block;
  for (int i = 0; i < 70; ++i) block += std::string(static_cast<std::size_t>(i) * 2, ' ') + "k:\n";
  EXPECT_EQ(error_of(block),
            "65: (document): expected nesting at most 64 levels deep, got nesting deeper than 64 "
            "levels");
}

TEST(BoundedYaml, NestingThroughAnAliasCountsTheAnchorsDepth) {
  // *a is 2 levels deep; used at depth 3 it reaches 5.
  const std::string text = "- &a [[1]]\n- [[*a]]\n";
  EXPECT_TRUE(load_yaml(text, YamlLimits{100, 5, kMaxYamlLookaheadBytes}).IsSequence());
  EXPECT_EQ(error_of(text, YamlLimits{100, 4, kMaxYamlLookaheadBytes}),
            "2: (document): expected nesting at most 4 levels deep, got nesting deeper than 4 "
            "levels (through the alias '*a')");
}

TEST(BoundedYaml, ASecondDocumentIsRefused) {
  EXPECT_EQ(error_of("a: 1\n---\nb: 2\n"),
            "2: (document): expected one YAML document, got a second one (a '---' line starts it)");
  EXPECT_EQ(error_of("a: 1\n...\n---\n"),
            "3: (document): expected one YAML document, got a second one (a '---' line starts it)");
}

TEST(BoundedYaml, TagsAreRefusedAsWritten) {
  EXPECT_EQ(error_of("a: !!binary aGk=\n"),
            "1: (document): expected a value without a YAML tag (no !!binary, !!str or !name), "
            "got '!!binary'");
  EXPECT_EQ(error_of("a: !!str 1\n"),
            "1: (document): expected a value without a YAML tag (no !!binary, !!str or !name), "
            "got '!!str'");
  EXPECT_EQ(error_of("a:\n  - !point {x: 1}\n"),
            "2: (document): expected a value without a YAML tag (no !!binary, !!str or !name), "
            "got '!point'");
  EXPECT_EQ(error_of("a: !<tag:example.com,2000:x> 1\n"),
            "1: (document): expected a value without a YAML tag (no !!binary, !!str or !name), "
            "got 'tag:example.com,2000:x'");
  // Quoting is not a tag.
  EXPECT_EQ(load_yaml("a: '1'\n")["a"].Tag(), "!");
}

TEST(BoundedYaml, TheScannerMayNotRunFarAheadOfTheLastNode) {
  const YamlLimits limits{kMaxYamlNodes, kMaxYamlDepth, 8192};
  // A flow collection is held whole by yaml-cpp's scanner until it ends.
  const std::string long_flow = "a: 1\nb: [[" + flat_list(5000) + "]]\n";
  EXPECT_EQ(error_of(long_flow, limits),
            "2: (document): expected a flow collection ([...] or {...}) or a scalar of at most "
            "8192 bytes, got a longer one after this line");
  EXPECT_EQ(error_of("a: '" + std::string(20000, 'x') + "'\n", limits),
            "1: (document): expected a flow collection ([...] or {...}) or a scalar of at most "
            "8192 bytes, got a longer one after this line");
  // A long block list is not held: every line is its own node.
  std::string block = "a:\n";
  for (int i = 0; i < 5000; ++i) block += "  - 1\n";
  EXPECT_EQ(load_yaml(block, limits)["a"].size(), 5000u);
  // Lines that hold only a comment or nothing make no tokens and do not count.
  std::string commented = "a: 1\n";
  for (int i = 0; i < 2000; ++i) commented += "   # a comment line of some length\n\n";
  commented += "b: 2\n";
  EXPECT_EQ(load_yaml(commented, limits)["b"].as<int>(), 2);
}

TEST(BoundedYaml, SyntaxErrorsNameTheLine) {
  EXPECT_EQ(error_of("a: [1, 2\nb: 3\n"),
            "2: (document): expected valid YAML, got 'end of sequence flow not found'");
  EXPECT_EQ(error_of("a: 1\n b: 2\n"),
            "2: (document): expected valid YAML, got 'illegal map value'");
}

}  // namespace
}  // namespace accel::common
