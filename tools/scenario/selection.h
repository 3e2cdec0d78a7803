#pragma once
// Which of the scenarios read from the command line run: `--tag TAG`, `--name PATTERN`,
// `-k EXPR` and `--shard I/N` (docs/SCENARIOS.md, "Selection"). The candidates are cases:
// with `--machine`, each scenario once per machine ("name[4xh100]"), so every filter sees
// the case ids. A selection that picks nothing is a usage
// error, never a run of 0 scenarios that passes: a typo in a CI switch (`--tag swep`) must
// fail the job. The message names the option and its value, and the closest tags or names
// that exist. Pure functions; thread-safe.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "command_options.h"
#include "keyword_expression.h"
#include "scenario.h"

namespace accel::scenario {

// A selection that picks nothing: what() is the whole message, e.g.
// "--tag 'swep' matches no scenario (closest: sweep; tags: fork, sweep)".
class SelectionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Selection {
  std::optional<std::string> tag;   // only scenarios carrying this tag
  std::optional<std::string> name;  // only those whose name or case id matches (glob: * ? [...])
  std::optional<KeywordExpression> keyword;  // -k: only cases the expression matches
  Shard shard;                               // then every count-th of the sorted list from index
};

// The scenarios of `all` (in their order) that `selection` picks. Throws SelectionError
// when the tag, the name, the keyword expression, several together or the shard leave none; `all`
// itself may not be empty (the file search refuses a directory without scenarios).
std::vector<Scenario> select_scenarios(std::vector<Scenario> all, const Selection& selection);

}  // namespace accel::scenario
