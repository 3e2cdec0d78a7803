#pragma once
// Bounded YAML loading: the one way the project turns YAML text (a machine file, an inline
// machine, a scenario file) into a yaml-cpp node tree. Every reader calls load_yaml()
// instead of YAML::Load, then reads the tree it returns; what load_yaml refuses never
// reaches a reader. Target accel_common_yaml (it links yaml-cpp, which accel_common and
// the runtime must not).
//
// Note [Bounded YAML]
// YAML text can cost far more than its size, and a few of its features change what a
// reader sees without any error:
//   - An alias (*a) is a reference to an earlier node, so a reader that walks the tree
//     visits the anchored node once per alias: ten lines of aliases of aliases make
//     10^10 nodes to visit (the "alias bomb"; a 1 KB scenario of nested `guard` steps ran
//     for minutes and died with std::bad_alloc). An alias inside the node it names (&a
//     [*a]) is a cycle that no walk ever finishes.
//   - Nesting: yaml-cpp's parser recurses once per level (it gives up at 500 with "bad
//     file") and so does every reader that walks the tree.
//   - yaml-cpp's scanner keeps every token of a flow collection ([...], {...}) until the
//     collection ends (it might turn out to be a mapping key), about 140 bytes of memory
//     per byte of input: a 4 MiB run of '[' would take over half a gigabyte before the
//     first node is seen.
//   - A second document (after '---') is dropped by YAML::Load, and a tag (!!binary,
//     !custom) changes how a value is meant to be read, which no reader here honours.
// load_yaml therefore runs yaml-cpp's event parser over the text first, with a handler
// that counts every node (each alias as a whole copy of its anchor's node, so the count is
// what a reader will visit), measures nesting with aliases expanded, and refuses a cycle,
// a tag or a second document at the first event that shows it; and it hands the text to
// the scanner through a buffer that refuses to run more than kMaxYamlLookaheadBytes
// ahead of the last node the parser produced (lines that hold only a comment, or nothing,
// do not count: they make no tokens). Only text that passes is loaded with YAML::Load, so
// the tree a reader gets has at most `max_nodes` nodes to visit and `max_depth` levels.
//
// The limits (kYamlLimits) are far above any real file and far below what hurts: the
// largest machine and scenario files in the tree have about 110 nodes, 10 levels and no
// flow collection over 200 bytes; a 64-device machine file that overrides every device
// attribute has about 25,000 nodes. 100,000 nodes (about 20 MB of yaml-cpp nodes),
// 64 levels and 64 KiB of lookahead (about 9 MB of scanner tokens) leave room for
// generated files while keeping the worst input to well under a second and 100 MB.
//
// Errors: YamlError, with the 1-based line and a message in the readers' shape
// "(document): expected <what>, got '<value>'"; each reader wraps it in its own error type
// with its file name. Thread safety: reentrant (no shared state).

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace accel::common {

struct YamlLimits {
  std::size_t max_nodes;            // nodes a walk of the tree visits (aliases expanded)
  std::size_t max_depth;            // collections nested in one another (aliases expanded)
  std::size_t max_lookahead_bytes;  // how far the scanner may read past the last node
};

inline constexpr std::size_t kMaxYamlNodes = 100'000;
inline constexpr std::size_t kMaxYamlDepth = 64;
inline constexpr std::size_t kMaxYamlLookaheadBytes = std::size_t{64} << 10;
// The limits of every YAML file the project reads (Note [Bounded YAML]).
inline constexpr YamlLimits kYamlLimits{kMaxYamlNodes, kMaxYamlDepth, kMaxYamlLookaheadBytes};

// A YAML text that load_yaml refused. line() is 1-based (1 when the text gives none);
// what() is "(document): expected <what>, got '<value>'", without a file name.
class YamlError : public std::runtime_error {
 public:
  YamlError(int line, const std::string& message) : std::runtime_error(message), line_(line) {}
  int line() const noexcept { return line_; }

 private:
  int line_;
};

// The node tree of `text`, which must be valid YAML holding at most one document, without
// tags, within `limits` (Note [Bounded YAML]). An empty text, or one holding only
// comments, is a null node. Throws YamlError, and never a yaml-cpp exception.
YAML::Node load_yaml(std::string_view text, const YamlLimits& limits = kYamlLimits);

}  // namespace accel::common
