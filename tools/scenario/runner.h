#pragma once
// The scenario runner: `accel scenario run FILE|DIR... [--junit FILE] [--seed N]
// [--shard I/N] [--timeout S] [--tag TAG] [--name PATTERN] [-k EXPR] [--machine M,...]
// [--list]`. Every file is read and checked first (once per --machine, against that
// machine), then the selection and the run's settings (selection.h, preflight.h); any
// problem stops the run before a scenario starts. Then each selected case runs in a process
// of its own (isolated.h), one at a time, under its timeout; a `skip:` case does not run,
// an `xfail:` case passes by failing (docs/SCENARIOS.md, "Selection").

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "selection.h"

namespace accel::scenario {

struct RunnerOptions {
  std::optional<std::string> junit;  // write JUnit XML here
  std::uint64_t seed = 0;
  Selection selection;
  std::optional<int> timeout_seconds;   // overrides every scenario's `timeout:`
  std::vector<MachineChoice> machines;  // --machine: each scenario once per machine
  bool list = false;                    // --list: print the selected cases, run nothing
};

// Exit status: 0 every scenario passed (or was skipped, or xfailed), 1 one failed, timed
// out or passed although marked xfail (XPASS), 2 a scenario file is malformed or the
// options or the environment cannot work (nothing ran). With options.list: prints the
// selected cases, exit status 0 or 2.
int run_scenarios(const std::vector<std::string>& paths, const RunnerOptions& options,
                  std::ostream& out, std::ostream& err);

// Reads and checks the files only (`accel scenario check`). Exit status 0 or 2.
int check_scenarios(const std::vector<std::string>& paths, std::ostream& out, std::ostream& err);

// Fault sweeps (`accel scenario sweep FILE...`, docs/SCENARIOS.md): each scenario once per
// driver call its steps make, that call failing. Exit status 0 no violation, 1 some, 2 as
// for run_scenarios.
int sweep_scenarios(const std::vector<std::string>& paths, const RunnerOptions& options,
                    std::ostream& out, std::ostream& err);

}  // namespace accel::scenario
