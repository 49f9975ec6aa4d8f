#include "framework/eval/eval_command.h"

#include <iostream>
#include <map>

#include "framework/base/option_parsing.h"
#include "framework/eval/eval_job.h"
#include "framework/eval/kernel_template.h"
#include "framework/eval/serve_client.h"
#include "framework/registry/registry_validation.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// "unknown task 'sofmax'; did you mean 'softmax'?", as the registry's validation says it.
std::string unknown_task_message(const std::string& id) {
  const std::string hint = closest_task_id(id);
  return "unknown task '" + id + "'" +
         (hint.empty() ? "; 'rkt list' shows the tasks" : "; did you mean '" + hint + "'?");
}

}  // namespace

int run_template_command(const std::vector<std::string>& args) {
  std::map<std::string, std::string> options;
  std::vector<std::string> positional;
  std::string error;
  if (!parse_arguments(args, {"--device"}, {}, options, positional, error)) {
    return report_usage_error("template: " + error);
  }
  if (positional.size() != 1) {
    return report_usage_error("template takes one task id (rkt template TASK [--device cuda|cpu])");
  }
  const std::string device = options.count("--device") ? options["--device"] : "cpu";
  if (device != "cpu" && device != "cuda") {
    return report_usage_error("--device takes 'cpu' or 'cuda', not '" + device + "'");
  }
  const TaskSpec* task = find_task(positional[0]);
  if (task == nullptr) return report_usage_error(unknown_task_message(positional[0]));
  std::cout << kernel_template(*task, device == "cuda" ? Device::cuda : Device::cpu);
  return 0;
}

int run_eval_command(const std::vector<std::string>& args, const std::string& judge,
                     const KernelLibraryLocation& kernels) {
  std::map<std::string, std::string> values;
  EvalOptions options;
  std::string error;
  if (!parse_arguments(args, {"--task", "--out", "--jobs", "--judges-per-gpu", "--timeout", "--benchmark-timeout", "--file-timeout", "--recheck", "--server"},
                       {"--json", "--allow-declarations"}, values, options.sources, error)) {
    return report_usage_error("eval: " + error);
  }
  if (options.sources.empty()) {
    return report_usage_error("eval needs at least one kernel source file (rkt eval FILE...)");
  }
  if (values.count("--task")) {
    options.task = values["--task"];
    if (find_task(options.task) == nullptr) return report_usage_error(unknown_task_message(options.task));
  }
  for (const auto& [name, target] : {std::pair<const char*, int*>{"--jobs", &options.jobs},
                                     {"--judges-per-gpu", &options.judges_per_gpu},
                                     {"--timeout", &options.case_timeout_seconds},
                                     {"--benchmark-timeout", &options.benchmark_timeout_seconds},
                                     {"--file-timeout", &options.file_timeout_seconds},
                                     {"--recheck", &options.recheck}}) {
    if (values.count(name) == 0) continue;
    *target = positive_whole_number(values[name]);
    if (*target == 0) {
      return report_usage_error(std::string(name) + " takes a positive whole number, not '" +
                                values[name] + "'");
    }
  }
  options.output_directory = values.count("--out") ? values["--out"] : "";
  options.json = values.count("--json") != 0;
  options.allow_declarations = values.count("--allow-declarations") != 0;
  options.judge = judge;
  options.worker = kernels.worker;
  if (values.count("--server")) {
    // The server writes its own records and run folders, with its own compilers.
    for (const char* local : {"--out", "--jobs", "--judges-per-gpu", "--recheck"}) {
      if (values.count(local)) {
        return report_usage_error(std::string(local) + " does not go with --server (the server keeps its own "
                                  "folder and compilers; rkt serve --help)");
      }
    }
    return run_eval_through_server(values["--server"], options);
  }
  return run_eval_job(options);
}

}  // namespace rkt
