#include "framework/benchmarks/benchmark_record.h"

#include <sstream>
#include <stdexcept>

#include "framework/base/record_fields.h"

namespace rkt {
namespace {

using Fields = RecordFields;

void put_summary(Fields& fields, const std::string& prefix, const SampleSummary& summary) {
  fields[prefix + "count"] = std::to_string(summary.count);
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, double>>{{"median", summary.median},
                                                   {"q1", summary.first_quartile},
                                                   {"q3", summary.third_quartile},
                                                   {"mean", summary.mean},
                                                   {"stddev", summary.stddev},
                                                   {"noise", summary.relative_noise}}) {
    fields[prefix + name] = record_number(value);
  }
}

double get_number(const Fields& fields, const std::string& key) {
  const auto found = fields.find(key);
  return found == fields.end() ? 0 : std::stod(found->second);
}

SampleSummary get_summary(const Fields& fields, const std::string& prefix) {
  SampleSummary summary;
  summary.count = static_cast<int>(get_number(fields, prefix + "count"));
  summary.median = get_number(fields, prefix + "median");
  summary.first_quartile = get_number(fields, prefix + "q1");
  summary.third_quartile = get_number(fields, prefix + "q3");
  summary.mean = get_number(fields, prefix + "mean");
  summary.stddev = get_number(fields, prefix + "stddev");
  summary.relative_noise = get_number(fields, prefix + "noise");
  return summary;
}

void put_interval(Fields& fields, const std::string& prefix, const RatioInterval& interval) {
  fields[prefix + "ratio"] = record_number(interval.ratio);
  fields[prefix + "low"] = record_number(interval.low);
  fields[prefix + "high"] = record_number(interval.high);
}

RatioInterval get_interval(const Fields& fields, const std::string& prefix) {
  return {get_number(fields, prefix + "ratio"), get_number(fields, prefix + "low"),
          get_number(fields, prefix + "high")};
}

}  // namespace

bool BenchmarkRecord::faster_than_strongest() const {
  return measured && !impossible && spot_check_failures == 0 && !strongest_baseline.empty() &&
         speedup_vs_strongest.low > 1;
}

std::string serialize(const BenchmarkRecord& record) {
  Fields fields;
  fields["task"] = record.task;
  fields["kernel"] = record.kernel;
  fields["device"] = record.device;
  fields["precision"] = record.precision;
  fields["dims"] = record.dims;
  fields["measured"] = record.measured ? "1" : "0";
  fields["problem"] = record.problem;
  put_summary(fields, "time.", record.time);
  fields["stop_reason"] = record.stop_reason;
  fields["peak_memory_bytes"] = record_number(record.peak_memory_bytes);
  fields["floor_ms"] = record_number(record.floor_ms);
  fields["impossible"] = record.impossible ? "1" : "0";
  fields["achieved_bytes_per_second"] = record_number(record.achieved_bytes_per_second);
  fields["achieved_flops_per_second"] = record_number(record.achieved_flops_per_second);
  fields["bandwidth_fraction"] = record_number(record.bandwidth_fraction);
  fields["flops_fraction"] = record_number(record.flops_fraction);
  fields["spot_checks"] = std::to_string(record.spot_checks);
  fields["spot_check_failures"] = std::to_string(record.spot_check_failures);
  fields["spot_check_message"] = record.spot_check_message;
  fields["baselines"] = std::to_string(record.baselines.size());
  for (std::size_t i = 0; i < record.baselines.size(); ++i) {
    const BaselineResult& baseline = record.baselines[i];
    const std::string prefix = "baseline." + std::to_string(i) + ".";
    fields[prefix + "name"] = baseline.name;
    fields[prefix + "available"] = baseline.available ? "1" : "0";
    fields[prefix + "absent_reason"] = baseline.absent_reason;
    fields[prefix + "measures"] = baseline.measures;
    put_summary(fields, prefix + "time.", baseline.time);
    fields[prefix + "peak_memory_bytes"] = record_number(baseline.peak_memory_bytes);
    put_interval(fields, prefix + "speedup.", baseline.speedup);
    fields[prefix + "memory_efficiency"] = record_number(baseline.memory_efficiency);
  }
  fields["strongest_baseline"] = record.strongest_baseline;
  put_interval(fields, "speedup_vs_strongest.", record.speedup_vs_strongest);
  return format_record_fields(fields);
}

BenchmarkRecord deserialize_benchmark_record(const std::string& text) {
  const Fields fields = parse_record_fields(text, "benchmark record");
  BenchmarkRecord record;
  record.task = record_text(fields, "task");
  record.kernel = record_text(fields, "kernel");
  record.device = record_text(fields, "device");
  record.precision = record_text(fields, "precision");
  record.dims = record_text(fields, "dims");
  record.measured = record_text(fields, "measured") == "1";
  record.problem = record_text(fields, "problem");
  record.time = get_summary(fields, "time.");
  record.stop_reason = record_text(fields, "stop_reason");
  record.peak_memory_bytes = get_number(fields, "peak_memory_bytes");
  record.floor_ms = get_number(fields, "floor_ms");
  record.impossible = record_text(fields, "impossible") == "1";
  record.achieved_bytes_per_second = get_number(fields, "achieved_bytes_per_second");
  record.achieved_flops_per_second = get_number(fields, "achieved_flops_per_second");
  record.bandwidth_fraction = get_number(fields, "bandwidth_fraction");
  record.flops_fraction = get_number(fields, "flops_fraction");
  record.spot_checks = static_cast<int>(get_number(fields, "spot_checks"));
  record.spot_check_failures = static_cast<int>(get_number(fields, "spot_check_failures"));
  record.spot_check_message = record_text(fields, "spot_check_message");
  const int baselines = static_cast<int>(get_number(fields, "baselines"));
  for (int i = 0; i < baselines; ++i) {
    const std::string prefix = "baseline." + std::to_string(i) + ".";
    BaselineResult baseline;
    baseline.name = record_text(fields, prefix + "name");
    baseline.available = record_text(fields, prefix + "available") == "1";
    baseline.absent_reason = record_text(fields, prefix + "absent_reason");
    baseline.measures = record_text(fields, prefix + "measures");
    baseline.time = get_summary(fields, prefix + "time.");
    baseline.peak_memory_bytes = get_number(fields, prefix + "peak_memory_bytes");
    baseline.speedup = get_interval(fields, prefix + "speedup.");
    baseline.memory_efficiency = get_number(fields, prefix + "memory_efficiency");
    record.baselines.push_back(baseline);
  }
  record.strongest_baseline = record_text(fields, "strongest_baseline");
  record.speedup_vs_strongest = get_interval(fields, "speedup_vs_strongest.");
  return record;
}

}  // namespace rkt
