#include "framework/cases/task_filter.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "framework/base/recorded_number.h"
#include "framework/comparison/derived_tolerance.h"
#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/input_scaling.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_invocation.h"

namespace rkt {
namespace {

using Outputs = std::vector<at::Tensor>;

// What one config of a task showed, sorted by what it means for the task's severity.
struct ConfigFindings {
  std::vector<std::string> exclusion_grounds;  ///< A do-nothing kernel passes, or the statistics.
  std::vector<std::string> precision_blind;    ///< bf16 passes every distribution.
  std::vector<std::string> notes;
};

// The name the filter gives the lower-precision stand-in; it is judged apart from the do-nothing
// kernels. On a task stored in bf16 or fp16 the class below the task's is fp8: e4m3's 3 mantissa
// bits (a kernel computing in bf16 there computes what the task asks).
constexpr const char* kLowerPrecisionName = "the reference computed in bf16";
constexpr const char* kBelowStorageName = "the reference computed on inputs rounded to fp8 e4m3's 3 mantissa bits";
constexpr int kE4m3MantissaBits = 3;

Outputs reference_of(const TaskSpec& task, const std::vector<at::Tensor>& inputs) {
  return run_reference_float64(task, inputs, Device::cpu);
}

std::vector<at::Tensor> draw(const TaskSpec& task, std::uint64_t seed) {
  return generate_inputs(task, task.small_dims(), seed);
}

// Per-element std across runs, for output `o`.
at::Tensor spread_across(const std::vector<Outputs>& runs, std::size_t o) {
  std::vector<at::Tensor> stack;
  for (const Outputs& run : runs) stack.push_back(run[o].to(at::kDouble));
  return at::stack(stack).std(0, /*unbiased=*/false);
}

bool all_below(const at::Tensor& values, double threshold) {
  return values.numel() == 0 || values.abs().max().item<double>() < threshold;
}

// Inputs drawn from `data_seed` for the data and `weight_seed` for the weights.
std::vector<at::Tensor> mixed_inputs(const TaskSpec& task, std::uint64_t data_seed,
                                     std::uint64_t weight_seed) {
  std::vector<at::Tensor> data = draw(task, data_seed), weights = draw(task, weight_seed);
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (task.inputs()[i].is_weight) data[i] = weights[i];
  }
  return data;
}

bool has_weights(const TaskSpec& task) {
  for (const InputSpec& input : task.inputs()) {
    if (input.is_weight) return true;
  }
  return false;
}

std::string output_label(const TaskSpec& task, std::size_t o) {
  return "output '" + task.output_names()[o] + "'";
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + word;
  return text;
}

// The trivial kernels: each returns outputs for `inputs` without computing the task (the bf16
// stand-in computes it, at a lower precision).
std::vector<std::pair<std::string, Outputs>> trivial_outputs(const TaskSpec& task,
                                                             const std::vector<at::Tensor>& inputs,
                                                             const Outputs& reference,
                                                             const Outputs& calibration) {
  std::vector<std::pair<std::string, Outputs>> trivial;
  Outputs zeros, constant, noise, bf16;
  at::Generator generator = at::detail::createCPUGenerator(7);
  for (std::size_t o = 0; o < reference.size(); ++o) {
    const at::Tensor calibrated = calibration[o].to(at::kDouble);
    zeros.push_back(at::zeros_like(reference[o]));
    constant.push_back(at::full_like(reference[o], calibrated.mean().item<double>()));
    noise.push_back(at::empty_like(reference[o], at::kDouble)
                        .normal_(calibrated.mean().item<double>(),
                                 calibrated.numel() > 1 ? calibrated.std().item<double>() : 0,
                                 generator));
  }
  trivial.push_back({"all zeros", zeros});
  trivial.push_back({"a constant (the mean of another seed's output)", constant});
  trivial.push_back({"noise with another seed's output mean and std", noise});
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (reference.size() == 1 && inputs[i].sizes() == reference[0].sizes()) {
      trivial.push_back({"input '" + task.inputs()[i].name + "' returned unchanged",
                         {inputs[i].to(at::kDouble)}});
    }
  }
  const bool stored_low = has_low_precision_input(inputs);
  std::vector<at::Tensor> low;
  for (const at::Tensor& input : inputs) {
    if (!input.is_floating_point()) {
      low.push_back(input);
    } else {
      low.push_back(stored_low ? round_mantissa(input, kE4m3MantissaBits)
                               : input.to(at::kBFloat16).to(at::kFloat));
    }
  }
  for (const at::Tensor& output : task.reference()(low)) bf16.push_back(output.to(at::kDouble));
  trivial.push_back({stored_low ? kBelowStorageName : kLowerPrecisionName, bf16});
  return trivial;
}

// robust-kbench's statistics at x1 over the filter's seeds (exclusion grounds), and whether the
// weights move any output (a note).
void judge_statistics(const TaskSpec& task, const std::vector<std::uint64_t>& seeds,
                      const std::vector<Outputs>& runs, ConfigFindings& findings) {
  const double threshold = kFilterThreshold * task.output_scale(task.small_dims());
  const std::string below = std::to_string(threshold);
  for (std::size_t o = 0; o < runs[0].size(); ++o) {
    bool tiny = true;
    for (const Outputs& run : runs) tiny = tiny && all_below(run[o], threshold);
    if (tiny) {
      findings.exclusion_grounds.push_back("output_range: every element of " +
                                           output_label(task, o) + " lies within " + below +
                                           " of zero");
    }
    if (all_below(spread_across(runs, o), threshold)) {
      findings.exclusion_grounds.push_back("output_std: " + output_label(task, o) +
                                           " varies by less than " + below + " across seeds");
    }
    for (std::int64_t axis = 0; axis < runs[0][o].dim(); ++axis) {
      if (runs[0][o].size(axis) < 2) continue;
      bool flat = true;
      for (const Outputs& run : runs) {
        flat = flat && all_below(run[o].to(at::kDouble).std(axis, /*unbiased=*/false), threshold);
      }
      if (flat) {
        findings.exclusion_grounds.push_back("output_axis: " + output_label(task, o) +
                                             " is constant (std < " + below + ") along axis " +
                                             std::to_string(axis));
      }
    }
  }
  if (!has_weights(task)) return;  // Without weights, input_impact is output_std above.
  std::vector<Outputs> data_varied, weights_varied;
  for (std::uint64_t seed : seeds) {
    data_varied.push_back(reference_of(task, mixed_inputs(task, seed, seeds[0])));
    weights_varied.push_back(reference_of(task, mixed_inputs(task, seeds[0], seed)));
  }
  // A task is degenerate when the data move none of its outputs. One output alone may rightly
  // ignore the weights (a linear layer's weight gradient is grad_y^T x); when all of them do, a
  // kernel must still compute them from the data, so that is a note, not an exclusion ground
  // (and not one of robust-kbench's statistics).
  bool data_moves_some = false, weights_move_some = false;
  for (std::size_t o = 0; o < runs[0].size(); ++o) {
    data_moves_some = data_moves_some || !all_below(spread_across(data_varied, o), threshold);
    weights_move_some = weights_move_some || !all_below(spread_across(weights_varied, o), threshold);
  }
  if (!data_moves_some) {
    findings.exclusion_grounds.push_back(
        "input_impact: with the weights fixed, varying the data moves no output element by " +
        below);
  }
  if (!weights_move_some) {
    findings.notes.push_back(
        "weight_impact: with the data fixed, varying the weights moves no output element by " +
        below);
  }
}

// The bound an fp32 kernel faces on each output: fp32's, or on a task stored in bf16 or fp16 the
// one derived from the reference in float32 stored in each output's format (output_tolerance,
// as correctness cases judge kernels), so that the stand-ins meet what a kernel meets.
std::vector<Tolerance> kernel_tolerances(const TaskSpec& task, const std::vector<at::Tensor>& inputs,
                                         const Outputs& reference, const Tolerance& floor,
                                         double scale_floor) {
  std::vector<Tolerance> tolerances(reference.size(), floor);
  if (!has_low_precision_input(inputs)) return tolerances;
  const std::vector<OutputSignature> signatures = infer_output_signatures(task, inputs, Device::cpu);
  const std::vector<at::Tensor> honest = honest_outputs(task, inputs, Precision::fp32, Device::cpu);
  for (std::size_t o = 0; o < reference.size() && o < honest.size() && o < signatures.size(); ++o) {
    tolerances[o] = output_tolerance(floor, Precision::fp32, Precision::fp32, signatures[o].dtype,
                                     reference[o], {honest[o]}, at::Tensor(),
                                     reduction_length(task, inputs), scale_floor);
  }
  return tolerances;
}

// The trivial kernels on the four distributions. "Passes" means as a kernel must: every
// distribution (those where the reference is not finite are dropped, for kernels too).
void judge_trivial_kernels(const TaskSpec& task, std::uint64_t seed, const Outputs& calibration,
                           ConfigFindings& findings) {
  const Tolerance floor = task.tolerance(Precision::fp32);
  std::vector<std::string> names, finite, dropped;
  std::map<std::string, std::vector<std::string>> passed_on;  // kernel -> distributions
  bool stored_low = false;  // a bf16 or fp16 task: judged by its fp32 kernel's derived bound
  for (const InputScaling& scaling : standard_scalings()) {
    std::vector<at::Tensor> inputs = draw(task, seed);
    scale_floating_inputs(task, inputs, scaling.scale);
    const Outputs reference = reference_of(task, inputs);
    bool all_outputs_finite = true;
    for (const at::Tensor& output : reference) all_outputs_finite = all_outputs_finite && all_finite(output);
    if (!all_outputs_finite) {
      dropped.push_back(scaling.name);
      continue;
    }
    finite.push_back(scaling.name);
    const double scale_floor = numerically_zero_floor(reference);
    const std::vector<Tolerance> tolerances = kernel_tolerances(task, inputs, reference, floor, scale_floor);
    stored_low = stored_low || has_low_precision_input(inputs);
    for (const auto& [name, outputs] : trivial_outputs(task, inputs, reference, calibration)) {
      if (passed_on.count(name) == 0) names.push_back(name);
      std::vector<std::string>& passed = passed_on[name];
      bool passes = outputs.size() == reference.size();
      for (std::size_t o = 0; passes && o < reference.size(); ++o) {
        passes = check_output(outputs[o].to(at::kFloat), reference[o], at::kFloat, at::kCPU,
                              tolerances[o], scale_floor)
                     .passed;
      }
      if (passes) passed.push_back(scaling.name);
    }
  }
  if (finite.empty()) {
    findings.exclusion_grounds.push_back(
        "the reference is not finite on any distribution, so no kernel can be judged");
    return;
  }
  const std::string everywhere =
      dropped.empty() ? "every distribution"
                      : "every distribution where the reference is finite (" + join(finite) +
                            "; " + join(dropped) + " dropped)";
  const std::string bound = stored_low ? "an fp32 kernel's bound in the task's 16-bit format" : "fp32 correctness";
  for (const std::string& name : names) {
    const std::vector<std::string>& passed = passed_on[name];
    const bool lower_precision = name == kLowerPrecisionName || name == kBelowStorageName;
    const std::string kind = lower_precision ? "lower precision: " : "trivial kernel: ";
    if (passed.size() == finite.size()) {
      (lower_precision ? findings.precision_blind : findings.exclusion_grounds)
          .push_back(kind + name + " passes " + bound + " on " + everywhere);
    } else if (!passed.empty()) {
      std::vector<std::string> failed;
      for (const std::string& distribution : finite) {
        if (std::find(passed.begin(), passed.end(), distribution) == passed.end()) {
          failed.push_back(distribution);
        }
      }
      findings.notes.push_back(kind + name + " passes " + bound + " on " + join(passed) +
                               " but not on " + join(failed) +
                               " (a kernel must pass every distribution)");
    }
  }
}

ConfigFindings judge_config(const TaskSpec& task) {
  ConfigFindings findings;
  std::vector<std::uint64_t> seeds;
  // Fixed seeds, not the run's: a task's verdict must not change from run to run.
  for (int s = 0; s < kFilterSeeds; ++s) seeds.push_back(kFilterFirstSeed + s);
  std::vector<Outputs> runs;
  for (std::uint64_t seed : seeds) runs.push_back(reference_of(task, draw(task, seed)));
  judge_statistics(task, seeds, runs, findings);
  judge_trivial_kernels(task, seeds[0], /*calibration=*/runs[1], findings);
  return findings;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& from,
            const std::string& prefix) {
  for (const std::string& line : from) to.push_back(prefix + line);
}

// LibTorch's CPU operators on this thread alone while it lives (at::set_num_threads), then as
// many threads as before.
class SingleThreadedLibTorch {
 public:
  SingleThreadedLibTorch() : threads_before_(at::get_num_threads()) { at::set_num_threads(1); }
  ~SingleThreadedLibTorch() { at::set_num_threads(threads_before_); }
  SingleThreadedLibTorch(const SingleThreadedLibTorch&) = delete;
  SingleThreadedLibTorch& operator=(const SingleThreadedLibTorch&) = delete;

 private:
  int threads_before_;
};

}  // namespace

const char* to_string(TaskSeverity severity) {
  switch (severity) {
    case TaskSeverity::healthy: return "healthy";
    case TaskSeverity::precision_blind: return "precision_blind";
    case TaskSeverity::excluded: return "excluded";
  }
  return "?";
}

TaskVerdict judge_task(const TaskSpec& task) {
  TaskVerdict verdict;
  verdict.task = task.id();
  const auto start = std::chrono::steady_clock::now();
  // One thread: the filter's tensors are small (its slowest task, the attention backward, takes
  // 1.7 s on one thread here and 2.2 s on two), and a judge beside others (rkt run's shards, rkt
  // eval's judges) would otherwise spin OpenMP threads for every core against theirs. Run 43:
  // four shards of `rkt run --kernel cuda` on a 16-core H100 host judged no kernel in 330 s,
  // three still in this filter; on this machine four filters at once took 23-27 s each with two
  // threads and 3.3-3.6 s with one.
  const SingleThreadedLibTorch single_threaded;
  // Each config is judged alone. A kernel must pass every config, so a shortcut only works on the
  // task when it works on all of them: findings on some configs only are notes.
  const std::size_t count = task.configs().size();
  std::size_t degenerate_configs = 0, blind_configs = 0;
  std::vector<std::string> grounds, blind, notes;
  for (std::size_t index = 0; index < count; ++index) {
    ConfigFindings findings;
    const std::string prefix =
        count == 1 ? "" : "config " + task.configured(index).config_name() + ": ";
    try {
      findings = judge_config(task.configured(index));
    } catch (const std::exception& error) {
      findings = {};
      findings.exclusion_grounds.push_back("the reference could not be evaluated: " +
                                           describe_exception(error));
    }
    degenerate_configs += !findings.exclusion_grounds.empty();
    blind_configs += !findings.precision_blind.empty();
    append(grounds, findings.exclusion_grounds, prefix);
    append(blind, findings.precision_blind, prefix);
    append(notes, findings.notes, prefix);
  }
  if (degenerate_configs == count) {
    verdict.severity = TaskSeverity::excluded;
    verdict.reasons = grounds;
    verdict.notes = blind;
  } else if (blind_configs == count) {
    verdict.severity = TaskSeverity::precision_blind;
    verdict.reasons = blind;
    verdict.notes = grounds;
  } else {
    verdict.notes = grounds;
    verdict.notes.insert(verdict.notes.end(), blind.begin(), blind.end());
  }
  verdict.notes.insert(verdict.notes.end(), notes.begin(), notes.end());
  verdict.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

std::string task_source(const std::string& task_id) {
  for (const char* prefix : {"kb_l1", "kb_l2", "rkb"}) {
    if (task_id.rfind(std::string(prefix) + "_", 0) == 0) return prefix;
  }
  // The bf16 and fp16 tasks (tasks/low_precision_tasks.cpp, attention_tasks.cpp): "<stem>_bf16",
  // "<stem>_fp16", and their backward tasks "<stem>_bf16_backward".
  for (const char* format : {"_bf16", "_fp16"}) {
    const std::size_t at = task_id.find(format);
    if (at != std::string::npos &&
        (at + 5 == task_id.size() || task_id.compare(at + 5, std::string::npos, "_backward") == 0)) {
      return "16bit";
    }
  }
  return "core";
}

std::map<std::string, SourceCounts> count_by_source(const std::vector<TaskVerdict>& verdicts) {
  std::map<std::string, SourceCounts> counts;
  for (const TaskVerdict& verdict : verdicts) {
    SourceCounts& source = counts[task_source(verdict.task)];
    ++source.tasks;
    source.excluded += verdict.excluded();
    source.precision_blind += verdict.precision_blind();
    source.with_notes += !verdict.excluded() && !verdict.notes.empty();
  }
  return counts;
}

std::string task_verdicts_json(const std::vector<TaskVerdict>& verdicts, double seconds) {
  using Json = nlohmann::ordered_json;
  Json top = Json::object();
  Json& tasks = top["tasks"] = Json::array();
  for (const TaskVerdict& verdict : verdicts) {
    Json entry = Json::object();
    entry["id"] = verdict.task;
    entry["source"] = task_source(verdict.task);
    entry["severity"] = to_string(verdict.severity);
    entry["reasons"] = verdict.reasons;
    entry["notes"] = verdict.notes;
    entry["seconds"] = as_recorded(verdict.seconds);
    tasks.push_back(std::move(entry));
  }
  Json& sources = top["sources"] = Json::object();
  for (const auto& [source, counts] : count_by_source(verdicts)) {
    Json& entry = sources[source] = Json::object();
    entry["tasks"] = counts.tasks;
    entry["excluded"] = counts.excluded;
    entry["precision_blind"] = counts.precision_blind;
    entry["with_notes"] = counts.with_notes;
  }
  top["seconds"] = as_recorded(seconds);
  // One line. Bytes that are not UTF-8 (a reason may quote a message) are written as U+FFFD.
  return top.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string task_verdicts_text(const std::vector<TaskVerdict>& verdicts, double seconds) {
  std::ostringstream out;
  for (const TaskVerdict& verdict : verdicts) {
    const char* label = verdict.excluded()          ? "EXCLUDED       "
                        : verdict.precision_blind() ? "precision-blind"
                                                    : "ok             ";
    out << label << " " << verdict.task << "\n";
    for (const std::string& reason : verdict.reasons) out << "        " << reason << "\n";
    for (const std::string& note : verdict.notes) out << "        note: " << note << "\n";
  }
  out << "\nsource  tasks  excluded  precision-blind  with notes\n";
  int tasks = 0, excluded = 0, blind = 0, noted = 0;
  for (const auto& [source, counts] : count_by_source(verdicts)) {
    char line[96];
    std::snprintf(line, sizeof line, "%-6s  %5d  %8d  %15d  %10d\n", source.c_str(), counts.tasks,
                  counts.excluded, counts.precision_blind, counts.with_notes);
    out << line;
    tasks += counts.tasks;
    excluded += counts.excluded;
    blind += counts.precision_blind;
    noted += counts.with_notes;
  }
  out << tasks << " tasks: " << excluded << " excluded from aggregates, " << blind
      << " precision-blind (scored, marked), " << noted << " with notes; judged in " << seconds
      << " s\n";
  return out.str();
}

}  // namespace rkt
