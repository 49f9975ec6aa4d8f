#include "framework/supervision/case_records_json.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include "framework/base/json_text.h"

namespace rkt {
namespace {

constexpr const char* kFieldSeparator = "; ";
constexpr const char* kReproduceField = "reproduce ";  // Last: it takes the rest of the line.

std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  std::ostringstream text;
  text << std::setprecision(17) << value;
  return text.str();
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::string with_case_details(const std::string& message, const CaseDetails& details) {
  if (!details.known) return message;
  std::ostringstream line;
  line << message << kCaseDetailsMarker << "dims";
  for (const auto& [name, size] : details.dims) line << " " << name << "=" << size;
  line << kFieldSeparator << "scale " << number(details.scale) << kFieldSeparator << "seed "
       << (details.seed_known ? std::to_string(details.seed) : "withheld") << kFieldSeparator
       << "config " << details.config << kFieldSeparator << kReproduceField << details.reproduce;
  return line.str();
}

CaseDetails take_case_details(std::string& message) {
  CaseDetails details;
  const std::size_t at = message.rfind(kCaseDetailsMarker);
  if (at == std::string::npos) return details;
  std::string line = message.substr(at + std::string(kCaseDetailsMarker).size());
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (line.find('\n') != std::string::npos) return details;  // Not our last line: leave it.
  const std::size_t reproduce = line.find(std::string(kFieldSeparator) + kReproduceField);
  if (reproduce == std::string::npos) return details;
  details.reproduce = line.substr(reproduce + 2 + std::string(kReproduceField).size());
  std::istringstream fields(line.substr(0, reproduce));
  try {
    for (std::string field; std::getline(fields, field, ';');) {
      if (!field.empty() && field[0] == ' ') field.erase(0, 1);
      if (starts_with(field, "dims")) {
        std::istringstream dims(field.substr(4));
        for (std::string dim; dims >> dim;) {
          const std::size_t equals = dim.find('=');
          if (equals == std::string::npos) return {};
          details.dims[dim.substr(0, equals)] = std::stoll(dim.substr(equals + 1));
        }
      } else if (starts_with(field, "scale ")) {
        details.scale = std::stod(field.substr(6));
      } else if (starts_with(field, "seed ")) {
        details.seed_known = field.substr(5) != "withheld";
        if (details.seed_known) details.seed = std::stoull(field.substr(5));
      } else if (starts_with(field, "config ")) {
        details.config = field.substr(7);
      } else {
        return {};
      }
    }
  } catch (const std::exception&) {
    return {};
  }
  details.known = true;
  message.erase(at);
  return details;
}

std::string case_record_json(const CaseRecord& record) {
  const std::size_t dot = record.name.rfind('.');
  std::ostringstream out;
  out << "{\"name\": " << json_string(record.name)
      << ", \"suite\": " << json_string(record.name.substr(0, dot))
      << ", \"case\": " << json_string(dot == std::string::npos ? "" : record.name.substr(dot + 1))
      << ", \"status\": " << json_string(record.status)
      << ", \"milliseconds\": " << number(record.milliseconds)
      << ", \"message\": " << json_string(record.message);
  const CaseDetails& details = record.details;
  if (details.known) {
    out << ", \"dims\": {";
    bool first = true;
    for (const auto& [name, size] : details.dims) {
      out << (first ? "" : ", ") << json_string(name) << ": " << size;
      first = false;
    }
    out << "}, \"scale\": " << number(details.scale)
        << ", \"seed\": " << (details.seed_known ? std::to_string(details.seed) : "null")
        << ", \"config\": " << json_string(details.config)
        << ", \"reproduce\": "
        << json_string(details.reproduce.empty()
                           ? ""
                           : details.reproduce + " rkt test --filter '" + record.name + "'");
  }
  out << "}";
  return out.str();
}

std::string supervised_run_json(const SupervisedRun& run, const std::string& seed,
                                const std::string& filter) {
  std::ostringstream out;
  out << "{\"seed\": " << json_string(seed) << ", \"filter\": " << json_string(filter)
      << ",\n \"cases\": [";
  for (std::size_t i = 0; i < run.cases.size(); ++i) {
    out << (i ? "," : "") << "\n  " << case_record_json(run.cases[i]);
  }
  out << "],\n \"problems\": [";
  for (std::size_t i = 0; i < run.problems.size(); ++i) {
    out << (i ? ", " : "") << json_string(run.problems[i]);
  }
  out << "],\n \"summary\": {\"passed\": " << run.count("passed")
      << ", \"failed\": " << run.count("failed") << ", \"crashed\": " << run.count("crashed")
      << ", \"skipped\": " << run.count("skipped") << ", \"processes\": " << run.processes
      << ", \"exit_code\": " << supervised_exit_code(run) << "}}\n";
  return out.str();
}

}  // namespace rkt
