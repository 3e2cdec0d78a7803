#pragma once
// The scenario runner: `accel scenario run FILE|DIR... [--junit FILE] [--seed N]
// [--shard I/N] [--timeout S]`. Every file is read and checked first (any error stops the
// run before a scenario starts); then each scenario of this shard runs in a process of its
// own (isolated.h), one at a time, under its timeout.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace accel::scenario {

struct Shard {
  int index = 0;  // 0-based
  int count = 1;
};

// "I/N" with 0 <= I < N; nullopt for anything else.
std::optional<Shard> parse_shard(const std::string& text);

struct RunnerOptions {
  std::optional<std::string> junit;  // write JUnit XML here
  std::uint64_t seed = 0;
  Shard shard;
  std::optional<int> timeout_seconds;  // overrides every scenario's `timeout:`
  std::optional<std::string> tag;      // only scenarios carrying this tag
};

// Exit status: 0 every scenario passed, 1 one failed or timed out, 2 a scenario file is
// malformed (nothing ran).
int run_scenarios(const std::vector<std::string>& paths, const RunnerOptions& options,
                  std::ostream& out, std::ostream& err);

// Reads and checks the files only (`accel scenario check`). Exit status 0 or 2.
int check_scenarios(const std::vector<std::string>& paths, std::ostream& out, std::ostream& err);

// Fault sweeps (`accel scenario sweep FILE...`, docs/SCENARIOS.md): each scenario once per
// driver call its steps make, that call failing. Exit status 0 no violation, 1 some, 2 a
// malformed file.
int sweep_scenarios(const std::vector<std::string>& paths, const RunnerOptions& options,
                    std::ostream& out, std::ostream& err);

}  // namespace accel::scenario
