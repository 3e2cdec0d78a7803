// The `accel` command line grammar and its usage errors.
#include "command_line.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace accel::tools {
namespace {

CommandLine parse(std::vector<std::string_view> args) { return parse_command_line(args); }

std::string usage_error(std::vector<std::string_view> args) {
  try {
    parse_command_line(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(CommandLine, ParsesInfoOptions) {
  CommandLine line = parse({"info"});
  EXPECT_EQ(line.command, Command::kInfo);
  EXPECT_FALSE(line.json);
  EXPECT_FALSE(line.machine.has_value());

  line = parse({"info", "--json", "--machine", "4xh100"});
  EXPECT_TRUE(line.json);
  EXPECT_EQ(line.machine, "4xh100");

  line = parse({"info", "--machine=dir/m.yaml", "--json"});
  EXPECT_TRUE(line.json);
  EXPECT_EQ(line.machine, "dir/m.yaml");
}

TEST(CommandLine, ParsesOtherCommands) {
  EXPECT_EQ(parse({"machines"}).command, Command::kMachines);
  EXPECT_EQ(parse({"--help"}).command, Command::kHelp);
  EXPECT_EQ(parse({"-h"}).command, Command::kHelp);
  EXPECT_EQ(parse({"help"}).command, Command::kHelp);
  EXPECT_EQ(parse({"--version"}).command, Command::kVersion);
}

TEST(CommandLine, NamesTheWrongWord) {
  EXPECT_EQ(usage_error({}), "accel: no command given");
  EXPECT_EQ(usage_error({"frob"}), "accel: unknown command 'frob'");
  EXPECT_EQ(usage_error({"--frob"}), "accel: unknown option '--frob'");
  EXPECT_EQ(usage_error({"info", "--frob"}), "accel: unknown option for 'info': '--frob'");
  EXPECT_EQ(usage_error({"info", "--machine"}),
            "accel: --machine needs a value (a machine file or a preset name)");
  EXPECT_EQ(usage_error({"info", "--machine="}),
            "accel: --machine needs a value (a machine file or a preset name)");
  EXPECT_EQ(usage_error({"machines", "--json"}),
            "accel: unexpected argument for 'machines': '--json'");
  EXPECT_EQ(usage_error({"--version", "x"}), "accel: unexpected argument for '--version': 'x'");
}

TEST(CommandLine, UsageMentionsEveryCommand) {
  const std::string usage = usage_text();
  for (const char* word : {"info", "--json", "--machine", "machines", "--help", "--version"}) {
    EXPECT_NE(usage.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace accel::tools
