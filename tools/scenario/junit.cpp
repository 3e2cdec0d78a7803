#include "junit.h"

#include <fstream>

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

void write_junit(std::ostream& out, const JunitSuite& suite, std::uint64_t seed) {
  std::size_t failures = 0, errors = 0;
  double total = 0;
  for (const JunitCase& c : suite.cases) {
    total += c.seconds;
    if (c.problem.empty()) continue;
    (c.error ? errors : failures) += 1;
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites tests=\"" << suite.cases.size() << "\" failures=\"" << failures
      << "\" errors=\"" << errors << "\" time=\"" << total << "\">\n";
  out << "  <testsuite name=\"" << xml_escape(suite.name) << "\" tests=\"" << suite.cases.size()
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"0\" time=\""
      << total << "\">\n";
  out << "    <properties><property name=\"seed\" value=\"" << seed << "\"/></properties>\n";
  for (const JunitCase& c : suite.cases) {
    out << "    <testcase classname=\"" << xml_escape(suite.name) << "\" name=\""
        << xml_escape(c.name) << "\" file=\"" << xml_escape(c.file) << "\" time=\"" << c.seconds
        << "\"";
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

bool write_junit(const std::string& path, const JunitSuite& suite, std::uint64_t seed,
                 std::ostream& err) {
  std::ofstream file(path);
  if (file) write_junit(file, suite, seed);
  file.close();
  if (!file) {
    err << "accel scenario: cannot write the JUnit file '" << path << "'\n";
    return false;
  }
  return true;
}

}  // namespace accel::scenario
