#pragma once
// JUnit XML, the report format CI systems read (one <testsuite>, one <testcase> per
// scenario; a failure or an error (timeout, crash) with the run's output).
// The file is opened before any scenario runs (JunitFile::open, through
// accel::common::open_for_writing: a directory or a FIFO nobody reads is an error at once,
// never a hang or a failure after a long run) and written when the run ends.

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "accel_common/bounded_file.h"

namespace accel::scenario {

struct JunitCase {
  std::string name;
  std::string file;
  double seconds = 0;
  std::string problem;  // the failure's message; "" when it passed or was skipped
  bool error = false;   // a timeout or a crash rather than a failed expectation
  std::string output;
  // A <skipped> case with this message: a `skip:` reason, or an xfail that failed
  // (type="xfail", as pytest writes it).
  std::optional<std::string> skipped = {};
  bool xfail = false;
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
};

void write_junit(std::ostream& out, const JunitSuite& suite, std::uint64_t seed);

// The --junit file, open from the start of the run to its end.
class JunitFile {
 public:
  // Opens (creates or truncates) `path`; on failure returns nullopt with the message in
  // `error` ("--junit '/tmp': is a directory, not a regular file").
  static std::optional<JunitFile> open(const std::string& path, std::string& error);
  // Writes the report; on failure says so on `err` and returns false.
  bool write(const JunitSuite& suite, std::uint64_t seed, std::ostream& err);

 private:
  JunitFile(std::string path, accel::common::UniqueFd fd)
      : path_(std::move(path)), fd_(std::move(fd)) {}
  std::string path_;
  accel::common::UniqueFd fd_;
};

// The first failed step of a scenario's report and its first unmet expectation, for the
// JUnit message: "step at s.yaml:4 on thread main: current_device_index: expected value 3,
// got 2" (", and 1 more expectation" when several failed). Without a failed step: the first
// "FAIL name: ..." line's text after the name; "" when the report has neither.
std::string failure_summary(const std::string& report);

// Text made safe for XML attributes and content (control characters dropped).
std::string xml_escape(const std::string& text);

}  // namespace accel::scenario
