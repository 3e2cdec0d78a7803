// Unit tests of the runner's switches (command_options.h, selection.h, preflight.h, junit.h):
// every value out of range, every selection that picks nothing and every setting that cannot
// work is an error naming it, with the exact message the user sees after "accel scenario: ".
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "command_options.h"
#include "executor.h"
#include "junit.h"
#include "preflight.h"
#include "selection.h"

namespace accel::scenario {
namespace {

template <class F>
std::string option_error(F&& parse) {
  try {
    (void)parse();
  } catch (const OptionError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RunnerOptions, SeedsAreTheWholeUnsignedRangeAndNothingElse) {
  EXPECT_EQ(parse_seed("0"), 0u);
  EXPECT_EQ(parse_seed("42"), 42u);
  EXPECT_EQ(parse_seed("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"-1", "18446744073709551616", "99999999999999999999999", "+1", " 1",
                          "1 ", "0x10", "1e3", ""}) {
    EXPECT_EQ(option_error([&] { return parse_seed(bad); }),
              std::string("--seed expects an unsigned integer from 0 to 18446744073709551615, "
                          "got '") + bad + "'");
  }
}

TEST(RunnerOptions, TimeoutsAreWholeSecondsFromOneToAnHour) {
  EXPECT_EQ(parse_timeout("1"), 1);
  EXPECT_EQ(parse_timeout("3600"), 3600);
  for (const char* bad : {"0", "3601", "1.5", "-1", "99999999999999999999", "", "1s"}) {
    EXPECT_EQ(option_error([&] { return parse_timeout(bad); }),
              std::string("--timeout expects a whole number of seconds from 1 to 3600, got '") +
                  bad + "'");
  }
}

TEST(RunnerOptions, ShardsAreIOfN) {
  EXPECT_EQ(parse_shard("0/1").index, 0);
  EXPECT_EQ(parse_shard("2/3").index, 2);
  EXPECT_EQ(parse_shard("2/3").count, 3);
  for (const char* bad : {"3/3", "-1/2", "1/0", "1", "1/2/3", "a/2", "1/ 2", "", "0/99999999999"}) {
    EXPECT_EQ(option_error([&] { return parse_shard(bad); }),
              std::string("--shard expects I/N with 0 <= I < N, got '") + bad + "'")
        << bad;
  }
}

Scenario scenario(std::string name, std::vector<std::string> tags = {}) {
  Scenario s;
  s.name = std::move(name);
  s.file = s.name + ".yaml";
  s.tags = std::move(tags);
  s.threads = {"main"};
  return s;
}

std::vector<Scenario> library() {
  return {scenario("guard_restores_device", {"sweep"}), scenario("fork_poisons_child", {"fork"}),
          scenario("stream_priorities"), scenario("guard_nesting", {"sweep"})};
}

std::vector<std::string> names(const std::vector<Scenario>& scenarios) {
  std::vector<std::string> out;
  for (const Scenario& s : scenarios) out.push_back(s.name);
  return out;
}

std::string selection_error(const Selection& selection, std::vector<Scenario> all = library()) {
  try {
    (void)select_scenarios(std::move(all), selection);
  } catch (const SelectionError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RunnerSelection, TagNameAndShardPick) {
  Selection tag;
  tag.tag = "sweep";
  EXPECT_EQ(names(select_scenarios(library(), tag)),
            (std::vector<std::string>{"guard_restores_device", "guard_nesting"}));
  Selection name;
  name.name = "*fork*";
  EXPECT_EQ(names(select_scenarios(library(), name)),
            (std::vector<std::string>{"fork_poisons_child"}));
  Selection shard;
  shard.shard = Shard{1, 2};
  EXPECT_EQ(names(select_scenarios(library(), shard)),
            (std::vector<std::string>{"fork_poisons_child", "guard_nesting"}));
}

TEST(RunnerSelection, ATagThatMatchesNothingIsAnErrorNamingTheClosest) {
  Selection s;
  s.tag = "swep";
  EXPECT_EQ(selection_error(s),
            "--tag 'swep' matches no scenario (closest: sweep; tags: fork, sweep)");
  s.tag = "nightly";
  EXPECT_EQ(selection_error(s), "--tag 'nightly' matches no scenario (tags: fork, sweep)");
  EXPECT_EQ(selection_error(s, {scenario("a"), scenario("b")}),
            "--tag 'nightly' matches no scenario: none of the 2 scenario(s) has a tag");
}

TEST(RunnerSelection, ANameThatMatchesNothingIsAnErrorNamingTheClosest) {
  Selection s;
  s.name = "guard_nestin";
  EXPECT_EQ(selection_error(s),
            "--name 'guard_nestin' matches none of the 4 scenario(s) (closest: guard_nesting)");
  s.name = "zzz*";
  EXPECT_EQ(selection_error(s), "--name 'zzz*' matches none of the 4 scenario(s)");
}

TEST(RunnerSelection, TagAndNameThatMatchOnlyApartAreAnError) {
  Selection s;
  s.tag = "fork";
  s.name = "guard*";
  EXPECT_EQ(selection_error(s),
            "--tag 'fork' and --name 'guard*' match no scenario together (each matches some on "
            "its own)");
}

TEST(RunnerSelection, AnEmptyShardIsAnError) {
  Selection s;
  s.tag = "sweep";
  s.shard = Shard{2, 3};
  EXPECT_EQ(selection_error(s),
            "--shard 2/3 selects no scenario: 2 scenario(s) to share, so at most 2 shard(s)");
}

TEST(RunnerPreflight, TooManyThreadsNameTheFileTheCountAndTheLimit) {
  std::vector<Scenario> all = library();
  EXPECT_EQ(thread_limit_error(all), std::nullopt);
  for (std::size_t i = 0; i < kMaxScenarioThreads; ++i) {
    all[2].threads.push_back("t" + std::to_string(i));
  }
  EXPECT_EQ(thread_limit_error(all), std::nullopt);  // exactly the limit
  all[2].threads.push_back("one_more");
  EXPECT_EQ(thread_limit_error(all),
            "stream_priorities.yaml: threads: expected at most 64 thread names, got 65");
}

// Restores one variable of the process environment when it goes.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(RunnerPreflight, TheSimulatedHardwaresVariablesAreRefused) {
  ScopedVariable machine("MOCKDEV_MACHINE", nullptr), schedule("MOCKDEV_SCHEDULE", nullptr),
      seed("MOCKDEV_SEED", ""), races("MOCKDEV_RACES", "fail");  // empty counts as unset
  EXPECT_EQ(refused_environment(),
            "MOCKDEV_RACES='fail' is set, but it would change nothing: each scenario takes it "
            "from its `environment:` or its machine's `streams.races`; unset it");
  ScopedVariable no_races("MOCKDEV_RACES", nullptr);
  EXPECT_EQ(refused_environment(), std::nullopt);
  ScopedVariable bad_seed("MOCKDEV_SEED", "7");
  EXPECT_EQ(refused_environment(),
            "MOCKDEV_SEED='7' is set, but it would change nothing: each scenario takes it from "
            "its `environment:` or its machine's `streams.seed`, and --seed sets the run seed; "
            "unset it");
}

std::string trace_error(std::size_t scenarios, bool sweep) {
  std::string error;
  if (open_trace_target(scenarios, sweep, error)) return "(no error)";
  return error;
}

TEST(RunnerPreflight, TheTraceMustBeWritableNowAndServeOneRun) {
  ScopedVariable unset("MOCKDEV_TRACE", nullptr);
  std::string error;
  const std::optional<TraceTarget> none = open_trace_target(5, true, error);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->path, "");
  const std::string dir = ::testing::TempDir();
  ScopedVariable directory("MOCKDEV_TRACE", dir.c_str());
  EXPECT_EQ(trace_error(1, false),
            "MOCKDEV_TRACE '" + dir + "': is a directory, not a regular file");
  const std::string fifo = dir + "runner_trace_" + std::to_string(getpid()) + ".fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  {
    ScopedVariable unread("MOCKDEV_TRACE", fifo.c_str());
    EXPECT_EQ(trace_error(1, false),
              "MOCKDEV_TRACE '" + fifo + "': is a FIFO (named pipe) that nobody reads");
  }
  ::unlink(fifo.c_str());
  const std::string file = dir + "runner_trace_" + std::to_string(getpid()) + ".json";
  ScopedVariable regular("MOCKDEV_TRACE", file.c_str());
  EXPECT_EQ(trace_error(3, false),
            "MOCKDEV_TRACE='" + file +
                "' is one trace file, and 3 scenarios would run, each run replacing the last "
                "one's trace: trace one scenario with `accel scenario run` (a file, --name, "
                "--tag or --shard selects it)");
  EXPECT_EQ(trace_error(1, true),
            "MOCKDEV_TRACE='" + file +
                "' is one trace file, and a sweep runs each scenario once per driver call, each "
                "run replacing the last one's trace: trace one scenario with `accel scenario "
                "run` (a file, --name, --tag or --shard selects it)");
  const std::optional<TraceTarget> target = open_trace_target(1, false, error);
  ASSERT_TRUE(target);
  EXPECT_EQ(target->path, file);
  EXPECT_TRUE(target->fd);
  ::unlink(file.c_str());
}

TEST(RunnerJunit, TheFileIsCheckedBeforeTheRun) {
  std::string error;
  EXPECT_FALSE(JunitFile::open(::testing::TempDir(), error));
  EXPECT_EQ(error, "--junit '" + ::testing::TempDir() + "': is a directory, not a regular file");
  const std::string fifo = ::testing::TempDir() + "junit_" + std::to_string(getpid()) + ".fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(JunitFile::open(fifo, error));
  EXPECT_EQ(error, "--junit '" + fifo + "': is a FIFO (named pipe) that nobody reads");
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace accel::scenario
