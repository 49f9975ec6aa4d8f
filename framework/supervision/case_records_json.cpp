#include "framework/supervision/case_records_json.h"

#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

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

std::string with_case_details(const std::string& message, const CaseDetails& details,
                              const std::string& case_name) {
  if (!details.known) return message;
  const std::string library =
      details.kernel_library.empty() ? replay_kernel_library() : details.kernel_library;
  const std::string reproduce =
      details.reproduce.empty() ? "" : replay_command_line(library, details.reproduce, case_name);
  std::ostringstream line;
  line << message << kCaseDetailsMarker << "dims";
  for (const auto& [name, size] : details.dims) line << " " << name << "=" << size;
  line << kFieldSeparator << "scale " << number(details.scale) << kFieldSeparator << "seed "
       << (details.seed_known ? std::to_string(details.seed) : "withheld") << kFieldSeparator
       << "config " << details.config << kFieldSeparator << kReproduceField << reproduce;
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
  // The whole command: its environment and library are kept, the program and filter rebuilt.
  const ReplayParts parts =
      parse_replay_command(line.substr(reproduce + 2 + std::string(kReproduceField).size()));
  details.reproduce = parts.environment;
  details.kernel_library = parts.kernel_library;
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

namespace {

using Json = nlohmann::ordered_json;

// Bytes that are not UTF-8 (a kernel's message may carry any) are written as U+FFFD instead of
// refused.
std::string json_text(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Milliseconds and scale keep every digit (the library writes the shortest text that reads
// back as the same double); non-finite ones are written as null.
Json case_record(const CaseRecord& record) {
  const std::size_t dot = record.name.rfind('.');
  Json entry = Json::object();
  entry["name"] = record.name;
  entry["suite"] = record.name.substr(0, dot);
  entry["case"] = dot == std::string::npos ? "" : record.name.substr(dot + 1);
  entry["status"] = record.status;
  entry["milliseconds"] = record.milliseconds;
  entry["message"] = record.message;
  if (record.phases.total() > 0) {
    // Where the case's milliseconds went inside its judge (base/phase_times.h).
    Json& phases = entry["time_breakdown_ms"] = Json::object();
    for (std::size_t i = 0; i < kPhaseCount; ++i) {
      phases[to_string(static_cast<Phase>(i))] = record.phases.milliseconds[i];
    }
  }
  const CaseDetails& details = record.details;
  if (details.known) {
    Json& dims = entry["dims"] = Json::object();
    for (const auto& [name, size] : details.dims) dims[name] = size;
    entry["scale"] = details.scale;
    entry["seed"] = nullptr;
    if (details.seed_known) entry["seed"] = details.seed;
    entry["config"] = details.config;
    entry["reproduce"] = case_reproduce(record);
  }
  return entry;
}

}  // namespace

std::string case_record_json(const CaseRecord& record) { return json_text(case_record(record), -1); }

std::string supervised_run_json(const SupervisedRun& run, const std::string& seed,
                                const std::string& filter) {
  Json top = Json::object();
  top["seed"] = seed;
  top["filter"] = filter;
  Json& cases = top["cases"] = Json::array();
  for (const CaseRecord& record : run.cases) cases.push_back(case_record(record));
  top["problems"] = run.problems;
  Json& summary = top["summary"] = Json::object();
  for (const char* status : {"passed", "failed", "crashed", "skipped"}) {
    summary[status] = run.count(status);
  }
  summary["processes"] = run.processes;
  summary["processes_started_ahead"] = run.processes_started_ahead;
  summary["exit_code"] = supervised_exit_code(run);
  return json_text(top, 2) + "\n";
}

}  // namespace rkt
