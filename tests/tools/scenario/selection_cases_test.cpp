// Unit tests of pytest-like selection (docs/SCENARIOS.md, "Selection"): -k expressions,
// --machine lists, several filters together, and what a JUnit file says about skipped,
// xfailed and failed cases (keyword_expression.h, command_options.h, selection.h, junit.h).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "command_options.h"
#include "junit.h"
#include "keyword_expression.h"
#include "selection.h"

namespace accel::scenario {
namespace {

std::string keyword_error(const std::string& text) {
  try {
    (void)KeywordExpression::parse(text);
  } catch (const KeywordError& e) {
    return e.what();
  }
  return "(no error)";
}

bool k(const std::string& text, const std::string& id, std::vector<std::string> tags = {}) {
  return KeywordExpression::parse(text).matches(id, tags);
}

TEST(KeywordExpression, NamesAreSubstringsOfTheIdOrTagsIgnoringCase) {
  EXPECT_TRUE(k("guard", "nested_guards_restore"));
  EXPECT_TRUE(k("GUARD", "nested_guards_restore"));
  EXPECT_FALSE(k("guards_x", "nested_guards_restore"));
  EXPECT_TRUE(k("4xh100", "fork_child[4xh100]"));
  EXPECT_TRUE(k("sweep", "a", {"Sweep"}));
  EXPECT_FALSE(k("swee", "a", {"sweep"}));  // a tag matches whole, as a pytest marker
}

TEST(KeywordExpression, NotBindsTighterThanAndThanOr) {
  EXPECT_TRUE(k("a or b and c", "a"));  // a or (b and c)
  EXPECT_FALSE(k("(a or b) and c", "a"));
  EXPECT_TRUE(k("not a and b", "b"));  // (not a) and b
  EXPECT_FALSE(k("not (a or b)", "b"));
  EXPECT_TRUE(k("not not a", "a"));
  EXPECT_FALSE(k("guard and not fork", "guard_in_fork"));
  EXPECT_TRUE(k("guard and not fork", "guard_nesting"));
}

TEST(KeywordExpression, AMalformedExpressionNamesTheColumnAndWhatWasExpected) {
  EXPECT_EQ(keyword_error(""), "-k '': at column 1: expected a name, 'not' or '(', got the end");
  EXPECT_EQ(keyword_error("guard and"),
            "-k 'guard and': at column 10: expected a name, 'not' or '(', got the end");
  EXPECT_EQ(keyword_error("guard fork"),
            "-k 'guard fork': at column 7: expected 'and', 'or' or the end, got 'fork'");
  EXPECT_EQ(keyword_error("(a or b"),
            "-k '(a or b': at column 8: expected ')' closing the '(' at column 1, got the end");
  EXPECT_EQ(keyword_error("a )"),
            "-k 'a )': at column 3: expected 'and', 'or' or the end, got ')'");
  EXPECT_EQ(keyword_error("or a"),
            "-k 'or a': at column 1: expected a name, 'not' or '(', got 'or'");
}

std::string machines_error(const std::string& text) {
  try {
    (void)parse_machines(text);
  } catch (const OptionError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RunnerOptions, MachinesArePresetsOrFilesEachOnce) {
  const std::vector<MachineChoice> m = parse_machines("4xh100,2xmax1550");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].id, "4xh100");
  EXPECT_EQ(m[0].env, "4xh100");
  EXPECT_EQ(m[0].spec.devices.size(), 4u);
  EXPECT_EQ(m[1].id, "2xmax1550");
  EXPECT_EQ(m[1].spec.devices.size(), 2u);
  for (const char* bad : {"", "4xh100,", ",4xh100", "4xh100,,2xa100"}) {
    EXPECT_EQ(machines_error(bad),
              std::string("--machine expects a comma-separated list of presets or machine files "
                          "(such as 4xh100,2xmax1550), got '") +
                  bad + "'");
  }
  EXPECT_EQ(machines_error("4xh100,4xh100"),
            "--machine names '4xh100' twice, in '4xh100,4xh100' (each machine is a case id: "
            "name[4xh100])");
  EXPECT_EQ(machines_error("4xh10").rfind("--machine '4xh10': ", 0), 0u) << machines_error("4xh10");
  EXPECT_NE(machines_error("4xh10").find("4xh100"), std::string::npos);  // the presets listed
}

Scenario with(std::string name, std::string machine = "", std::vector<std::string> tags = {}) {
  Scenario s;
  s.base_name = name;
  s.name = machine.empty() ? name : name + "[" + machine + "]";
  s.machine_id = machine;
  s.file = name + ".yaml";
  s.tags = std::move(tags);
  s.threads = {"main"};
  return s;
}

std::vector<Scenario> cases() {
  return {with("guard_nesting", "4xh100", {"sweep"}), with("guard_nesting", "2xmax1550", {"sweep"}),
          with("fork_poisons_child", "4xh100"), with("fork_poisons_child", "2xmax1550")};
}

std::vector<std::string> ids(const Selection& selection) {
  std::vector<std::string> out;
  for (const Scenario& s : select_scenarios(cases(), selection)) out.push_back(s.name);
  return out;
}

std::string selection_error(const Selection& selection) {
  try {
    (void)select_scenarios(cases(), selection);
  } catch (const SelectionError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(RunnerSelection, CasesAreSelectedByIdNameAndExpression) {
  Selection name;
  name.name = "guard_nesting";  // the scenario's name keeps every machine's case
  EXPECT_EQ(ids(name),
            (std::vector<std::string>{"guard_nesting[4xh100]", "guard_nesting[2xmax1550]"}));
  name.name = "*\\[2xmax1550\\]";  // a glob on the case id
  EXPECT_EQ(ids(name), (std::vector<std::string>{"guard_nesting[2xmax1550]",
                                                 "fork_poisons_child[2xmax1550]"}));
  Selection kw;
  kw.keyword = KeywordExpression::parse("4xh100 and not sweep");
  EXPECT_EQ(ids(kw), (std::vector<std::string>{"fork_poisons_child[4xh100]"}));
}

TEST(RunnerSelection, FiltersThatMatchOnlyApartAreNamedTogether) {
  Selection s;
  s.keyword = KeywordExpression::parse("zzz");
  EXPECT_EQ(selection_error(s), "-k 'zzz' matches none of the 4 scenario(s)");
  s.keyword = KeywordExpression::parse("fork");
  s.tag = "sweep";
  EXPECT_EQ(selection_error(s),
            "--tag 'sweep' and -k 'fork' match no scenario together (each matches some on its "
            "own)");
  s.name = "guard*";
  EXPECT_EQ(selection_error(s),
            "--tag 'sweep', --name 'guard*' and -k 'fork' match no scenario together (each "
            "matches some on its own)");
}

TEST(RunnerJunit, TheFailureMessageNamesTheStepAndTheExpectation) {
  const std::string report =
      "FAIL f: step at s.yaml:4 on thread main: current_device_index\n"
      "  expected: value 3\n"
      "  got:      2\n";
  EXPECT_EQ(failure_summary(report),
            "step at s.yaml:4 on thread main: current_device_index: expected value 3, got 2");
  EXPECT_EQ(failure_summary("mockdev: noise\n" + report +
                            "  expected: live allocations 1\n"
                            "  got:      live allocations 0\n  expected: a\n  got:      b\n"),
            "step at s.yaml:4 on thread main: current_device_index: expected value 3, got 2, "
            "and 2 more expectations");
  EXPECT_EQ(failure_summary("FAIL t: threads: cannot start thread 'w3' (3 of 3): Again\n"),
            "threads: cannot start thread 'w3' (3 of 3): Again");
  EXPECT_EQ(failure_summary("nothing recognisable\n"), "");
}

TEST(RunnerJunit, SkippedAndXfailedCasesAreSkippedElements) {
  JunitSuite suite{"accel.scenarios", {}};
  JunitCase skipped{"a", "a.yaml", 0.0, "", false, "", std::string("needs 8 GPUs"), false};
  JunitCase xfailed{"b[4xh100]",
                    "b.yaml",
                    0.5,
                    "",
                    false,
                    "failed: step at b.yaml:3",
                    std::string("expected failure: issue 7"),
                    true};
  JunitCase failed{"c",          "c.yaml",
                   0.25,         "failed: step at c.yaml:2 on thread main: x: expected 1, got 2",
                   false,        "FAIL c",
                   std::nullopt, false};
  suite.cases = {skipped, xfailed, failed};
  std::ostringstream out;
  write_junit(out, suite, 7);
  EXPECT_EQ(out.str(),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites tests=\"3\" failures=\"1\" errors=\"0\" time=\"0.75\">\n"
            "  <testsuite name=\"accel.scenarios\" tests=\"3\" failures=\"1\" errors=\"0\" "
            "skipped=\"2\" time=\"0.75\">\n"
            "    <properties><property name=\"seed\" value=\"7\"/></properties>\n"
            "    <testcase classname=\"accel.scenarios\" name=\"a\" file=\"a.yaml\" time=\"0\">\n"
            "      <skipped message=\"needs 8 GPUs\"/>\n"
            "    </testcase>\n"
            "    <testcase classname=\"accel.scenarios\" name=\"b[4xh100]\" file=\"b.yaml\" "
            "time=\"0.5\">\n"
            "      <skipped type=\"xfail\" message=\"expected failure: issue 7\">failed: step at "
            "b.yaml:3</skipped>\n"
            "    </testcase>\n"
            "    <testcase classname=\"accel.scenarios\" name=\"c\" file=\"c.yaml\" "
            "time=\"0.25\">\n"
            "      <failure message=\"failed: step at c.yaml:2 on thread main: x: expected 1, got "
            "2\">FAIL c</failure>\n"
            "    </testcase>\n"
            "  </testsuite>\n</testsuites>\n");
}

}  // namespace
}  // namespace accel::scenario
