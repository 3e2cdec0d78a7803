#include "preflight.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "executor.h"

namespace accel::scenario {
namespace {

// The file behind `fd`, when it is one the report goes to as well (a regular file or a
// pipe: a terminal may show both).
bool same_file(int fd, int other) {
  struct stat a {
  }, b{};
  if (::fstat(fd, &a) != 0 || ::fstat(other, &b) != 0) return false;
  if (!S_ISREG(a.st_mode) && !S_ISFIFO(a.st_mode)) return false;
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

std::optional<std::string> refused_environment() {
  struct Refused {
    const char* name;
    const char* instead;
  };
  static constexpr Refused kRefused[] = {
      {"MOCKDEV_MACHINE", "its `machine:`"},
      {"MOCKDEV_SCHEDULE", "its `environment:` or its machine's `streams.schedule`"},
      {"MOCKDEV_SEED",
       "its `environment:` or its machine's `streams.seed`, and --seed sets the run seed"},
      {"MOCKDEV_RACES", "its `environment:` or its machine's `streams.races`"},
  };
  for (const Refused& r : kRefused) {
    const char* value = std::getenv(r.name);
    if (value == nullptr || value[0] == '\0') continue;
    return std::string(r.name) + "='" + value +
           "' is set, but it would change nothing: each scenario takes it from " + r.instead +
           "; unset it";
  }
  // The leak report lists what a process leaves live at exit, and a scenario process runs
  // the runtime, whose stream pool and cached memory live as long as it does by design: every
  // scenario would report them. Leaks are for a program of one's own (accel run --leaks).
  if (const char* value = std::getenv("MOCKDEV_LEAKS"); value != nullptr && value[0] != '\0') {
    return std::string("MOCKDEV_LEAKS='") + value +
           "' is set, but scenarios do not take it: each scenario process runs the runtime, "
           "whose stream pool and cached memory are live at its exit by design; run a program "
           "with `accel run --leaks` instead, and unset it here";
  }
  return std::nullopt;
}

std::optional<TraceTarget> open_trace_target(std::size_t scenarios, bool sweep,
                                             std::string& error) {
  TraceTarget target;
  const char* path = std::getenv("MOCKDEV_TRACE");
  if (path == nullptr || path[0] == '\0') return target;
  target.path = path;
  if (sweep || scenarios != 1) {
    error = "MOCKDEV_TRACE='" + target.path + "' is one trace file, and " +
            (sweep ? std::string("a sweep runs each scenario once per driver call")
                   : std::to_string(scenarios) + " scenarios would run") +
            ", each run replacing the last one's trace: trace one scenario with `accel "
            "scenario run` (a file, --name, --tag or --shard selects it)";
    return std::nullopt;
  }
  accel::common::OpenedFile opened = accel::common::open_for_writing(target.path, "MOCKDEV_TRACE");
  if (!opened.ok()) {
    error = opened.error;
    return std::nullopt;
  }
  for (const int own : {STDOUT_FILENO, STDERR_FILENO}) {
    if (same_file(opened.fd.get(), own)) {
      error = "MOCKDEV_TRACE '" + target.path + "': is the runner's own standard " +
              (own == STDOUT_FILENO ? "output" : "error") +
              ", where its report goes: name another file";
      return std::nullopt;
    }
  }
  target.fd = std::move(opened.fd);
  return target;
}

std::optional<std::string> thread_limit_error(const std::vector<Scenario>& scenarios) {
  for (const Scenario& s : scenarios) {
    const std::size_t named = s.threads.empty() ? 0 : s.threads.size() - 1;  // main is given
    if (named > kMaxScenarioThreads) {
      return s.file + ": threads: expected at most " + std::to_string(kMaxScenarioThreads) +
             " thread names, got " + std::to_string(named);
    }
  }
  return std::nullopt;
}

}  // namespace accel::scenario
