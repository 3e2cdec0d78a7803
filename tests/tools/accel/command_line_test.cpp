// The `accel` command line (CLI11): what it parses, and its exact usage errors.
#include "command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace accel::tools {
namespace {

CommandLine parse(std::vector<std::string> args) {
  const ParseOutcome outcome = parse_command_line(args);
  EXPECT_TRUE(outcome.line.has_value()) << outcome.error;
  return outcome.line.value_or(CommandLine{});
}

// The stderr text of a usage error; also checks its exit status and an empty stdout.
std::string usage_error(std::vector<std::string> args) {
  const ParseOutcome outcome = parse_command_line(args);
  EXPECT_FALSE(outcome.line.has_value());
  EXPECT_EQ(outcome.exit_status, 2);
  EXPECT_EQ(outcome.output, "");
  return outcome.error;
}

// --backend is taken as written (main() checks it against the compiled backends when it
// runs); --selected-only turns off the child per other backend.
TEST(CommandLine, ParsesBackendSelection) {
  CommandLine line = parse({"info"});
  EXPECT_FALSE(line.backend.has_value());
  EXPECT_FALSE(line.selected_only);
  line = parse({"info", "--backend", "xpu", "--selected-only", "--json"});
  EXPECT_EQ(line.backend, "xpu");
  EXPECT_TRUE(line.selected_only);
  EXPECT_TRUE(line.json);
  line = parse({"info", "--backend=rocm"});
  EXPECT_EQ(line.backend, "rocm");
  EXPECT_EQ(usage_error({"info", "--backend", "cuda", "--backend", "xpu"}),
            "accel: --backend given more than once\nRun 'accel info --help' for usage.\n");
}

TEST(CommandLine, ParsesInfoOptions) {
  CommandLine line = parse({"info"});
  EXPECT_EQ(line.command, Command::kInfo);
  EXPECT_FALSE(line.json);
  EXPECT_FALSE(line.count);
  EXPECT_FALSE(line.machine.has_value());
  EXPECT_FALSE(line.expect_devices.has_value());

  line = parse({"info", "--json", "--machine", "4xh100"});
  EXPECT_TRUE(line.json);
  EXPECT_EQ(line.machine, "4xh100");

  line = parse({"info", "--machine=dir/m.yaml", "--count", "--expect-devices", "3"});
  EXPECT_TRUE(line.count);
  EXPECT_EQ(line.machine, "dir/m.yaml");
  EXPECT_EQ(line.expect_devices, 3);
}

// --query and --format (query.h): checked while parsing, so a bad value is a usage error
// naming it; --format only with --query; --query with neither --json nor --count.
TEST(CommandLine, ParsesQueryAndFormat) {
  CommandLine line = parse({"info", "--query", "name,memory.used", "--format", "text,noheader"});
  EXPECT_EQ(line.query, "name,memory.used");
  EXPECT_EQ(line.format, "text,noheader");
  line = parse({"info", "--query=index"});
  EXPECT_EQ(line.query, "index");
  EXPECT_FALSE(line.format.has_value());
  EXPECT_EQ(usage_error({"info", "--query", "name,memory.usd"}),
            "accel: --query: unknown field 'memory.usd' (fields: index, name, uuid, "
            "pci.bus_id, compute_cap, multiprocessors, mig.mode.current, memory.total, "
            "memory.used, memory.free)\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--query", "name", "--format", "xml"}),
            "accel: --format: unknown format 'xml' in 'xml' (expected csv or text, optionally "
            "followed by ,noheader and ,nounits)\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--format", "csv"}),
            "accel: --format requires --query\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--query", "name", "--json"}),
            "accel: --json excludes --query\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--count", "--query", "name"}),
            "accel: --count excludes --query\nRun 'accel info --help' for usage.\n");
}

TEST(CommandLine, ParsesTopo) {
  CommandLine line = parse({"topo"});
  EXPECT_EQ(line.command, Command::kTopo);
  EXPECT_FALSE(line.machine.has_value());
  line = parse({"topo", "--machine", "8xh100", "--backend", "xpu"});
  EXPECT_EQ(line.command, Command::kTopo);
  EXPECT_EQ(line.machine, "8xh100");
  EXPECT_EQ(line.backend, "xpu");
  EXPECT_EQ(usage_error({"topo", "--json"}),
            "accel: The following argument was not expected: --json\nRun 'accel topo --help' "
            "for usage.\n");
}

TEST(CommandLine, ParsesMachines) {
  EXPECT_EQ(parse({"machines"}).command, Command::kMachines);
  EXPECT_FALSE(parse({"machines"}).show.has_value());
  EXPECT_EQ(parse({"machines", "--show", "mixed"}).show, "mixed");
}

TEST(CommandLine, HelpAndVersionPrintAndExitZero) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--help"}, {"-h"}, {"info", "--help"}, {"machines", "--help"}}) {
    const ParseOutcome outcome = parse_command_line(args);
    EXPECT_FALSE(outcome.line.has_value());
    EXPECT_EQ(outcome.exit_status, 0);
    EXPECT_NE(outcome.output.find("Usage: accel"), std::string::npos) << outcome.output;
    EXPECT_EQ(outcome.error, "");
  }
  EXPECT_NE(parse_command_line({"info", "--help"}).output.find("--expect-devices"),
            std::string::npos);
  EXPECT_NE(parse_command_line({"machines", "--help"}).output.find("--show"), std::string::npos);
  EXPECT_EQ(parse_command_line({"--version"}).output, "accel 0.1.0\n");
  EXPECT_EQ(parse_command_line({"-V"}).output, "accel 0.1.0\n");
}

TEST(CommandLine, UsageErrorIsOneLineAndAHint) {
  EXPECT_EQ(usage_error({}),
            "accel: no command given (info or machines)\nRun 'accel --help' for usage.\n");
  EXPECT_EQ(
      usage_error({"frob"}),
      "accel: unknown command 'frob' (commands: info, machines, memory-summary, replay, run, scenario, topo)\n"
      "Run 'accel --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--frob"}),
            "accel: The following argument was not expected: --frob\n"
            "Run 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--machine"}),
            "accel: --machine: 1 required FILE|PRESET missing\n"
            "Run 'accel info --help' for usage.\n");
  for (const char* bad : {"-1", "4097", "abc", "2.0", "99999999999999999999"}) {
    EXPECT_EQ(usage_error({"info", "--expect-devices", bad}),
              std::string("accel: --expect-devices: expected a whole number of devices from 0 "
                          "to 4096, got '") +
                  bad + "'\nRun 'accel info --help' for usage.\n");
  }
  EXPECT_EQ(usage_error({"info", "--json", "--count"}),
            "accel: --json excludes --count\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"machines", "--json"}),
            "accel: The following argument was not expected: --json\n"
            "Run 'accel machines --help' for usage.\n");
}

TEST(CommandLine, RepeatedOptionIsAnError) {
  EXPECT_EQ(usage_error({"info", "--json", "--json"}),
            "accel: --json given more than once\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"info", "--machine", "a", "--machine=b"}),
            "accel: --machine given more than once\nRun 'accel info --help' for usage.\n");
  EXPECT_EQ(usage_error({"machines", "--show", "a", "--show", "b"}),
            "accel: --show given more than once\nRun 'accel machines --help' for usage.\n");
}

// accel run: the words after the first `--` are the program's, unparsed (its own `--` and
// options included); the settings are taken as written.
TEST(CommandLine, ParsesRun) {
  const CommandLine line = parse({"run", "--machine", "8xh100", "--schedule", "random", "--seed",
                                  "18446744073709551615", "--races", "fail", "--leaks", "report",
                                  "--trace", "t.json", "--", "./app", "--machine", "--", "x"});
  EXPECT_EQ(line.command, Command::kRun);
  EXPECT_EQ(line.machine, "8xh100");
  EXPECT_EQ(line.schedule, "random");
  EXPECT_EQ(line.seed, "18446744073709551615");
  EXPECT_EQ(line.races, "fail");
  EXPECT_EQ(line.leaks, "report");
  EXPECT_EQ(line.trace, "t.json");
  EXPECT_EQ(line.program, (std::vector<std::string>{"./app", "--machine", "--", "x"}));
  const CommandLine plain = parse({"run", "--machine=2xa100", "--", "app"});
  EXPECT_EQ(plain.schedule, std::nullopt);
  EXPECT_EQ(plain.races, std::nullopt);
  EXPECT_EQ(plain.program, std::vector<std::string>{"app"});
}

TEST(CommandLine, RunUsageErrorsNameTheValue) {
  const std::string hint = "\nRun 'accel run --help' for usage.\n";
  EXPECT_EQ(usage_error({"run", "--machine", "m", "--schedule", "fast", "--", "a"}),
            "accel: --schedule: expected eager, random, adversarial, got 'fast'" + hint);
  EXPECT_EQ(usage_error({"run", "--machine", "m", "--races", "warn", "--", "a"}),
            "accel: --races: expected off, report, fail, abort, got 'warn'" + hint);
  EXPECT_EQ(usage_error({"run", "--machine", "m", "--leaks", "abort", "--", "a"}),
            "accel: --leaks: expected off, report, fail, got 'abort'" + hint);
  EXPECT_EQ(usage_error({"run", "--machine", "m", "--seed", "18446744073709551616", "--", "a"}),
            "accel: --seed: expected a whole number from 0 to 18446744073709551615, got "
            "'18446744073709551616'" +
                hint);
  EXPECT_EQ(usage_error({"run", "--machine", "m", "./app"}),
            "accel: no '--' before the program './app' (accel run --machine FILE|PRESET "
            "[OPTIONS] -- PROGRAM [ARGS...])" +
                hint);
  EXPECT_EQ(usage_error({"run", "--machine", "m", "--"}), "accel: no program after '--'" + hint);
  EXPECT_EQ(usage_error({"run", "--machine", "m"}),
            "accel: no '--' before the program (accel run --machine FILE|PRESET [OPTIONS] -- "
            "PROGRAM [ARGS...])" +
                hint);
  EXPECT_EQ(usage_error({"run", "--", "a"}), "accel: --machine is required" + hint);
  EXPECT_EQ(usage_error({"run", "--machine", "a", "--machine", "b", "--", "a"}),
            "accel: --machine given more than once" + hint);
}

}  // namespace
}  // namespace accel::tools
