#include "framework/task_filter.h"

#include <ATen/ATen.h>

#include <chrono>
#include <sstream>

#include "framework/input_generation.h"
#include "framework/input_scaling.h"
#include "framework/json_text.h"
#include "framework/kernel_invocation.h"
#include "framework/output_comparison.h"
#include "framework/seeding.h"

namespace rkt {
namespace {

using Outputs = std::vector<at::Tensor>;

Outputs reference_of(const TaskSpec& task, const std::vector<at::Tensor>& inputs) {
  return run_reference_float64(task, inputs, Device::cpu);
}

std::vector<at::Tensor> draw(const TaskSpec& task, std::uint64_t seed) {
  return generate_inputs(task, task.small_dims(), seed);
}

// Per-element std across runs, for output `o`.
at::Tensor spread_across(const std::vector<Outputs>& runs, std::size_t o) {
  std::vector<at::Tensor> stack;
  for (const Outputs& run : runs) stack.push_back(run[o]);
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

// The trivial kernels: each returns outputs for `inputs` without computing the task.
std::vector<std::pair<std::string, Outputs>> trivial_outputs(const TaskSpec& task,
                                                             const std::vector<at::Tensor>& inputs,
                                                             const Outputs& reference,
                                                             const Outputs& calibration) {
  std::vector<std::pair<std::string, Outputs>> trivial;
  Outputs zeros, constant, noise, bf16;
  at::Generator generator = at::detail::createCPUGenerator(7);
  for (std::size_t o = 0; o < reference.size(); ++o) {
    zeros.push_back(at::zeros_like(reference[o]));
    constant.push_back(at::full_like(reference[o], calibration[o].mean().item<double>()));
    noise.push_back(at::empty_like(reference[o])
                        .normal_(calibration[o].mean().item<double>(),
                                 calibration[o].numel() > 1 ? calibration[o].std().item<double>() : 0,
                                 generator));
  }
  trivial.push_back({"all zeros", zeros});
  trivial.push_back({"a constant (the mean of another seed's output)", constant});
  trivial.push_back({"noise with another seed's output mean and std", noise});
  std::vector<at::Tensor> low;
  for (const at::Tensor& input : inputs) {
    low.push_back(input.is_floating_point() ? input.to(at::kBFloat16).to(at::kFloat) : input);
  }
  for (const at::Tensor& output : task.reference()(low)) bf16.push_back(output.to(at::kDouble));
  trivial.push_back({"the reference computed in bf16", bf16});
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (reference.size() == 1 && inputs[i].sizes() == reference[0].sizes()) {
      trivial.push_back({"input '" + task.inputs()[i].name + "' returned unchanged",
                         {inputs[i].to(at::kDouble)}});
    }
  }
  return trivial;
}

void judge(const TaskSpec& task, TaskVerdict& verdict) {
  const double threshold = kFilterThreshold * task.output_scale(task.small_dims());
  const auto flag = [&](const std::string& reason) {
    verdict.flagged = true;
    verdict.reasons.push_back(reason);
  };
  std::vector<std::uint64_t> seeds;
  // Fixed seeds, not the run's: a task's verdict must not change from run to run.
  for (int s = 0; s < kFilterSeeds; ++s) seeds.push_back(kFilterFirstSeed + s);
  std::vector<Outputs> runs;
  for (std::uint64_t seed : seeds) runs.push_back(reference_of(task, draw(task, seed)));

  for (std::size_t o = 0; o < runs[0].size(); ++o) {
    bool tiny = true;
    for (const Outputs& run : runs) tiny = tiny && all_below(run[o], threshold);
    if (tiny) flag("output_range: every element of " + output_label(task, o) + " lies within " +
                   std::to_string(threshold) + " of zero");
    if (all_below(spread_across(runs, o), threshold)) {
      flag("output_std: " + output_label(task, o) + " varies by less than " + std::to_string(threshold) + " across seeds");
    }
    for (std::int64_t axis = 0; axis < runs[0][o].dim(); ++axis) {
      if (runs[0][o].size(axis) < 2) continue;
      bool flat = true;
      for (const Outputs& run : runs) {
        flat = flat && all_below(run[o].std(axis, /*unbiased=*/false), threshold);
      }
      if (flat) {
        flag("output_axis: " + output_label(task, o) + " is constant (std < " + std::to_string(threshold) + ") along axis " +
             std::to_string(axis));
      }
    }
  }

  if (has_weights(task)) {
    std::vector<Outputs> data_varied, weights_varied;
    for (std::uint64_t seed : seeds) {
      data_varied.push_back(reference_of(task, mixed_inputs(task, seed, seeds[0])));
      weights_varied.push_back(reference_of(task, mixed_inputs(task, seeds[0], seed)));
    }
    // A task is degenerate when the data (or the weights) move none of its outputs. One output
    // alone may rightly ignore the weights: a linear layer's weight gradient is grad_y^T x.
    bool data_moves_some = false, weights_move_some = false;
    for (std::size_t o = 0; o < runs[0].size(); ++o) {
      data_moves_some = data_moves_some || !all_below(spread_across(data_varied, o), threshold);
      weights_move_some =
          weights_move_some || !all_below(spread_across(weights_varied, o), threshold);
    }
    if (!data_moves_some) {
      flag("input_impact: with the weights fixed, varying the data moves no output element by " +
           std::to_string(threshold));
    }
    if (!weights_move_some) {
      flag("weight_impact: with the data fixed, varying the weights moves no output element by " +
           std::to_string(threshold));
    }
  }  // Without weights, input_impact is output_std above.

  const Tolerance tolerance = task.tolerance(Precision::fp32);
  const Outputs calibration = runs[1];
  for (const InputScaling& scaling : standard_scalings()) {
    std::vector<at::Tensor> inputs = draw(task, seeds[0]);
    scale_floating_inputs(task, inputs, scaling.scale);
    const Outputs reference = reference_of(task, inputs);
    bool finite = true;
    for (const at::Tensor& output : reference) finite = finite && all_finite(output);
    if (!finite) continue;
    for (const auto& [name, outputs] : trivial_outputs(task, inputs, reference, calibration)) {
      bool passes = outputs.size() == reference.size();
      for (std::size_t o = 0; passes && o < reference.size(); ++o) {
        passes = check_output(outputs[o].to(at::kFloat), reference[o], at::kFloat, at::kCPU, tolerance)
                     .passed;
      }
      if (passes) {
        flag("trivial kernel: " + name + " passes fp32 correctness on distribution " + scaling.name);
      }
    }
  }
}

}  // namespace

TaskVerdict judge_task(const TaskSpec& task) {
  TaskVerdict verdict;
  verdict.task = task.id();
  const auto start = std::chrono::steady_clock::now();
  // Each config is judged alone. A kernel must pass every config, so a shortcut only works when
  // it works on all of them: the task is flagged when every config is; findings on some configs
  // only are kept as notes.
  const std::size_t count = task.configs().size();
  std::size_t flagged_configs = 0;
  std::vector<std::string> findings;
  for (std::size_t index = 0; index < count; ++index) {
    TaskVerdict config_verdict;
    const std::string prefix =
        count == 1 ? "" : "config " + task.configured(index).config_name() + ": ";
    try {
      judge(task.configured(index), config_verdict);
    } catch (const std::exception& error) {
      config_verdict.flagged = true;
      config_verdict.reasons.push_back("the reference could not be evaluated: " +
                                       describe_exception(error));
    }
    if (config_verdict.flagged) ++flagged_configs;
    for (const std::string& reason : config_verdict.reasons) findings.push_back(prefix + reason);
  }
  verdict.flagged = flagged_configs == count;
  (verdict.flagged ? verdict.reasons : verdict.notes) = findings;
  verdict.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return verdict;
}

std::string task_verdicts_json(const std::vector<TaskVerdict>& verdicts, double seconds) {
  std::ostringstream out;
  out << "{\"tasks\":[";
  for (std::size_t t = 0; t < verdicts.size(); ++t) {
    const TaskVerdict& verdict = verdicts[t];
    out << (t ? "," : "") << "{\"id\":" << json_string(verdict.task)
        << ",\"flagged\":" << (verdict.flagged ? "true" : "false") << ",\"reasons\":[";
    for (std::size_t r = 0; r < verdict.reasons.size(); ++r) {
      out << (r ? "," : "") << json_string(verdict.reasons[r]);
    }
    out << "],\"notes\":[";
    for (std::size_t n = 0; n < verdict.notes.size(); ++n) {
      out << (n ? "," : "") << json_string(verdict.notes[n]);
    }
    out << "],\"seconds\":" << verdict.seconds << "}";
  }
  out << "],\"seconds\":" << seconds << "}\n";
  return out.str();
}

}  // namespace rkt
