#include "framework/baselines/twin_agreement.h"

#include <ATen/ATen.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>

#include "framework/base/file_access.h"
#include "framework/base/option_parsing.h"
#include "framework/comparison/output_comparison.h"
#include "framework/comparison/precision_emulation.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/input_scaling.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_invocation.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// Outputs this small against the largest input in both the twin and the reference are zero up
// to rounding: both writings computed a value that is exactly zero.
constexpr double kTwinNumericallyZero = 1e-12;  // [x largest input magnitude]

void save_tensors(const std::string& path, const std::vector<at::Tensor>& tensors) {
  const std::vector<char> bytes = torch::jit::pickle_save(c10::IValue(tensors));
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
}

// A list or tuple of tensors saved by torch.save in Python (or by save_tensors).
std::vector<at::Tensor> load_tensors(const std::string& path) {
  const std::string text = read_whole_file(path);
  const c10::IValue value = torch::jit::pickle_load(std::vector<char>(text.begin(), text.end()));
  if (value.isTensorList()) return value.toTensorVector();
  std::vector<at::Tensor> tensors;
  if (value.isList()) {
    for (const c10::IValue& element : value.toListRef()) tensors.push_back(element.toTensor());
  } else if (value.isTuple()) {
    for (const c10::IValue& element : value.toTupleRef().elements()) {
      tensors.push_back(element.toTensor());
    }
  } else {
    throw std::runtime_error(path + " holds a " + value.tagKind() + ", not a list of tensors");
  }
  return tensors;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream stream(line);
  for (std::string field; std::getline(stream, field, '\t');) fields.push_back(field);
  return fields;
}

bool selected(const TaskSpec& task, const std::string& filter) {
  return filter.empty() || task.id().find(filter) != std::string::npos;
}

// One line of cases.tsv.
struct TwinCase {
  std::string stem, task, distribution;
  std::size_t config = 0;
  std::uint64_t seed = 0;
};

std::vector<TwinCase> read_cases(const std::string& directory) {
  const std::string path = directory + "/" + kTwinCasesFile;
  if (!file_exists(path)) {
    throw std::runtime_error("no " + path + ": run `rkt twin-inputs --dir " + directory +
                             "` first (tools/twins/check_twins.py does)");
  }
  std::vector<TwinCase> cases;
  std::istringstream lines(read_whole_file(path));
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> fields = split_tabs(line);
    if (fields.size() != 6) throw std::runtime_error("malformed line in " + path + ": " + line);
    cases.push_back({fields[0], fields[1], fields[4], std::stoul(fields[2]),
                     std::stoull(fields[5])});
  }
  return cases;
}

std::string format_index(std::int64_t flat, at::IntArrayRef sizes) {
  std::vector<std::int64_t> index(sizes.size());
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  std::string text = "[";
  for (std::size_t d = 0; d < index.size(); ++d) text += (d ? "," : "") + std::to_string(index[d]);
  return text + "]";
}

// The element furthest outside the tolerance, in units of what the tolerance allows there
// (infinite where the twin is NaN/Inf and the reference is finite).
struct WorstElement {
  double excess = 0;  // [x allowed error]
  std::string text;
};

WorstElement worst_element(const at::Tensor& output, const at::Tensor& reference,
                           const Tolerance& tolerance, double scale_floor) {
  WorstElement worst;
  if (output.sizes() != reference.sizes() || output.numel() == 0) {
    worst.excess = INFINITY;
    return worst;
  }
  const at::Tensor out = output.to(at::kDouble).flatten();
  const at::Tensor ref = reference.to(at::kDouble).flatten();
  const double scale = std::max(reference_scale(ref), scale_floor);
  const at::Tensor allowed = tolerance.atol * scale + tolerance.rtol * ref.abs();
  at::Tensor excess = (out - ref).abs() / allowed;
  excess = at::where(at::isfinite(ref) & ~at::isfinite(out),
                     at::full_like(excess, INFINITY), at::nan_to_num(excess, 0.0, INFINITY));
  const std::int64_t at_index = excess.argmax().item<std::int64_t>();
  worst.excess = excess[at_index].item<double>();
  std::ostringstream text;
  text.precision(9);
  text << "worst element " << format_index(at_index, output.sizes()) << ": twin "
       << out[at_index].item<double>() << ", reference " << ref[at_index].item<double>() << " ("
       << worst.excess << "x the allowed error)";
  worst.text = text.str();
  return worst;
}

// One case of a task: "" when the twin agrees, else why not; `dropped` when the reference is
// not finite on these inputs (the case is dropped for kernels too).
std::string judge_case(const TaskSpec& task, const TwinCase& twin_case,
                       const std::string& directory, bool& dropped, double& excess) {
  const TaskSpec& configured = task.configured(twin_case.config);
  const std::string base = directory + "/cases/" + twin_case.stem;
  const std::string where = (task.configs().size() > 1 ? "config " + configured.config_name() + ", " : "") +
                            "distribution " + twin_case.distribution + " (seed " +
                            std::to_string(twin_case.seed) + "; inputs in " + base + ".inputs.pt)";
  excess = INFINITY;
  if (file_exists(base + ".twin.error")) {
    return where + ": the twin raised: " + read_whole_file(base + ".twin.error");
  }
  if (!file_exists(base + ".twin.pt")) return where + ": the twin wrote no outputs";
  std::vector<at::Tensor> inputs, outputs, reference;
  try {
    inputs = load_tensors(base + ".inputs.pt");
    outputs = load_tensors(base + ".twin.pt");
  } catch (const std::exception& error) {
    return where + ": unreadable tensors: " + describe_exception(error);
  }
  try {
    reference = run_reference_float64(configured, inputs, Device::cpu);
  } catch (const std::exception& error) {
    return where + ": the C++ reference threw: " + describe_exception(error);
  }
  for (const at::Tensor& output : reference) {
    if (!all_finite(output)) {
      dropped = true;
      return "";
    }
  }
  if (outputs.size() != reference.size()) {
    return where + ": the twin returned " + std::to_string(outputs.size()) +
           " outputs; the task has " + std::to_string(reference.size());
  }
  const std::vector<OutputSignature> signatures =
      infer_output_signatures(configured, inputs, Device::cpu);
  const Tolerance tolerance = configured.tolerance(Precision::fp32);
  const double scale_floor = numerically_zero_floor(reference);
  std::string failures;
  double worst_excess = 0;
  // An output that is zero up to rounding in both writings (a degenerate task such as
  // KernelBench L2 23, whose GroupNorm mean is exactly zero) agrees: its relative error is noise.
  double input_scale = 1;
  for (const at::Tensor& input : inputs) {
    if (input.is_floating_point() && input.numel() > 0) {
      input_scale = std::max(input_scale, input.abs().max().item<double>());
    }
  }
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    // Twins run in float64 and save float32 (tools/twins/check_twins.py), so an output a kernel
    // stores in bf16 or fp16 comes back as float32: the question is what the twin computes.
    const c10::ScalarType expected =
        is_low_precision(signatures[o].dtype) ? at::kFloat : signatures[o].dtype;
    const OutputCheck check = check_output(outputs[o], reference[o], expected,
                                           at::kCPU, tolerance, scale_floor);
    if (check.passed) continue;
    const double zero_limit = kTwinNumericallyZero * input_scale;
    if (outputs[o].is_floating_point() && outputs[o].numel() > 0 &&
        reference[o].abs().max().item<double>() <= zero_limit &&
        outputs[o].abs().max().item<double>() <= zero_limit) {
      continue;
    }
    const WorstElement worst = worst_element(outputs[o], reference[o], tolerance, scale_floor);
    worst_excess = std::max(worst_excess, worst.excess);
    failures += " output '" + task.output_names()[o] + "': " + check.message +
                (worst.text.empty() ? "" : "; " + worst.text) + ".";
  }
  if (failures.empty()) return "";
  excess = worst_excess;
  const std::string reason = configured.tolerance_reason(Precision::fp32);
  return where + " [fp32 tolerance" + (reason.empty() ? "" : ", widened: " + reason) + "]:" +
         failures;
}

std::string option(const std::map<std::string, std::string>& values, const std::string& name) {
  const auto found = values.find(name);
  return found == values.end() ? "" : found->second;
}

}  // namespace

int write_twin_cases(const std::string& directory, const std::string& task_filter) {
  make_directories(directory + "/cases");
  ::unlink((directory + "/" + kTwinListFile).c_str());  // Written again by the driver.
  std::ofstream manifest(directory + "/" + kTwinCasesFile);
  int written = 0;
  for (const TaskSpec* task : registered_tasks()) {
    if (!selected(*task, task_filter) || !task->forward_task_id().empty()) continue;
    const std::size_t count = task->configs().size();
    for (std::size_t index = 0; index < count; ++index) {
      const TaskSpec& configured = task->configured(index);
      for (const InputScaling& scaling : standard_scalings()) {
        // The correctness cases' seed (case_catalog.cpp): with the same RKT_SEED the twin sees
        // exactly the inputs a CPU kernel sees.
        const std::uint64_t seed = case_seed(task->id() + "/" + scaling.name +
                                             (index == 0 ? "" : "/" + configured.config_name()));
        std::vector<at::Tensor> inputs =
            generate_inputs(configured, configured.test_dims(Device::cpu), seed);
        scale_floating_inputs(configured, inputs, scaling.scale);
        const std::string stem = task->id() + ".c" + std::to_string(index) + "." + scaling.name;
        const std::string base = directory + "/cases/" + stem;
        save_tensors(base + ".inputs.pt", inputs);
        ::unlink((base + ".twin.pt").c_str());  // Outputs of an earlier run must not count.
        ::unlink((base + ".twin.error").c_str());
        manifest << stem << "\t" << task->id() << "\t" << index << "\t"
                 << configured.config_name() << "\t" << scaling.name << "\t" << seed << "\n";
        ++written;
      }
    }
  }
  if (!manifest) throw std::runtime_error("cannot write " + directory + "/" + kTwinCasesFile);
  return written;
}

int judge_twin_outputs(const std::string& directory, const std::string& task_filter,
                       std::ostream& out) {
  const std::string twin_list = directory + "/" + kTwinListFile;
  if (!file_exists(twin_list)) {
    throw std::runtime_error("no " + twin_list + ": the twins have not been run "
                             "(tools/twins/check_twins.py runs them)");
  }
  std::map<std::string, std::string> twins;  // task -> module
  std::istringstream twin_lines(read_whole_file(twin_list));
  for (std::string line; std::getline(twin_lines, line);) {
    const std::vector<std::string> fields = split_tabs(line);
    if (fields.size() == 2) twins[fields[0]] = fields[1];
  }
  std::map<std::string, std::vector<TwinCase>> cases_of_task;
  for (const TwinCase& twin_case : read_cases(directory)) {
    cases_of_task[twin_case.task].push_back(twin_case);
  }
  int passed = 0, failed = 0, missing = 0, backward = 0;
  for (const TaskSpec* task : registered_tasks()) {
    if (!selected(*task, task_filter)) continue;
    if (!task->forward_task_id().empty()) {
      out << "no twin  " << task->id() << ": a backward task (twins are forward references; its "
          << "gradients come from autograd through " << task->forward_task_id()
          << ", and it has no compiled baseline)\n";
      ++backward;
      continue;
    }
    if (twins.count(task->id()) == 0) {
      out << "MISSING  " << task->id() << ": no twin (TWINS[\"" << task->id()
          << "\"] in a twin module); every forward task needs one for its compiled baseline\n";
      ++failed;
      ++missing;
      continue;
    }
    const std::vector<TwinCase>& cases = cases_of_task[task->id()];
    if (cases.empty()) {
      out << "FAIL     " << task->id() << ": no inputs were written for it (run rkt twin-inputs "
          << "with the same --task)\n";
      ++failed;
      continue;
    }
    int disagreeing = 0, dropped_count = 0;
    double worst_excess = -1;
    std::string worst_message;
    for (const TwinCase& twin_case : cases) {
      bool dropped = false;
      double excess = 0;
      const std::string message = judge_case(*task, twin_case, directory, dropped, excess);
      dropped_count += dropped;
      if (message.empty()) continue;
      ++disagreeing;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst_message = message;
      }
    }
    const std::string counts = std::to_string(cases.size()) + " cases" +
                               (dropped_count ? ", " + std::to_string(dropped_count) +
                                                    " dropped (reference not finite)"
                                              : "");
    if (disagreeing > 0) {
      out << "FAIL     " << task->id() << ": " << disagreeing << " of " << counts
          << " disagree; the worst: " << worst_message << " (twin in " << twins[task->id()]
          << ")\n";
      ++failed;
    } else if (dropped_count == static_cast<int>(cases.size())) {
      out << "FAIL     " << task->id() << ": every case was dropped (reference not finite), so "
          << "the twin was never compared\n";
      ++failed;
    } else {
      out << "ok       " << task->id() << " (" << counts << ")\n";
      ++passed;
    }
  }
  if (passed + failed + backward == 0) {
    out << "FAIL     no registered task matches '" << task_filter << "'\n";
    ++failed;
  }
  out << "twins: " << passed << " passed, " << failed << " failed";
  if (missing) out << " (" << missing << " without a twin)";
  out << "; " << backward << " backward tasks have no twin\n";
  return failed;
}

int run_twin_inputs_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> values;
  std::string error;
  if (!parse_named_options(args, {"--dir", "--task"}, {}, values, error)) {
    return report_usage_error(error);
  }
  if (option(values, "--dir").empty()) return report_usage_error("twin-inputs needs --dir DIR");
  try {
    const int written = write_twin_cases(option(values, "--dir"), option(values, "--task"));
    std::cout << "rkt twin-inputs: " << written << " cases in " << option(values, "--dir")
              << ", seed " << base_seed() << " (RKT_SEED=" << base_seed() << " reproduces)\n";
    return written > 0 ? 0 : 1;
  } catch (const std::exception& failure) {
    std::cerr << "rkt twin-inputs: " << describe_exception(failure) << "\n";
    return 1;
  }
}

int run_twin_check_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> values;
  std::string error;
  if (!parse_named_options(args, {"--dir", "--task"}, {}, values, error)) {
    return report_usage_error(error);
  }
  if (option(values, "--dir").empty()) return report_usage_error("twin-check needs --dir DIR");
  try {
    return judge_twin_outputs(option(values, "--dir"), option(values, "--task"), std::cout) == 0
               ? 0
               : 1;
  } catch (const std::exception& failure) {
    std::cerr << "rkt twin-check: " << describe_exception(failure) << "\n";
    return 1;
  }
}

}  // namespace rkt
