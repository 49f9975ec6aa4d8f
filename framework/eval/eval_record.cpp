#include "framework/eval/eval_record.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

#include "framework/supervision/case_records_json.h"

namespace rkt {
namespace {

using Json = nlohmann::ordered_json;

Json interval(const RatioInterval& ratio) {
  return Json{{"ratio", ratio.ratio}, {"low", ratio.low}, {"high", ratio.high}};
}

// The command that replays a failed case on the same inputs: the one every report prints
// (replay_command_line), with the eval's library named.
std::string replay_with_library(CaseRecord record, const std::string& library) {
  record.details.kernel_library = library;
  return case_reproduce(record);  // "" when withheld (a hidden case)
}

}  // namespace

std::string EvalRecord::verdict() const {
  if (!recheck_disagreement.empty()) return "FAIL";
  return status == "judged" && has_kernel ? kernel.verdict() : "FAIL";
}

std::string eval_record_json(const EvalRecord& record) {
  Json line = Json::object();
  line["file"] = record.file;
  line["library_hash"] = record.library_hash;
  line["status"] = record.status;
  line["verdict"] = record.verdict();
  line["declarations_allowed"] = record.declarations_allowed;
  if (!record.has_kernel) {
    line["message"] = record.message;
    return line.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  const KernelReport& kernel = record.kernel;
  line["task"] = kernel.task;
  line["kernel"] = kernel.kernel;
  line["device"] = kernel.device;
  line["precision"] = kernel.precision;
  line["task_severity"] = kernel.task_severity;
  // The declarations in force: what the verdict holds under (a ranking keeps them apart).
  Json declarations = Json::object();
  declarations["precision"] = kernel.precision;
  declarations["accumulates_in"] = kernel.accumulation;
  Json waived = Json::object();
  for (const auto& [gate, reason] : kernel.waived_gates) waived[gate] = reason;
  declarations["waived_gates"] = waived;
  declarations["allowed_operators"] = kernel.allowed_operators;
  declarations["supports"] = kernel.supported_dims;
  declarations["alignment_bytes"] = kernel.alignment_bytes;
  declarations["restricted"] =
      !kernel.waived_gates.empty() || !kernel.allowed_operators.empty() || !kernel.supported_dims.empty();
  line["declarations"] = declarations;
  Json cases = Json::array();
  const CaseRecord* first_failure = nullptr;
  for (const CaseRecord& item : kernel.cases.cases) {
    // Each case's time too: a generation loop sees what a kernel's verdict cost, and where.
    cases.push_back(
        Json{{"name", item.name}, {"status", item.status}, {"milliseconds", item.milliseconds}});
    if (first_failure == nullptr && (item.status == "failed" || item.status == "crashed")) {
      first_failure = &item;
    }
  }
  line["cases"] = cases;
  line["problems"] = kernel.cases.problems;
  if (first_failure != nullptr) {
    line["first_failure"] = Json{{"case", first_failure->name},
                                 {"status", first_failure->status},
                                 {"message", first_failure->message},
                                 {"reproduce", replay_with_library(*first_failure, record.library)}};
  } else {
    line["first_failure"] = nullptr;
  }
  const BenchmarkRecord& benchmark = kernel.benchmark;
  Json timing = Json::object();
  timing["measured"] = benchmark.measured;
  if (benchmark.measured) {
    timing["median_ms"] = benchmark.time.median;
    timing["first_quartile_ms"] = benchmark.time.first_quartile;
    timing["third_quartile_ms"] = benchmark.time.third_quartile;
    timing["samples"] = benchmark.time.count;
    timing["peak_memory_bytes"] = benchmark.peak_memory_bytes;
    timing["dims"] = benchmark.dims;
    Json speedups = Json::object();
    for (const BaselineResult& baseline : benchmark.baselines) {
      if (baseline.available) {
        Json entry = interval(baseline.speedup);
        entry["baseline_median_ms"] = baseline.time.median;
        entry["baseline_peak_memory_bytes"] = baseline.peak_memory_bytes;
        speedups[baseline.name] = entry;
      }
    }
    timing["speedups"] = speedups;
    timing["strongest_baseline"] = benchmark.strongest_baseline;
    timing["speedup_vs_strongest"] = interval(benchmark.speedup_vs_strongest);
    // Either fails the kernel after its cases passed (KernelReport::verdict).
    timing["impossible"] = benchmark.impossible;
    timing["spot_check_failures"] = benchmark.spot_check_failures;
    timing["spot_check_message"] = benchmark.spot_check_message;
  } else {
    timing["problem"] = benchmark.problem;
  }
  line["benchmark"] = timing;
  line["seconds"] = kernel.seconds;
  line["judge_started_ahead"] = record.judge_started_ahead;
  line["child_processes"] = {{"started", kernel.cases.processes}, {"started_ahead", kernel.cases.processes_started_ahead}};
  if (record.rechecked) {
    // Both judgements stay in the record: the first above, the second here.
    Json second = Json::object();
    second["verdict"] = record.recheck.cases.cases.empty() ? "none" : record.recheck.verdict();
    second["measured"] = record.recheck.benchmark.measured;
    if (record.recheck.benchmark.measured) {
      second["median_ms"] = record.recheck.benchmark.time.median;
      second["first_quartile_ms"] = record.recheck.benchmark.time.first_quartile;
      second["third_quartile_ms"] = record.recheck.benchmark.time.third_quartile;
      second["speedup_vs_strongest"] = interval(record.recheck.benchmark.speedup_vs_strongest);
    } else {
      second["problem"] = record.recheck.benchmark.problem;
    }
    second["seed"] = "a fresh secret seed (withheld)";
    second["agrees"] = record.recheck_disagreement.empty();
    second["disagreement"] = record.recheck_disagreement;
    line["recheck"] = second;
  } else {
    line["recheck"] = nullptr;
  }
  return line.dump(-1, ' ', false, Json::error_handler_t::replace);
}

EvalRecord eval_record_from_json(const std::string& text) {
  EvalRecord record;
  try {
    const Json line = Json::parse(text);
    record.file = line.at("file").get<std::string>();
    record.library_hash = line.at("library_hash").get<std::string>();
    record.status = line.at("status").get<std::string>();
    if (line.contains("message")) record.message = line.at("message").get<std::string>();
    if (line.contains("declarations_allowed")) {
      record.declarations_allowed = line.at("declarations_allowed").get<bool>();
    }
    if (line.contains("kernel")) record.kernel.kernel = line.at("kernel").get<std::string>();
    if (line.contains("task")) record.kernel.task = line.at("task").get<std::string>();
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(std::string("not an eval record: ") + error.what());
  }
  return record;
}

}  // namespace rkt
