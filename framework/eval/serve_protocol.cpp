#include "framework/eval/serve_protocol.h"

#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>

#include "framework/eval/kernel_source.h"

namespace rkt {
namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& line) { return line.dump(-1, ' ', false, Json::error_handler_t::replace); }

Json id_value(const std::string& id) { return id.empty() ? Json(nullptr) : Json(id); }

int positive_seconds(const Json& request, const char* field) {
  if (!request.contains(field)) return 0;
  const Json& value = request.at(field);
  if (!value.is_number_integer() || value.get<long long>() <= 0 || value.get<long long>() > 1000000) {
    throw std::invalid_argument(std::string("\"") + field + "\" takes a positive whole number of seconds");
  }
  return static_cast<int>(value.get<long long>());
}

std::string text_field(const Json& request, const char* field) {
  if (!request.contains(field)) return "";
  if (!request.at(field).is_string()) {
    throw std::invalid_argument(std::string("\"") + field + "\" takes a string");
  }
  return request.at(field).get<std::string>();
}

}  // namespace

ServeRequest parse_serve_request(const std::string& line, std::string& id) {
  Json request;
  try {
    request = Json::parse(line);
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(std::string("the request is not JSON: ") + error.what());
  }
  if (!request.is_object()) throw std::invalid_argument("the request is not a JSON object");
  if (request.contains("id")) {
    const Json& value = request.at("id");
    if (value.is_string()) id = value.get<std::string>();
    else if (value.is_number_integer()) id = std::to_string(value.get<long long>());
    else throw std::invalid_argument("\"id\" takes a string or a whole number");
  }
  static const std::set<std::string> known = {"id", "op", "file", "source", "name", "task",
                                              "timeout", "benchmark_timeout", "file_timeout",
                                              "allow_declarations"};
  for (const auto& [field, value] : request.items()) {
    if (known.count(field) == 0) {
      throw std::invalid_argument("unknown field \"" + field + "\" (known: id, op, file, source, name, task, "
                                  "timeout, benchmark_timeout, file_timeout, allow_declarations)");
    }
  }
  ServeRequest parsed;
  parsed.id = id;
  const std::string op = text_field(request, "op");
  if (op == "ping") {
    parsed.ping = true;
    return parsed;
  }
  if (!op.empty() && op != "judge") {
    throw std::invalid_argument("unknown \"op\" '" + op + "' (judge, the default, or ping)");
  }
  parsed.file = text_field(request, "file");
  parsed.source_text = text_field(request, "source");
  parsed.source_name = text_field(request, "name");
  if (parsed.file.empty() == parsed.source_text.empty()) {
    throw std::invalid_argument("a request names one kernel source: \"file\" (a path) or \"source\" (its text, "
                                "with \"name\")");
  }
  if (!parsed.source_text.empty()) {
    const std::string& name = parsed.source_name;
    if (name.empty() || name.find('/') != std::string::npos || name[0] == '.' ||
        !is_kernel_source(name)) {
      throw std::invalid_argument(std::string("\"name\" takes the source's file name, ending in ") +
                                  kKernelSourceEndings + ", without a folder (got '" + name + "')");
    }
  } else if (!parsed.source_name.empty()) {
    throw std::invalid_argument("\"name\" goes with \"source\", not with \"file\"");
  }
  parsed.task = text_field(request, "task");
  parsed.case_timeout_seconds = positive_seconds(request, "timeout");
  parsed.benchmark_timeout_seconds = positive_seconds(request, "benchmark_timeout");
  parsed.file_timeout_seconds = positive_seconds(request, "file_timeout");
  if (request.contains("allow_declarations")) {
    if (!request.at("allow_declarations").is_boolean()) {
      throw std::invalid_argument("\"allow_declarations\" takes true or false");
    }
    parsed.allow_declarations = request.at("allow_declarations").get<bool>();
  }
  return parsed;
}

std::string serve_judge_request_line(const std::string& id, const std::string& file, const EvalOptions& options) {
  Json request = Json::object();
  request["id"] = id;
  request["file"] = file;
  if (!options.task.empty()) request["task"] = options.task;
  if (options.case_timeout_seconds > 0) request["timeout"] = options.case_timeout_seconds;
  if (options.benchmark_timeout_seconds > 0) request["benchmark_timeout"] = options.benchmark_timeout_seconds;
  if (options.file_timeout_seconds > 0) request["file_timeout"] = options.file_timeout_seconds;
  if (options.allow_declarations) request["allow_declarations"] = true;
  return dump(request);
}

std::string serve_record_line(const std::string& id, const EvalRecord& record) {
  Json line = Json::object();
  line["id"] = id_value(id);
  line["record"] = Json::parse(eval_record_json(record));
  return dump(line);
}

std::string serve_done_line(const std::string& id, std::size_t records, const std::string& verdict,
                            double seconds, double queued_seconds) {
  Json line = Json::object();
  line["id"] = id_value(id);
  line["done"] = true;
  line["records"] = records;
  line["verdict"] = verdict;
  line["seconds"] = seconds;
  line["queued_seconds"] = queued_seconds;
  return dump(line);
}

std::string serve_error_line(const std::string& id, const std::string& message) {
  Json line = Json::object();
  line["id"] = id_value(id);
  line["error"] = message;
  return dump(line);
}

std::string serve_pong_line(const std::string& id, std::size_t queued) {
  Json line = Json::object();
  line["id"] = id_value(id);
  line["pong"] = true;
  line["queued"] = queued;
  return dump(line);
}

}  // namespace rkt
