#include "framework/supervision/junit_report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "framework/base/file_access.h"
#include "framework/supervision/case_records_json.h"

namespace rkt {
namespace {

constexpr const char* kRunProblemsSuite = "rkt";  // Holds the run's problems as failed testcases.
constexpr const char* kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// The length of the valid UTF-8 sequence starting at `at`, or 0 when there is none (a stray
// continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
std::size_t utf8_sequence_length(const std::string& text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) length = 2, code = lead & 0x1F;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, code = lead & 0x0F;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, code = lead & 0x07;
  else return 0;
  if (at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(at + i) & 0x3F);
  }
  const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
  const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
  if (overlong || surrogate || code > 0x10FFFF || code == 0xFFFE || code == 0xFFFF) return 0;
  return length;
}

// `text` as XML character data: markup characters escaped, bytes that are not UTF-8 and control
// characters XML 1.0 cannot hold replaced by U+FFFD (a kernel's message may carry any bytes).
// In an attribute, line breaks and tabs are kept as character references, since a parser
// would turn literal ones into spaces.
std::string xml_escaped(const std::string& text, bool attribute) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = utf8_sequence_length(text, at);
    if (length == 0) {
      out += kReplacementCharacter;
      ++at;
      continue;
    }
    if (length > 1) {
      out.append(text, at, length);
      at += length;
      continue;
    }
    const char c = text[at++];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += attribute ? "&quot;" : "\""; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += kReplacementCharacter;
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string attribute(const std::string& text) { return xml_escaped(text, true); }
std::string character_data(const std::string& text) { return xml_escaped(text, false); }

std::string seconds(double milliseconds) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(3)
       << (std::isfinite(milliseconds) && milliseconds > 0 ? milliseconds / 1000 : 0.0);
  return text.str();
}

std::string first_line(const std::string& text) {
  const std::size_t end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

struct JunitSuite {
  std::string name;
  std::vector<const CaseRecord*> cases;
  double milliseconds = 0;
  int failures = 0;
  int skipped = 0;
};

bool is_failure(const std::string& status) { return status == "failed" || status == "crashed"; }

// A case's message without gtest's "Failed" line (ADD_FAILURE's header, which would otherwise be
// every failure's summary) and without trailing line breaks.
std::string case_message(const std::string& message) {
  constexpr const char* kGtestFailureHeader = "Failed\n";
  std::string text = message.rfind(kGtestFailureHeader, 0) == 0
                         ? message.substr(std::string(kGtestFailureHeader).size())
                         : message;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// The whole message and the command that replays the case: with its inputs' environment
// (RKT_SEED=..., RC_PARAMS=...) where the details are known, else the plain command.
std::string failure_text(const CaseRecord& record) {
  const std::string message = case_message(record.message);
  const std::string reproduce = case_reproduce(record);
  return message + (message.empty() ? "" : "\n") +
         "replay: " + (reproduce.empty() ? replay_command(record.name) : reproduce);
}

void write_testcase(std::ostringstream& xml, const std::string& suite, const std::string& name,
                    const std::string& status, double milliseconds, const std::string& message,
                    const std::string& failure_body) {
  xml << "    <testcase name=\"" << attribute(name) << "\" classname=\"" << attribute(suite)
      << "\" time=\"" << seconds(milliseconds) << "\"";
  if (is_failure(status)) {
    const std::string summary = first_line(message).empty() ? "the case " + status : first_line(message);
    xml << ">\n      <failure message=\"" << attribute(summary) << "\" type=\"" << status
        << "\">" << character_data(failure_body) << "</failure>\n    </testcase>\n";
  } else if (status == "skipped") {
    xml << ">\n      <skipped message=\"" << attribute(message) << "\"/>\n    </testcase>\n";
  } else if (!message.empty()) {
    // A passing case's summary (error norms, timings), as gtest's RecordProperty output would be.
    xml << ">\n      <system-out>" << character_data(message) << "</system-out>\n    </testcase>\n";
  } else {
    xml << "/>\n";
  }
}

}  // namespace

std::string junit_report_xml(const SupervisedRun& run, const SuiteProperties& suite_properties) {
  std::vector<JunitSuite> suites;
  for (const CaseRecord& record : run.cases) {
    const std::string suite = record.name.substr(0, record.name.rfind('.'));
    // A kernel's cases are one suite, in the order they ran (a restarted child's too).
    auto found = std::find_if(suites.begin(), suites.end(),
                              [&](const JunitSuite& entry) { return entry.name == suite; });
    if (found == suites.end()) found = suites.insert(suites.end(), JunitSuite{suite, {}, 0, 0, 0});
    JunitSuite& entry = *found;
    entry.cases.push_back(&record);
    if (std::isfinite(record.milliseconds) && record.milliseconds > 0) {
      entry.milliseconds += record.milliseconds;
    }
    entry.failures += is_failure(record.status);
    entry.skipped += record.status == "skipped";
  }
  std::vector<std::string> problems = run.problems;
  if (run.cases.empty() && problems.empty()) problems.push_back("no test case matched the filter");

  int tests = static_cast<int>(problems.size());
  int failures = static_cast<int>(problems.size());
  int skipped = 0;
  double milliseconds = 0;
  for (const JunitSuite& suite : suites) {
    tests += static_cast<int>(suite.cases.size());
    failures += suite.failures;
    skipped += suite.skipped;
    milliseconds += suite.milliseconds;
  }
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"AllTests\" tests=\"" << tests << "\" failures=\"" << failures
      << "\" errors=\"0\" skipped=\"" << skipped << "\" time=\"" << seconds(milliseconds)
      << "\">\n";
  for (const JunitSuite& suite : suites) {
    xml << "  <testsuite name=\"" << attribute(suite.name) << "\" tests=\"" << suite.cases.size()
        << "\" failures=\"" << suite.failures << "\" errors=\"0\" skipped=\"" << suite.skipped
        << "\" time=\"" << seconds(suite.milliseconds) << "\">\n";
    if (const auto declared = suite_properties.find(suite.name);
        declared != suite_properties.end() && !declared->second.empty()) {
      xml << "    <properties>\n";
      for (const auto& [name, value] : declared->second) {
        xml << "      <property name=\"" << attribute(name) << "\" value=\"" << attribute(value) << "\"/>\n";
      }
      xml << "    </properties>\n";
    }
    for (const CaseRecord* record : suite.cases) {
      const std::size_t dot = record->name.rfind('.');
      const std::string name = dot == std::string::npos ? record->name : record->name.substr(dot + 1);
      write_testcase(xml, suite.name, name, record->status, record->milliseconds,
                     case_message(record->message), failure_text(*record));
    }
    xml << "  </testsuite>\n";
  }
  if (!problems.empty()) {
    xml << "  <testsuite name=\"" << kRunProblemsSuite << "\" tests=\"" << problems.size()
        << "\" failures=\"" << problems.size() << "\" errors=\"0\" skipped=\"0\" time=\"0.000\">\n";
    for (std::size_t i = 0; i < problems.size(); ++i) {
      write_testcase(xml, kRunProblemsSuite, "problem_" + std::to_string(i + 1), "failed", 0,
                     problems[i], problems[i]);
    }
    xml << "  </testsuite>\n";
  }
  xml << "</testsuites>\n";
  return xml.str();
}

std::string junit_path_from_gtest_output(const std::string& value, const std::string& program,
                                         std::string& error) {
  const std::string format = value.substr(0, value.find(':'));
  if (format != "xml") {
    error = "--gtest_output takes 'xml', 'xml:FILE' or 'xml:DIR/' (JUnit XML), not '" + value +
            "'" + (format == "json" ? "; rkt test --json writes JSON records to standard output"
                                    : "");
    return "";
  }
  if (value == "xml") return kDefaultJunitFile;
  const std::string path = value.substr(4);
  if (path.empty()) {
    error = "--gtest_output=xml: needs a file name after 'xml:' (or use --gtest_output=xml for " +
            std::string(kDefaultJunitFile) + ")";
    return "";
  }
  if (path.back() != '/') return path;
  const std::size_t slash = program.rfind('/');
  return path + (slash == std::string::npos ? program : program.substr(slash + 1)) + ".xml";
}

std::string junit_path_problem(const std::string& path) {
  const std::string problem = "cannot write the JUnit report '" + path + "': ";
  const std::size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  try {
    make_directories(folder);
  } catch (const std::runtime_error& error) {
    return problem + error.what();
  }
  struct stat info {};
  const bool exists = ::stat(path.c_str(), &info) == 0;
  if (exists && S_ISDIR(info.st_mode)) return problem + "it is a folder";
  if (exists ? ::access(path.c_str(), W_OK) != 0 : ::access(folder.c_str(), W_OK) != 0) {
    return problem + (exists ? "the file" : "its folder") + " is not writable";
  }
  return "";
}

void write_junit_report(const std::string& path, const SupervisedRun& run,
                        const SuiteProperties& suite_properties) {
  write_file_atomically(path, junit_report_xml(run, suite_properties));
}

}  // namespace rkt
