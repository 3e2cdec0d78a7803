#pragma once
// ScenarioRecorder: writes the programs a rapidcheck property runs as scenario text
// (docs/SCENARIOS.md), so that the property's shrunk counterexample can be replayed by
// `accel scenario run` without rapidcheck or a seed. Used by the device-index property
// (device_index_model.h), the StreamGuard property (stream_guard_property_test.cpp) and the
// allocator through the public API (allocator_scenario.h). Not thread-safe: one property run
// at a time, recorded from the thread that runs rapidcheck.
//
// Note [Counterexamples as scenarios]
// Every program is also written down as a scenario while it runs: each command becomes the
// step that makes the same call on the same thread, with the model's prediction as its
// expectation, followed by the checks the property makes after it (each as a step with its
// expectation). rapidcheck's last failing run is its shrunk counterexample, so when the
// property fails, the text of that run is written to `<kind>_counterexample_<property>.yaml`
// in ACCEL_COUNTEREXAMPLE_DIR (default the working directory) and its path printed next to
// rapidcheck's reproduce string; `accel scenario run <file>` then fails the same way,
// deterministically, and the file becomes a regression test by being copied into
// scenarios/behaviours/. A command that no step makes the same call for (e.g. StreamGuard's
// reset_stream) makes its program unwritable: such a counterexample is not written, and the
// property says which call had no step, rather than write a scenario that replays a
// different program. With ACCEL_WRITE_PASSING_SCENARIO=1, a property that passes writes its
// longest writable program as `<kind>_passing_<property>.yaml` instead, which must replay
// green (ctest checks both ways for the stream and allocator properties).

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace accel::test {

// What every scenario of one property shares.
struct ScenarioKind {
  std::string kind;    // the file name's prefix: "device_index" -> device_index_counterexample_...
  std::string title;   // "the device-index property", in the description
  std::string source;  // where the model is, for the file's opening comment
  std::string model;   // "the device-index model", in "expects what ... predicts"
  std::string setup;   // the YAML between `description:` and `steps:` (machine:, threads:, ...)
};

class ScenarioRecorder {
 public:
  explicit ScenarioRecorder(ScenarioKind kind) : kind_(std::move(kind)) {}

  void begin();  // a new program
  // One step (`text` is the step's first line, e.g. "set_device_index: 5"; `body` any
  // further lines, already indented; `expect` the flow map after "expect: ", or ""), on
  // thread t<thread>, or on `main` (no `thread:` line) when thread < 0.
  void step(int thread, const std::string& text, const std::string& expect = "",
            const std::string& body = "");
  // A comment line among the steps (what the property's command was, in its own words).
  void comment(const std::string& text);
  // The current program makes a call no step makes (`why` names it): it cannot be written.
  void unwritable(const std::string& why);
  void mark_failed();  // keep the current program: it failed
  // Keep the current program, if writable and longer than the one kept, as the passing one.
  void mark_passed();
  bool has_failure() const { return failed_.has_value(); }

  // The scenario text of the last failing program (passing: of the passing one kept).
  std::string scenario(const std::string& description, bool passing = false) const;
  // Writes scenario() to a file; returns its path ("" if it cannot be written).
  std::string write(const std::string& description, bool passing = false) const;

  // Runs one program (`program`: rapidcheck's property body) from begin(): marks it failed
  // when it fails (a rapidcheck failure or any exception but a discard), passed when it
  // returns, and rethrows what it threw.
  void run(const std::function<void()>& program);
  // After rc::check: a failure's counterexample written and its path printed on stderr
  // (or why it was not written); with ACCEL_WRITE_PASSING_SCENARIO=1, a pass's longest
  // writable program written and its path printed.
  void report(const std::string& description, bool passed) const;

 private:
  struct Program {
    std::vector<std::string> steps;
    std::string unwritable;  // why not, or "" when every command has its step
  };
  const Program* kept(bool passing) const;

  ScenarioKind kind_;
  Program current_;
  std::optional<Program> failed_;
  std::optional<Program> passed_;
};

}  // namespace accel::test
