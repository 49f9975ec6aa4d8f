#include "framework/cli/listing.h"

#include <cstdio>

#include "framework/base/json_text.h"
#include "framework/cases/case_catalog.h"
#include "framework/dims/dim_resolution.h"
#include "framework/dims/kernel_domain.h"
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
        << to_string(kernel->precision()) << "]"
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
    if (const TaskSpec* task = find_task(kernel->task_id())) {
      out << "     ";
      for (const KernelCase& kernel_case : cases_of(*kernel, *task)) out << " " << kernel_case.name;
      out << "\n";
    }
  }
}

void print_listing_json(std::ostream& out) {
  out << "{\"tasks\":[";
  bool first = true;
  for (const TaskSpec* task : registered_tasks()) {
    out << (first ? "" : ",") << "{\"id\":" << json_string(task->id())
        << ",\"description\":" << json_string(task->description()) << ",\"inputs\":[";
    for (std::size_t i = 0; i < task->inputs().size(); ++i) {
      const InputSpec& input = task->inputs()[i];
      out << (i ? "," : "") << "{\"name\":" << json_string(input.name) << ",\"dims\":[";
      for (std::size_t d = 0; d < input.dims.size(); ++d) {
        out << (d ? "," : "") << json_string(input.dims[d]);
      }
      out << "],\"dtype\":" << json_string(to_string(input.dtype))
          << ",\"values\":" << json_string(input.values.describe())
          << ",\"index\":" << (input.is_index() ? "true" : "false") << "}";
    }
    out << "],\"outputs\":[";
    for (std::size_t i = 0; i < task->output_names().size(); ++i) {
      out << (i ? "," : "") << json_string(task->output_names()[i]);
    }
    out << "],\"configs\":[";
    for (std::size_t c = 0; c < task->configs().size(); ++c) {
      const TaskSpec& configured = task->configured(c);
      out << (c ? "," : "") << "{\"name\":" << json_string(configured.config_name())
          << ",\"default_dims\":" << json_string(format_dims(configured.default_dims()))
          << ",\"small_dims\":" << json_string(format_dims(configured.small_dims())) << "}";
    }
    out << "],\"forward_task\":" << json_string(task->forward_task_id())
        << ",\"default_dims\":" << json_string(format_dims(task->configured(0).default_dims()))
        << ",\"small_dims\":" << json_string(format_dims(task->configured(0).small_dims()))
        << "}";
    first = false;
  }
  out << "],\"kernels\":[";
  first = true;
  for (const KernelSpec* kernel : registered_kernels()) {
    out << (first ? "" : ",") << "{\"id\":" << json_string(kernel->kernel_id())
        << ",\"task\":" << json_string(kernel->task_id())
        << ",\"device\":" << json_string(to_string(kernel->device()))
        << ",\"precision\":" << json_string(to_string(kernel->precision())) << ",\"waived_gates\":{";
    bool first_waiver = true;
    for (const auto& [gate, reason] : kernel->waived_gates()) {
      out << (first_waiver ? "" : ",") << json_string(to_string(gate)) << ":" << json_string(reason);
      first_waiver = false;
    }
    out << "},\"allowed_operators\":[";
    for (std::size_t i = 0; i < kernel->allowed_operators().size(); ++i) {
      out << (i ? "," : "") << json_string(kernel->allowed_operators()[i]);
    }
    out << "],\"supports\":[";
    for (std::size_t i = 0; i < kernel->supported_dims().size(); ++i) {
      out << (i ? "," : "") << json_string(kernel->supported_dims()[i].describe());
    }
    out << "],\"cases\":[";
    if (const TaskSpec* task = find_task(kernel->task_id())) {
      bool first_case = true;
      for (const KernelCase& kernel_case : cases_of(*kernel, *task)) {
        out << (first_case ? "" : ",")
            << json_string(kernel_case.suite + "." + kernel_case.name);
        first_case = false;
      }
    }
    out << "]}";
    first = false;
  }
  out << "]}\n";
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
      inputs += (inputs.empty() ? "" : "; ") + input.name + "[" + dims + "] " +
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

void print_ctest_script(std::ostream& out, const std::string& executable) {
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
      if (filter.empty()) filter = kernel->full_id() + "." + label + "_*";
      const std::string name = kernel->full_id() + ":" + label;
      out << "add_test(\"" << name << "\" \"" << executable << "\" test --filter \""
          << filter << "\")\n"
          << "set_tests_properties(\"" << name << "\" PROPERTIES LABELS \"" << label << ";"
          << to_string(kernel->device()) << "\" SKIP_RETURN_CODE 77 TIMEOUT "
          << 4 * defaults::kKernelProcessTimeoutSeconds
          // One GPU per CUDA test when ctest runs with a resource spec (framework/supervision/gpu_pinning.h).
          << (kernel->device() == Device::cuda ? " RESOURCE_GROUPS gpus:1" : "") << ")\n";
    }
  }
}

}  // namespace rkt
