#include "junit.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace accel::scenario {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') break;
        out += c;
    }
  }
  return out;
}

std::string failure_summary(const std::string& report) {
  std::istringstream in(report);
  std::string first_fail;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("FAIL ", 0) != 0) continue;
    const std::size_t step = line.find(": step at ");
    if (step == std::string::npos) {
      const std::size_t colon = line.find(": ");
      if (first_fail.empty() && colon != std::string::npos) first_fail = line.substr(colon + 2);
      continue;
    }
    // The executor's shape: "FAIL name: step at F:L on thread T: STEP", then pairs of
    // "  expected: X" / "  got:      Y" lines.
    std::string summary = line.substr(step + 2);
    std::size_t pairs = 0;
    std::string expected;
    for (std::string next; std::getline(in, next);) {
      if (next.rfind("  expected: ", 0) == 0) {
        expected = next.substr(12);
      } else if (next.rfind("  got:      ", 0) == 0) {
        if (++pairs == 1) summary += ": expected " + expected + ", got " + next.substr(12);
      } else {
        break;
      }
    }
    if (pairs > 1) {
      summary +=
          ", and " + std::to_string(pairs - 1) + " more expectation" + (pairs > 2 ? "s" : "");
    }
    return summary;
  }
  return first_fail;
}

void write_junit(std::ostream& out, const JunitSuite& suite, std::uint64_t seed) {
  std::size_t failures = 0, errors = 0, skipped = 0;
  double total = 0;
  for (const JunitCase& c : suite.cases) {
    total += c.seconds;
    if (c.skipped) ++skipped;
    if (c.problem.empty()) continue;
    (c.error ? errors : failures) += 1;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites tests=\"" << suite.cases.size() << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" time=\"" << total << "\">\n";
  out << "  <testsuite name=\"" << xml_escape(suite.name) << "\" tests=\"" << suite.cases.size()
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped
      << "\" time=\"" << total << "\">\n";
  out << "    <properties><property name=\"seed\" value=\"" << seed << "\"/></properties>\n";
  for (const JunitCase& c : suite.cases) {
    out << "    <testcase classname=\"" << xml_escape(suite.name) << "\" name=\""
        << xml_escape(c.name) << "\" file=\"" << xml_escape(c.file) << "\" time=\"" << c.seconds
        << "\"";
    if (c.skipped) {
      out << ">\n      <skipped" << (c.xfail ? " type=\"xfail\"" : "") << " message=\""
          << xml_escape(*c.skipped) << "\"";
      if (c.output.empty()) {
        out << "/>\n    </testcase>\n";
      } else {
        out << ">" << xml_escape(c.output) << "</skipped>\n    </testcase>\n";
      }
      continue;
    }
    if (c.problem.empty()) {
      out << "/>\n";
      continue;
    }
    const char* tag = c.error ? "error" : "failure";
    out << ">\n      <" << tag << " message=\"" << xml_escape(c.problem) << "\">"
        << xml_escape(c.output) << "</" << tag << ">\n    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

std::optional<JunitFile> JunitFile::open(const std::string& path, std::string& error) {
  accel::common::OpenedFile opened = accel::common::open_for_writing(path, "--junit");
  if (!opened.ok()) {
    error = opened.error;
    return std::nullopt;
  }
  return JunitFile(path, std::move(opened.fd));
}

bool JunitFile::write(const JunitSuite& suite, std::uint64_t seed, std::ostream& err) {
  std::ostringstream text;
  write_junit(text, suite, seed);
  const std::string xml = text.str();
  std::size_t done = 0;
  while (done < xml.size()) {
    const ssize_t n = ::write(fd_.get(), xml.data() + done, xml.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err << "accel scenario: --junit '" << path_ << "': cannot write: "
          << std::strerror(n < 0 ? errno : EIO) << "\n";
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace accel::scenario
