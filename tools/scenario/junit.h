#pragma once
// JUnit XML, the report format CI systems read (one <testsuite>, one <testcase> per
// scenario; a failure or an error (timeout, crash) with the run's output).

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace accel::scenario {

struct JunitCase {
  std::string name;
  std::string file;
  double seconds = 0;
  std::string problem;  // "" when it passed
  bool error = false;   // a timeout or a crash rather than a failed expectation
  std::string output;
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
};

void write_junit(std::ostream& out, const JunitSuite& suite, std::uint64_t seed);
// Writes the file; on failure says so on `err` and returns false.
bool write_junit(const std::string& path, const JunitSuite& suite, std::uint64_t seed,
                 std::ostream& err);

// Text made safe for XML attributes and content (control characters dropped).
std::string xml_escape(const std::string& text);

}  // namespace accel::scenario
