#include "runner.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "executor.h"
#include "isolated.h"
#include "junit.h"
#include "mockdev/races.h"
#include "preflight.h"
#include "scenario_file.h"
#include "step_registry.h"
#include "sweep_rules.h"

namespace accel::scenario {
namespace {

// Reads every file (once per --machine, each case checked against its machine); the first
// malformed one is reported and nothing runs.
bool load_all(const std::vector<std::string>& paths, const std::vector<MachineChoice>& machines,
              std::vector<Scenario>& scenarios, std::ostream& err) {
  const MachineChoice* current = nullptr;
  try {
    for (const std::string& file : collect_scenario_files(paths)) {
      if (machines.empty()) scenarios.push_back(load_scenario(file, StepRegistry::global()));
      for (const MachineChoice& m : machines) {
        current = &m;
        scenarios.push_back(load_scenario(file, StepRegistry::global(), &m));
      }
      current = nullptr;
    }
  } catch (const ScenarioError& e) {
    err << "accel scenario: " << e.what()
        << (current != nullptr ? " (on --machine " + current->id + ")" : std::string()) << "\n";
    return false;
  }
  if (const std::optional<std::string> error = thread_limit_error(scenarios)) {
    err << "accel scenario: " << *error << "\n";
    return false;
  }
  return true;
}

// What the runner checked before the first scenario starts.
struct Prepared {
  std::vector<Scenario> scenarios;  // the selection
  std::optional<JunitFile> junit;
  TraceTarget trace;  // held open until the run ends
};

// Reads the files, then checks the environment, the selection, MOCKDEV_TRACE and --junit
// (preflight.h); nullopt when something cannot work (said on `err`: exit status 2).
std::optional<Prepared> prepare(const std::vector<std::string>& paths,
                                const RunnerOptions& options, bool sweep, std::ostream& err) {
  std::vector<Scenario> all;
  if (!load_all(paths, options.machines, all, err)) return std::nullopt;
  auto refuse = [&](const std::string& message) {
    err << "accel scenario: " << message << "\n";
    return std::nullopt;
  };
  if (const std::optional<std::string> refused = refused_environment()) return refuse(*refused);
  Prepared p;
  try {
    p.scenarios = select_scenarios(std::move(all), options.selection);
  } catch (const SelectionError& e) {
    return refuse(e.what());
  }
  if (options.list) return p;  // nothing runs: no trace, no JUnit file
  std::string error;
  std::optional<TraceTarget> trace = open_trace_target(p.scenarios.size(), sweep, error);
  if (!trace) return refuse(error);
  p.trace = std::move(*trace);
  if (options.junit) {
    p.junit = JunitFile::open(*options.junit, error);
    if (!p.junit) return refuse(error);
  }
  return p;
}

std::string seconds_text(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f s", s);
  return buffer;
}

// How a scenario process ended, for reports ("" when it passed).
std::string problem(const ChildResult& r, int timeout) {
  if (r.timed_out) return "timed out: stopped after " + std::to_string(timeout) + " s";
  if (r.signal != 0) return "crashed: killed by signal " + std::to_string(r.signal);
  if (r.exit_status == mockdev::control::kRaceFailureExitStatus) {
    return "failed: races found under the race policy 'fail' (exit status " +
           std::to_string(r.exit_status) + ")";
  }
  if (r.exit_status != 0) return "failed";
  return "";
}

}  // namespace

int check_scenarios(const std::vector<std::string>& paths, std::ostream& out, std::ostream& err) {
  std::vector<Scenario> scenarios;
  if (!load_all(paths, {}, scenarios, err)) return 2;
  std::size_t steps = 0;
  for (const Scenario& s : scenarios) steps += s.steps.size();
  out << scenarios.size() << " scenario file(s) well-formed, " << steps << " steps\n";
  return 0;
}

namespace {

// --list: one line per selected case, as the run would name it.
int list_cases(const std::vector<Scenario>& scenarios, std::ostream& out) {
  for (const Scenario& s : scenarios) {
    out << s.name << " (" << s.file << ")";
    if (s.skip) out << " skip: " << *s.skip;
    if (s.xfail) out << " xfail: " << *s.xfail;
    out << "\n";
  }
  out << scenarios.size() << " scenario(s) selected\n";
  return 0;
}

// The JUnit message of a failure: the problem, and which step and expectation failed.
std::string junit_message(const std::string& what, const std::string& output) {
  const std::string summary = failure_summary(output);
  return summary.empty() ? what : what + ": " + summary;
}

}  // namespace

int run_scenarios(const std::vector<std::string>& paths, const RunnerOptions& options,
                  std::ostream& out, std::ostream& err) {
  std::optional<Prepared> prepared = prepare(paths, options, /*sweep=*/false, err);
  if (!prepared) return 2;
  const std::vector<Scenario>& scenarios = prepared->scenarios;
  if (options.list) return list_cases(scenarios, out);
  JunitSuite suite{"accel.scenarios", {}};
  int failed = 0, skipped = 0, xfailed = 0;
  for (const Scenario& s : scenarios) {
    if (s.skip) {
      ++skipped;
      out << "SKIP " << s.name << " (" << s.file << "): " << *s.skip << "\n";
      JunitCase c{s.name, s.file, 0.0, "", false, "", *s.skip, false};
      suite.cases.push_back(c);
      continue;
    }
    const int timeout = options.timeout_seconds.value_or(s.timeout_seconds);
    ExecuteOptions exec;
    exec.seed = options.seed;
    const ChildResult r =
        run_isolated([&] { return execute(s, exec, std::cout); }, timeout);
    const std::string what = problem(r, timeout);
    const bool error = r.timed_out || r.signal != 0;
    JunitCase c{s.name, s.file, r.seconds, "", error, r.output, std::nullopt, false};
    if (s.xfail && !what.empty() && !error) {
      // Expected: the report stays in the JUnit file, the text says only that it failed.
      ++xfailed;
      out << "XFAIL " << s.name << " (" << s.file << ", " << seconds_text(r.seconds)
          << "): " << *s.xfail << "\n";
      c.skipped = "expected failure: " + *s.xfail;
      c.xfail = true;
      c.output = junit_message(what, r.output);
    } else if (s.xfail && what.empty()) {
      // pytest's strict xfail: a behaviour marked broken that now holds must be unmarked.
      ++failed;
      c.problem = "XPASS: every step held, but the scenario is marked xfail: " + *s.xfail;
      out << "XPASS " << s.name << " (" << s.file << ", " << seconds_text(r.seconds)
          << "): every step held, but the scenario is marked xfail (" << *s.xfail
          << "): remove `xfail:`\n";
    } else if (what.empty()) {
      out << "PASS " << s.name << " (" << s.file << ", " << seconds_text(r.seconds) << ")\n";
    } else {
      ++failed;
      c.problem = junit_message(what, r.output);
      out << "FAIL " << s.name << " (" << s.file << "): " << what << "\n" << r.output;
      if (!r.output.empty() && r.output.back() != '\n') out << "\n";
    }
    suite.cases.push_back(c);
  }
  const int passed = static_cast<int>(scenarios.size()) - failed - skipped - xfailed;
  out << scenarios.size() << " scenario(s): " << passed << " passed, " << failed << " failed";
  if (skipped > 0) out << ", " << skipped << " skipped";
  if (xfailed > 0) out << ", " << xfailed << " xfailed";
  const Shard& shard = options.selection.shard;
  if (shard.count > 1) out << " (shard " << shard.index << "/" << shard.count << ")";
  out << ", seed " << options.seed << "\n";
  if (prepared->junit && !prepared->junit->write(suite, options.seed, err)) return 2;
  return failed == 0 ? 0 : 1;
}

namespace {

std::optional<nlohmann::json> sweep_result(const std::string& output) {
  const std::string marker = "SWEEP-RESULT ";
  const std::size_t at = output.rfind(marker);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t end = output.find('\n', at);
  try {
    return nlohmann::json::parse(output.substr(at + marker.size(), end - at - marker.size()));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The lines of a run's output that report violations.
std::vector<std::string> violation_lines(const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VIOLATION: ", 0) == 0) lines.push_back(line.substr(11));
  }
  return lines;
}

}  // namespace

int sweep_scenarios(const std::vector<std::string>& paths, const RunnerOptions& options,
                    std::ostream& out, std::ostream& err) {
  std::optional<Prepared> prepared = prepare(paths, options, /*sweep=*/true, err);
  if (!prepared) return 2;
  const std::vector<Scenario>& scenarios = prepared->scenarios;
  if (options.list) return list_cases(scenarios, out);
  JunitSuite suite{"accel.scenario_sweeps", {}};
  std::size_t total_violations = 0;
  for (const Scenario& s : scenarios) {
    if (s.skip) {
      out << "SKIP " << s.name << " (" << s.file << "): " << *s.skip << "\n";
      suite.cases.push_back(JunitCase{s.name, s.file, 0.0, "", false, "", *s.skip, false});
      continue;
    }
    const int timeout = options.timeout_seconds.value_or(s.timeout_seconds);
    ExecuteOptions exec;
    exec.seed = options.seed;
    exec.sweep = true;
    const ChildResult base = run_isolated([&] { return execute(s, exec, std::cout); }, timeout);
    const std::optional<nlohmann::json> base_result = sweep_result(base.output);
    std::vector<std::string> violations;
    std::size_t swept = 0;
    std::set<std::string> entries;
    if (!base_result || !problem(base, timeout).empty()) {
      violations.push_back("the run without a fault: " +
                           (problem(base, timeout).empty() ? "no result"
                                                           : problem(base, timeout)) +
                           "\n" + base.output);
    } else {
      for (const auto& [entry, count] : (*base_result)["calls"].items()) {
        if (!sweepable(entry)) continue;
        const std::uint64_t n = count.get<std::uint64_t>();
        for (std::uint64_t k = 1; k <= n; ++k) {
          ExecuteOptions faulted = exec;
          faulted.fault = InjectedFault{entry, k, representative_code(entry)};
          const ChildResult r =
              run_isolated([&] { return execute(s, faulted, std::cout); }, timeout);
          ++swept;
          entries.insert(entry);
          const std::string call = entry + " call #" + std::to_string(k) + " failing with " +
                                   code_text(entry, faulted.fault->code);
          const std::string p = problem(r, timeout);
          for (const std::string& v : violation_lines(r.output)) {
            violations.push_back(call + ": " + v);
          }
          const std::optional<nlohmann::json> result = sweep_result(r.output);
          if (r.timed_out || r.signal != 0 || !result) {
            violations.push_back(call + ": " + (p.empty() ? "the run ended without a result" : p));
          } else if ((*base_result)["usable"].get<bool>() && !(*result)["usable"].get<bool>()) {
            violations.push_back(call + ": " + (*result)["unusable"].get<std::string>());
          }
        }
      }
    }
    out << "SWEEP " << s.name << " (" << s.file << "): " << swept << " call(s) swept over "
        << entries.size() << " entry point(s)";
    for (const std::string& e : entries) out << (e == *entries.begin() ? ": " : ", ") << e;
    out << "; " << violations.size() << " violation(s)\n";
    for (const std::string& v : violations) out << "  VIOLATION " << v << "\n";
    total_violations += violations.size();
    std::string text;
    for (const std::string& v : violations) text += v + "\n";
    suite.cases.push_back(
        JunitCase{s.name, s.file, 0.0,
                  violations.empty() ? "" : std::to_string(violations.size()) + " violation(s)",
                  false, text, std::nullopt, false});
  }
  out << scenarios.size() << " scenario(s) swept, " << total_violations << " violation(s)\n";
  if (prepared->junit && !prepared->junit->write(suite, options.seed, err)) return 2;
  return total_violations == 0 ? 0 : 1;
}

}  // namespace accel::scenario
