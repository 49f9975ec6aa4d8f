#include "framework/cli/listing.h"

#include <cctype>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "framework/cases/case_catalog.h"
#include "framework/dims/dim_resolution.h"
#include "framework/dims/kernel_domain.h"
#include "framework/supervision/device_skips.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// "8 = batch{64,4} x out{10,4096} x in{128,4096}", or "1 (default)".
std::string describe_configs(const TaskSpec& task) {
  std::string axes;
  for (const auto& [axis, choices] : task.config_axes()) {
    std::string names;
    for (const ConfigChoice& choice : choices) names += (names.empty() ? "" : ",") + choice.name;
    axes += (axes.empty() ? "" : " x ") + axis + "{" + names + "}";
  }
  const std::string count = std::to_string(task.configs().size());
  return axes.empty() ? count + " (default)" : count + " = " + axes;
}

}  // namespace

void print_listing_text(std::ostream& out) {
  out << "Tasks:\n";
  for (const TaskSpec* task : registered_tasks()) {
    out << "  " << task->id() << ": " << task->description() << "\n"
        << "      default " << format_dims(task->configured(0).default_dims()) << "; small "
        << format_dims(task->configured(0).small_dims()) << "; configs "
        << describe_configs(*task) << "\n";
  }
  out << "Kernels:\n";
  for (const KernelSpec* kernel : registered_kernels()) {
    out << "  " << kernel->full_id() << " [" << to_string(kernel->device()) << ", "
        << to_string(kernel->precision())
        << (kernel->accumulation() == Precision::fp32
                ? ""
                : std::string(", accumulates in ") + to_string(kernel->accumulation()))
        << "]"
        << (kernel->description().empty() ? "" : ": " + kernel->description()) << "\n";
    for (const auto& [gate, reason] : kernel->waived_gates()) {
      out << "      gate " << to_string(gate) << " WAIVED: " << reason << "\n";
    }
    if (!kernel->allowed_operators().empty()) {
      out << "      declared ATen operators:";
      for (const std::string& name : kernel->allowed_operators()) out << " " << name;
      out << "\n";
    }
    if (!kernel->supported_dims().empty()) {
      out << "      supports only: " << describe_restrictions(kernel->supported_dims())
          << " (declared by the kernel)\n";
    }
    if (kernel->alignment_bytes() > 0) {
      out << "      requires " << kernel->alignment_bytes() << "-byte aligned buffers (declared by the kernel)\n";
    }
    if (const TaskSpec* task = find_task(kernel->task_id())) {
      out << "     ";
      for (const KernelCase& kernel_case : cases_of(*kernel, *task)) out << " " << kernel_case.name;
      out << "\n";
    }
  }
}

void print_listing_json(std::ostream& out) {
  using Json = nlohmann::ordered_json;
  Json listing = Json::object();
  Json& tasks = listing["tasks"] = Json::array();
  for (const TaskSpec* task : registered_tasks()) {
    Json entry = Json::object();
    entry["id"] = task->id();
    entry["description"] = task->description();
    Json& inputs = entry["inputs"] = Json::array();
    for (const InputSpec& input : task->inputs()) {
      Json spec = Json::object();
      spec["name"] = input.name;
      spec["dims"] = input.dims;
      spec["dtype"] = to_string(input.dtype);
      spec["values"] = input.values.describe();
      spec["index"] = input.is_index();
      inputs.push_back(std::move(spec));
    }
    entry["outputs"] = task->output_names();
    Json& configs = entry["configs"] = Json::array();
    for (std::size_t c = 0; c < task->configs().size(); ++c) {
      const TaskSpec& configured = task->configured(c);
      Json config = Json::object();
      config["name"] = configured.config_name();
      config["default_dims"] = format_dims(configured.default_dims());
      config["small_dims"] = format_dims(configured.small_dims());
      configs.push_back(std::move(config));
    }
    entry["forward_task"] = task->forward_task_id();
    entry["default_dims"] = format_dims(task->configured(0).default_dims());
    entry["small_dims"] = format_dims(task->configured(0).small_dims());
    tasks.push_back(std::move(entry));
  }
  Json& kernels = listing["kernels"] = Json::array();
  for (const KernelSpec* kernel : registered_kernels()) {
    Json entry = Json::object();
    entry["id"] = kernel->kernel_id();
    entry["task"] = kernel->task_id();
    entry["device"] = to_string(kernel->device());
    entry["precision"] = to_string(kernel->precision());
    entry["accumulation"] = to_string(kernel->accumulation());
    Json& waived = entry["waived_gates"] = Json::object();
    for (const auto& [gate, reason] : kernel->waived_gates()) waived[to_string(gate)] = reason;
    entry["allowed_operators"] = kernel->allowed_operators();
    Json& supports = entry["supports"] = Json::array();
    for (const auto& restriction : kernel->supported_dims()) supports.push_back(restriction.describe());
    entry["alignment_bytes"] = kernel->alignment_bytes();
    Json& cases = entry["cases"] = Json::array();
    if (const TaskSpec* task = find_task(kernel->task_id())) {
      for (const KernelCase& kernel_case : cases_of(*kernel, *task)) {
        cases.push_back(kernel_case.suite + "." + kernel_case.name);
      }
    }
    kernels.push_back(std::move(entry));
  }
  // One line. Bytes that are not UTF-8 are written as U+FFFD instead of refused.
  out << listing.dump(-1, ' ', false, Json::error_handler_t::replace) << "\n";
}

void print_task_catalog(std::ostream& out, const std::vector<TaskVerdict>& verdicts) {
  out << "# Task catalog\n\nGenerated by `rkt catalog` (a test checks that this file is current).\n"
         "Configs are the cartesian product of the task's axes; a kernel must pass every one. Dims, "
         "bytes and flops are those of the primary (first) config at its default (benchmark) "
         "size; on the CPU each config's dims are capped by the small dims.\n\n"
         "The filter column is `rkt filter`'s verdict (docs/architecture.md, \"The task filter\"): "
         "**EXCLUDED** tasks are left out of aggregate scores (a kernel that does no real work "
         "passes every distribution of every config, or robust-kbench's statistics find the "
         "outputs degenerate) but stay runnable; **precision-blind** tasks are scored and marked "
         "(the reference computed in bf16 passes fp32 correctness everywhere, so a precision "
         "claim cannot be verified); notes are findings on some distributions or configs only.\n\n"
         "| source | tasks | excluded | precision-blind | with notes |\n|---|---|---|---|---|\n";
  for (const auto& [source, counts] : count_by_source(verdicts)) {
    out << "| " << source << " | " << counts.tasks << " | " << counts.excluded << " | "
        << counts.precision_blind << " | " << counts.with_notes << " |\n";
  }
  out << "\n"
         "| task | description | configs | inputs | default dims | small dims | bytes | flops | "
         "filter |\n"
         "|---|---|---|---|---|---|---|---|---|\n";
  for (const TaskSpec* declared : registered_tasks()) {
    const TaskSpec* task = &declared->configured(0);
    std::string inputs, verdict = "not judged";
    for (const InputSpec& input : task->inputs()) {
      std::string dims;
      for (const std::string& dim : input.dims) dims += (dims.empty() ? "" : ",") + dim;
      if (input.like_output >= 0) {
        dims = "shape of forward output " + std::to_string(input.like_output);
      }
      // A 16-bit input names its format (the bf16 and fp16 tasks); float32 goes unsaid.
      const bool sixteen_bit = input.dtype == DType::bfloat16 || input.dtype == DType::float16;
      inputs += (inputs.empty() ? "" : "; ") + input.name + "[" + dims + "] " +
                (sixteen_bit ? std::string(to_string(input.dtype)) + " " : "") +
                input.values.describe() + (input.is_weight ? " (weight)" : "");
    }
    for (const TaskVerdict& task_verdict : verdicts) {
      if (task_verdict.task != task->id()) continue;
      verdict = task_verdict.excluded()          ? "**EXCLUDED**"
                : task_verdict.precision_blind() ? "**precision-blind**"
                                                 : "ok";
      for (const std::string& reason : task_verdict.reasons) verdict += "; " + reason;
      for (const std::string& note : task_verdict.notes) verdict += "; note: " + note;
    }
    char bytes[32], flops[32];
    std::snprintf(bytes, sizeof bytes, "%.3g", task->minimal_bytes(task->default_dims()));
    std::snprintf(flops, sizeof flops, "%.3g", task->flop_count(task->default_dims()));
    out << "| " << task->id() << " | " << task->description() << " | "
        << describe_configs(*declared) << " | " << inputs << " | "
        << format_dims(task->default_dims()) << " | " << format_dims(task->small_dims()) << " | "
        << bytes << " | " << flops << " | " << verdict << " |\n";
  }
}

std::string junit_file_name(const std::string& test_name) {
  std::string name = test_name;
  for (char& c : name) {
    const bool kept = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    if (!kept) c = '.';
  }
  return name + ".xml";
}

void print_ctest_script(std::ostream& out, const std::string& executable,
                        const std::string& junit_directory) {
  out << "# Generated by `rkt list --ctest`: one test per kernel and label group.\n";
  for (const KernelSpec* kernel : registered_kernels()) {
    const TaskSpec* task = find_task(kernel->task_id());
    for (const std::string& label : case_labels()) {
      // The group's cases by name: a group holds cases of other prefixes too (values_* are
      // correctness cases, relation_* property cases), which a "<label>_*" filter would miss.
      std::string filter;
      if (task != nullptr) {
        for (const KernelCase& kernel_case : cases_of(*kernel, *task)) {
          if (kernel_case.label != label) continue;
          filter += (filter.empty() ? "" : ":") + kernel->full_id() + "." + kernel_case.name;
        }
      }
      if (filter.empty() && task != nullptr) continue;  // no case of this label (sanitizer: CUDA only)
      if (filter.empty()) filter = kernel->full_id() + "." + label + "_*";
      const std::string name = kernel->full_id() + ":" + label;
      out << "add_test(\"" << name << "\" \"" << executable << "\" test --timeout "
          << defaults::kCtestCaseTimeoutSeconds << " --junit \"" << junit_directory << "/"
          << junit_file_name(name) << "\" --filter \"" << filter << "\")\n"
          << "set_tests_properties(\"" << name << "\" PROPERTIES LABELS \"" << label << ";"
          << to_string(kernel->device()) << "\" SKIP_RETURN_CODE 77 TIMEOUT "
          << 4 * defaults::kKernelProcessTimeoutSeconds
          // One GPU per CUDA test when ctest runs with a resource spec (framework/supervision/gpu_pinning.h);
          // the device named, so that a machine without a GPU starts no child ahead for it
          // (framework/supervision/device_skips.h).
          << (kernel->device() == Device::cuda
                  ? std::string(" RESOURCE_GROUPS gpus:1 ENVIRONMENT \"") + kSelectionDeviceVariable + "=cuda\""
                  : std::string())
          << ")\n";
    }
  }
}

}  // namespace rkt
