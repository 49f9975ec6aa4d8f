#include "framework/main_job.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "framework/benchmark_files.h"
#include "framework/device_support.h"
#include "framework/hidden_inputs.h"
#include "framework/run_report.h"
#include "framework/task_filter.h"
#include "framework/kernel_library.h"
#include "framework/seeding.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

std::string utc_time(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::ostringstream text;
  text << std::put_time(&utc, format);
  return text.str();
}

// POSIX calls rather than std::filesystem: LibTorch's shared library exports std::filesystem
// symbols of its own toolchain, and calls can bind to them (std::filesystem::remove_all
// crashed that way here).
bool file_exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

void make_directories(const std::string& path) {
  for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    ::mkdir(path.substr(0, slash).c_str(), 0755);
    if (slash == std::string::npos) break;
  }
  if (!file_exists(path)) throw std::runtime_error("cannot create directory '" + path + "'");
}

std::string read_file(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

void write_report_files(const std::string& directory, const RunReport& report) {
  // Each file is written whole to a temporary name and renamed: a crash mid-write leaves the
  // previous complete version.
  for (const auto& [name, content] :
       std::vector<std::pair<std::string, std::string>>{{"results.json", results_json(report)},
                                                        {"report.md", report_markdown(report)},
                                                        {"report.html", report_html(report)}}) {
    const std::string temporary = directory + "/" + name + ".partial";
    std::ofstream(temporary) << content;
    ::rename(temporary.c_str(), (directory + "/" + name).c_str());
  }
}

SupervisionOptions supervision_for(const MainJobOptions& options, const std::string& filter) {
  SupervisionOptions supervision;
  supervision.executable = options.executable;
  supervision.gtest_filter = filter;
  supervision.extra_args = {"--gtest_brief=1"};
  supervision.echo_child_output = false;
  if (options.case_timeout_seconds > 0) {
    supervision.case_timeout_seconds = options.case_timeout_seconds;
  }
  return supervision;
}

}  // namespace

int run_main_job(const MainJobOptions& options) {
  const std::string directory = options.output_directory.empty()
                                    ? "runs/" + utc_time("%Y%m%dT%H%M%SZ")
                                    : options.output_directory;
  make_directories(directory);
  const std::string scratch = directory + "/benchmarks";
  make_directories(scratch);
  const bool terminal = ::isatty(1) && std::getenv("CI") == nullptr;

  std::vector<const KernelSpec*> kernels;
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->full_id().find(options.kernel_filter) != std::string::npos) {
      kernels.push_back(kernel);
    }
  }
  RunReport report;
  report.started_utc = utc_time("%Y-%m-%dT%H:%M:%SZ");
  report.seed = base_seed();
  report.hidden_inputs = hidden_inputs().summary();
  report.isolation = isolation_summary();
  std::cout << "rkt run: " << kernels.size() << " kernels, seed " << base_seed()
            << " (RKT_SEED=" << base_seed() << " reproduces), hidden inputs: "
            << report.hidden_inputs << ", results in " << directory << "\n"
            << "rkt run: kernels run " << report.isolation << "\n";
  for (Device device : {Device::cpu, Device::cuda}) {
    if (!device_available(device)) {
      std::cout << "rkt run: " << to_string(device)
                << " kernels are skipped: " << device_unavailable_reason(device) << "\n";
    }
  }

  // The task filter first: kernels of excluded tasks are still tested, but marked and left out
  // of the aggregates; kernels of precision-blind tasks are scored and marked.
  std::map<std::string, TaskVerdict> task_verdicts;
  for (const KernelSpec* kernel : kernels) {
    if (task_verdicts.count(kernel->task_id()) == 0) {
      if (const TaskSpec* task = find_task(kernel->task_id())) {
        task_verdicts[task->id()] = judge_task(*task);
      }
    }
  }
  const auto job_start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelSpec& kernel = *kernels[i];
    if (terminal) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - job_start).count();
      const double remaining = i == 0 ? 0 : elapsed / i * (kernels.size() - i);
      std::cout << "[" << i + 1 << "/" << kernels.size() << "] " << kernel.full_id()
                << "  elapsed " << std::fixed << std::setprecision(0) << elapsed << " s, about "
                << remaining << " s left\n"
                << std::flush;
    }
    const auto start = std::chrono::steady_clock::now();
    KernelReport entry;
    entry.task = kernel.task_id();
    entry.kernel = kernel.kernel_id();
    entry.device = to_string(kernel.device());
    entry.precision = to_string(kernel.precision());
    for (const auto& [gate, reason] : kernel.waived_gates()) entry.waived_gates[to_string(gate)] = reason;
    entry.allowed_operators = kernel.allowed_operators();
    for (const DimRestriction& restriction : kernel.supported_dims()) {
      entry.supported_dims.push_back(restriction.describe());
    }
    entry.task_severity = to_string(task_verdicts[entry.task].severity);
    entry.task_reasons = task_verdicts[entry.task].reasons;

    // Correctness, properties and integrity gates; then the benchmark, only when they passed
    // (a kernel that fails a gate is not timed: its numbers would mean nothing).
    entry.cases = run_supervised(supervision_for(options, kernel.full_id() + ".*"));
    entry.benchmark.task = entry.task;
    entry.benchmark.kernel = entry.kernel;
    entry.benchmark.device = entry.device;
    if (entry.verdict() == "pass") {
      ::setenv(kBenchmarkDirectoryVariable, scratch.c_str(), 1);
      const SupervisedRun benchmark =
          run_supervised(supervision_for(options, kernel.full_id() + ".benchmark"));
      ::unsetenv(kBenchmarkDirectoryVariable);
      const std::string record_path = benchmark_record_path(scratch, kernel);
      if (file_exists(record_path)) {
        try {
          entry.benchmark = deserialize_benchmark_record(read_file(record_path));
        } catch (const std::exception& error) {
          entry.benchmark.problem = std::string("unreadable benchmark record: ") + error.what();
        }
      } else {
        entry.benchmark.problem = benchmark.cases.empty()
                                      ? "the benchmark process produced no result"
                                      : "the benchmark " + benchmark.cases[0].status + ": " +
                                            benchmark.cases[0].message;
      }
    } else {
      entry.benchmark.problem =
          entry.verdict() == "skipped" && !entry.cases.cases.empty()
              ? entry.cases.cases[0].message
              : "its cases did not all pass, and a failing kernel is not timed";
    }
    entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string peaks_file = peaks_path(scratch, kernel.device());
    if (report.peaks.count(entry.device) == 0 && file_exists(peaks_file)) {
      report.peaks[entry.device] = deserialize_device_peaks(read_file(peaks_file));
    }
    report.kernels.push_back(std::move(entry));
    // Rewritten after every kernel: a crash or a kill of the job loses nothing already measured.
    write_report_files(directory, report);
  }
  report.finished = true;
  write_report_files(directory, report);

  const std::string markdown = report_markdown(report);
  std::cout << "\n" << markdown.substr(markdown.find("## Summary")) << "\nrkt run: wrote "
            << directory << "/results.json, report.md and report.html\n";
  int failures = 0;
  for (const KernelReport& kernel : report.kernels) failures += kernel.verdict() == "FAIL";
  return failures == 0 ? 0 : 1;
}

}  // namespace rkt
