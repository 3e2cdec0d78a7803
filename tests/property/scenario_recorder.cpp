#include "scenario_recorder.h"

#include <rapidcheck.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

namespace accel::test {

namespace {

bool write_passing_requested() {
  const char* value = std::getenv("ACCEL_WRITE_PASSING_SCENARIO");
  return value != nullptr && std::string(value) == "1";
}

}  // namespace

void ScenarioRecorder::begin() { current_ = Program{}; }

void ScenarioRecorder::step(int thread, const std::string& text, const std::string& expect,
                            const std::string& body) {
  std::string lines = "  - " + text + "\n" + body;
  if (thread >= 0) lines += "    thread: t" + std::to_string(thread) + "\n";
  if (!expect.empty()) lines += "    expect: " + expect + "\n";
  current_.steps.push_back(std::move(lines));
}

void ScenarioRecorder::comment(const std::string& text) {
  current_.steps.push_back("  # " + text + "\n");
}

void ScenarioRecorder::unwritable(const std::string& why) {
  if (current_.unwritable.empty()) current_.unwritable = why;
}

void ScenarioRecorder::mark_failed() { failed_ = current_; }

void ScenarioRecorder::mark_passed() {
  if (!current_.unwritable.empty()) return;
  if (!passed_ || current_.steps.size() > passed_->steps.size()) passed_ = current_;
}

const ScenarioRecorder::Program* ScenarioRecorder::kept(bool passing) const {
  const std::optional<Program>& program = passing ? passed_ : failed_;
  return program ? &*program : nullptr;
}

std::string ScenarioRecorder::scenario(const std::string& description, bool passing) const {
  std::string text =
      (passing ? "# A program that passed the rapidcheck property \""
               : "# The shrunk counterexample of the rapidcheck property \"") +
      description + "\" (" + kind_.source + ").\n# Each step expects what " + kind_.model +
      " predicts\n# (Note [Counterexamples as scenarios] in tests/property/scenario_recorder.h)."
      "\n# Replay: accel scenario run <this file>\n"
      "description: " +
      (passing ? "a passing program of " : "counterexample of ") + kind_.title + " (" +
      description + ")\n" + kind_.setup + "steps:\n";
  if (const Program* program = kept(passing)) {
    for (const std::string& step : program->steps) text += step;
  }
  return text;
}

std::string ScenarioRecorder::write(const std::string& description, bool passing) const {
  std::string slug;
  for (char c : description) slug += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  const char* dir = std::getenv("ACCEL_COUNTEREXAMPLE_DIR");
  const std::filesystem::path path =
      std::filesystem::path(dir != nullptr && dir[0] != '\0' ? dir : ".") /
      (kind_.kind + (passing ? "_passing_" : "_counterexample_") + slug + ".yaml");
  std::ofstream out(path);
  out << scenario(description, passing);
  out.close();
  return out ? std::filesystem::absolute(path).lexically_normal().string() : std::string();
}

void ScenarioRecorder::run(const std::function<void()>& program) {
  begin();
  try {
    program();
  } catch (const rc::detail::CaseResult& result) {
    if (result.type == rc::detail::CaseResult::Type::Failure) mark_failed();
    throw;
  } catch (const rc::GenerationFailure&) {
    throw;  // a discard, as rapidcheck counts it
  } catch (...) {
    mark_failed();
    throw;
  }
  mark_passed();
}

void ScenarioRecorder::report(const std::string& description, bool passed) const {
  if (!passed && failed_) {
    if (!failed_->unwritable.empty()) {
      std::cerr << "[ property ] counterexample not written as a scenario: " << failed_->unwritable
                << std::endl;
      return;
    }
    const std::string path = write(description);
    std::cerr << "[ property ] counterexample written as a scenario: "
              << (path.empty() ? "(cannot write it)" : path)
              << "\n[ property ] replay it with: accel scenario run " << path << std::endl;
  } else if (passed && write_passing_requested()) {
    if (!passed_) {
      std::cerr << "[ property ] no passing program could be written as a scenario" << std::endl;
      return;
    }
    const std::string path = write(description, true);
    std::cerr << "[ property ] a passing program written as a scenario: "
              << (path.empty() ? "(cannot write it)" : path) << std::endl;
  }
}

}  // namespace accel::test
