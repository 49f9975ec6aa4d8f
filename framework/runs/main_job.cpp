#include "framework/runs/main_job.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "framework/base/file_access.h"
#include "framework/base/utc_time.h"
#include "framework/benchmarks/benchmark_files.h"
#include "framework/cases/case_selection.h"
#include "framework/cases/task_filter.h"
#include "framework/inputs/hidden_inputs.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_library.h"
#include "framework/runs/run_folder.h"
#include "framework/runs/run_report.h"
#include "framework/runs/run_sharding.h"
#include "framework/runtime/device_support.h"
#include "framework/supervision/worker_loan.h"
#include "rkt/defaults.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

// "12 s", "3 min 20 s", "1 h 05 min": durations people read in a progress line.
std::string duration_text(double seconds) {
  const long whole = std::lround(seconds);
  std::ostringstream text;
  if (whole < 60) {
    text << whole << " s";
  } else if (whole < 3600) {
    text << whole / 60 << " min " << whole % 60 << " s";
  } else {
    text << whole / 3600 << " h " << std::setw(2) << std::setfill('0') << (whole % 3600) / 60
         << " min";
  }
  return text.str();
}

// One kernel's outcome in a line: verdict, case counts, the median when measured.
std::string outcome_text(const KernelReport& entry) {
  std::ostringstream text;
  text << entry.verdict() << " (" << entry.cases.count("passed") << " passed, "
       << entry.cases.count("failed") + entry.cases.count("crashed") << " failed, "
       << entry.cases.count("skipped") << " skipped";
  if (entry.benchmark.measured) {
    text << "; median " << std::setprecision(4) << entry.benchmark.time.median << " ms";
  } else if (entry.verdict() == "pass") {
    // Judged but not timed (a refused benchmark): `rkt compare` fails such a kernel, so the line
    // says it now rather than a CI gate later.
    text << "; NOT TIMED: " << entry.benchmark.problem;
  }
  text << ")";
  return text.str();
}

// A signal that ends the job (Ctrl-C, SIGTERM from a CI runner or `timeout`) first says where
// the results so far are. The handler may only write(2) a ready text: the job keeps two buffers
// and flips which one is current, so that the handler never reads one being written.
constexpr std::size_t kStopTextBytes = 4096;
char stop_texts[2][kStopTextBytes];
std::atomic<int> current_stop_text{-1};

void set_stop_text(const std::string& text) {
  const int next = current_stop_text.load() == 0 ? 1 : 0;
  const std::size_t length = std::min(text.size(), kStopTextBytes - 1);
  std::memcpy(stop_texts[next], text.data(), length);
  stop_texts[next][length] = '\0';
  current_stop_text.store(next);
}

extern "C" void say_where_the_results_are_and_die(int signal_number) {
  const int current = current_stop_text.load();
  if (current >= 0) {
    const char* name = signal_number == SIGINT ? "\nrkt run: interrupted (SIGINT)"
                                               : "\nrkt run: stopped by SIGTERM";
    [[maybe_unused]] ssize_t written = ::write(2, name, std::strlen(name));
    written = ::write(2, stop_texts[current], std::strlen(stop_texts[current]));
  }
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

void install_stop_message() {
  for (const int signal_number : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    // A signal the job was started ignoring (a background job's SIGINT) stays ignored.
    if (::sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
    struct sigaction handler {};
    handler.sa_handler = say_where_the_results_are_and_die;
    sigemptyset(&handler.sa_mask);
    ::sigaction(signal_number, &handler, nullptr);
  }
}

// The heartbeat's interval: kCaseHeartbeatSeconds, or RKT_HEARTBEAT_SECONDS when set.
int heartbeat_seconds() {
  const char* text = std::getenv("RKT_HEARTBEAT_SECONDS");
  if (text == nullptr || *text == '\0') return defaults::kCaseHeartbeatSeconds;
  const int seconds = std::atoi(text);
  return seconds > 0 ? seconds : defaults::kCaseHeartbeatSeconds;
}

// "rkt run: [5/92] rkb_layernorm_backward/cpu_loops: property_shapes passed, 40 s", or
// "rkt run: [5/92] still running rkb_layernorm_backward/cpu_loops: property_shapes, 1 min 30 s".
void print_case_progress(const std::string& position, const CaseProgress& progress) {
  const std::size_t slash = progress.case_name.find('/');
  const std::size_t dot = progress.case_name.find('.', slash == std::string::npos ? 0 : slash);
  const std::string kernel = progress.case_name.substr(0, dot);
  const std::string name = dot == std::string::npos ? "" : progress.case_name.substr(dot + 1);
  if (progress.event == CaseProgress::Event::ended) {
    std::cout << "rkt run: " << position << " " << kernel << ": " << name << " " << progress.status
              << ", " << duration_text(progress.seconds) << "\n" << std::flush;
  } else if (progress.event == CaseProgress::Event::still_running) {
    std::cout << "rkt run: " << position << " still running " << kernel << ": " << name << ", "
              << duration_text(progress.seconds)
              << (progress.status.empty() ? "" : " (" + progress.status + ")") << "\n" << std::flush;
  }
}

// The cases' run honours --timeout; the benchmark's its own limit (a benchmark of a slow kernel
// and its baselines can outlast any case).
SupervisionOptions supervision_for(const MainJobOptions& options, const std::string& filter,
                                   bool benchmark) {
  SupervisionOptions supervision;
  supervision.executable = options.executable;
  supervision.gtest_filter = filter;
  supervision.extra_args = {"--gtest_brief=1"};
  supervision.echo_child_output = false;
  supervision.progress_interval_seconds = heartbeat_seconds();
  if (benchmark) {
    supervision.case_timeout_seconds = options.benchmark_timeout_seconds > 0
                                           ? options.benchmark_timeout_seconds
                                           : defaults::kBenchmarkProcessTimeoutSeconds;
  } else if (options.case_timeout_seconds > 0) {
    supervision.case_timeout_seconds = options.case_timeout_seconds;
  }
  return supervision;
}

}  // namespace

int run_main_job(const MainJobOptions& options) {
  const std::string directory = options.output_directory.empty()
                                    ? "runs/" + utc_time("%Y%m%dT%H%M%SZ")
                                    : options.output_directory;
  const std::string scratch = directory + "/benchmarks";
  if (file_exists(directory + "/results.json")) {
    if (!options.replace_existing) {
      std::cerr << "rkt run: error: " << directory << " already holds a run (" << directory
                << "/results.json); pass --replace to overwrite it, or choose another --out\n";
      return 2;
    }
    // The earlier run's files go, its benchmark records included, so that nothing of it is
    // mistaken for this run's.
    for (const std::string& name : directory_entries(scratch)) ::unlink((scratch + "/" + name).c_str());
    for (const char* name : {"results.json", "report.md", "report.html"}) {
      ::unlink((directory + "/" + name).c_str());
    }
  }
  try {
    make_directories(directory);
    make_directories(scratch);
  } catch (const std::runtime_error& error) {
    std::cerr << "rkt run: " << error.what() << " for the run's results (--out)\n";
    return 2;
  }
  // A terminal gets a progress line before each kernel (done/total, elapsed, estimate); a log
  // (CI, a pipe, a file) gets one plain line per finished kernel and nothing that redraws.
  const bool terminal = ::isatty(1) && std::getenv("CI") == nullptr;

  const std::vector<const KernelSpec*> selected = selected_kernels(options.kernel_fragments);
  const std::vector<const KernelSpec*> kernels = shard_share(selected, options.shard);
  RunReport report;
  report.started_utc = utc_time("%Y-%m-%dT%H:%M:%SZ");
  report.seed = base_seed();
  report.hidden_inputs = hidden_inputs().summary();
  report.isolation = isolation_summary();
  report.kernel_filter = kernel_selection_text(options.kernel_fragments);
  if (options.shard.sharded()) {
    report.shard_index = options.shard.index;
    report.shard_count = options.shard.count;
    report.selected_kernels = static_cast<int>(selected.size());
    std::cout << "rkt run: shard " << options.shard.label() << " runs " << kernels.size()
              << " of the " << selected.size()
              << " selected kernels (in id order, the kernels at positions I, I+N, I+2N, ...)\n";
  }
  std::cout << "rkt run: " << kernels.size() << (kernels.size() == 1 ? " kernel" : " kernels")
            << ", seed " << base_seed()
            << " (RKT_SEED=" << base_seed() << " reproduces), hidden inputs: "
            << report.hidden_inputs << ", results in " << directory << "\n"
            << "rkt run: kernels run " << report.isolation << "\n";
  // What the job will judge and what it will skip, up front: "judging 49 cpu kernels; skipping
  // 43 cuda kernels: no CUDA device".
  std::string judging, skipping;
  for (Device device : {Device::cpu, Device::cuda}) {
    const auto count = std::count_if(kernels.begin(), kernels.end(),
                                     [&](const KernelSpec* k) { return k->device() == device; });
    if (count == 0) continue;
    const std::string text = std::to_string(count) + " " + to_string(device) +
                             (count == 1 ? " kernel" : " kernels");
    if (device_available(device)) {
      judging += (judging.empty() ? "" : " and ") + text;
    } else {
      skipping += (skipping.empty() ? "" : "; ") + text + ": " + device_unavailable_reason(device);
    }
  }
  std::cout << "rkt run: judging " << (judging.empty() ? "no kernel" : judging)
            << (skipping.empty() ? "" : "; skipping " + skipping) << "\n";

  // From here a signal says where the results are; an empty report, marked unfinished, is
  // there before the first kernel ends.
  const std::string results_text = directory + " (results.json, report.md and report.html, marked unfinished)";
  set_stop_text(" before the first kernel; the run folder is " + results_text + "\n");
  install_stop_message();
  write_run_folder(directory, report);

  // The task filter first: kernels of excluded tasks are still tested, but marked and left out
  // of the aggregates; kernels of precision-blind tasks are scored and marked.
  std::map<std::string, TaskVerdict> task_verdicts;
  std::cout << "rkt run: judging the kernels' tasks (task filter)\n" << std::flush;
  for (const KernelSpec* kernel : kernels) {
    if (task_verdicts.count(kernel->task_id()) == 0) {
      if (const TaskSpec* task = find_task(kernel->task_id())) {
        task_verdicts[task->id()] = judge_task(*task);
      }
    }
  }
  const auto job_start = std::chrono::steady_clock::now();
  keep_spare_worker(true);  // After a replaced worker, the next one loads while cases run.
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelSpec& kernel = *kernels[i];
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - job_start).count();
    if (terminal) {
      std::cout << "[" << i + 1 << "/" << kernels.size() << "] " << kernel.full_id() << "  elapsed "
                << duration_text(elapsed)
                << (i == 0 ? std::string(", estimate after the first kernel")
                           : ", about " + duration_text(elapsed / i * (kernels.size() - i)) +
                                 " left")
                << "\n"
                << std::flush;
    }
    const std::string position = "[" + std::to_string(i + 1) + "/" + std::to_string(kernels.size()) + "]";
    set_stop_text(" during " + position + " " + kernel.full_id() + "; " +
                  (i == 0 ? std::string("no kernel had finished; the run folder is ")
                          : std::to_string(i) + (i == 1 ? " kernel" : " kernels") +
                                " finished before it, in ") +
                  results_text + "\n");
    const auto start = std::chrono::steady_clock::now();
    KernelReport entry;
    entry.task = kernel.task_id();
    entry.kernel = kernel.kernel_id();
    entry.device = to_string(kernel.device());
    entry.precision = to_string(kernel.precision());
    entry.accumulation = to_string(kernel.accumulation());
    for (const auto& [gate, reason] : kernel.waived_gates()) entry.waived_gates[to_string(gate)] = reason;
    entry.allowed_operators = kernel.allowed_operators();
    for (const DimRestriction& restriction : kernel.supported_dims()) {
      entry.supported_dims.push_back(restriction.describe());
    }
    entry.alignment_bytes = kernel.alignment_bytes();
    entry.task_severity = to_string(task_verdicts[entry.task].severity);
    entry.task_reasons = task_verdicts[entry.task].reasons;

    // Correctness, properties and integrity gates; then the benchmark, only when they passed
    // (a kernel that fails a gate is not timed: its numbers would mean nothing): one child runs
    // them all, the benchmark last (`<kernel>.benchmark`, registered while RKT_BENCHMARK_DIR is
    // set, with a limit of its own), and skips it when a case before it did not pass.
    // The child adopts this process's worker rather than starting one.
    // Each case's record joins results.json as soon as it is known: a judge killed mid-kernel
    // keeps the cases that finished (the entry carries kCasesStillRunningProblem meanwhile).
    const std::string benchmark_case = kernel.full_id() + ".benchmark";
    SupervisionOptions cases_run = supervision_for(options, kernel.full_id() + ".*", false);
    cases_run.case_timeout_overrides[benchmark_case] =
        supervision_for(options, benchmark_case, true).case_timeout_seconds;
    cases_run.cases_needing_a_clean_run.insert(benchmark_case);
    KernelReport partial = entry;
    partial.cases.problems.push_back(kCasesStillRunningProblem);
    partial.benchmark.problem = kCasesStillRunningProblem;
    cases_run.on_case_recorded = [&](const CaseRecord& record) {
      if (record.name == benchmark_case) return;  // not a case of the verdict's
      partial.cases.cases.push_back(record);
      RunReport so_far = report;
      so_far.kernels.push_back(partial);
      try {
        write_run_folder(directory, so_far);
      } catch (const std::exception& error) {
        std::cerr << "rkt run: warning: could not update the run folder: " << error.what() << "\n";
      }
    };
    cases_run.on_progress = [&](const CaseProgress& progress) { print_case_progress(position, progress); };
    // This kernel's child (started ahead when the run began, or while the kernel before ran),
    // and the next kernel's, which loads while this one's cases run.
    start_child_ahead(options.executable, i + 1 < kernels.size() ? 2 : 1);
    ::setenv(kBenchmarkDirectoryVariable, scratch.c_str(), 1);
    entry.cases = run_supervised_with_lent_worker(cases_run);
    ::unsetenv(kBenchmarkDirectoryVariable);
    SupervisedRun benchmark;  // the benchmark's record, taken out of the cases
    for (auto it = entry.cases.cases.begin(); it != entry.cases.cases.end();) {
      if (it->name != benchmark_case) {
        ++it;
        continue;
      }
      benchmark.cases.push_back(*it);
      it = entry.cases.cases.erase(it);
    }
    entry.benchmark.task = entry.task;
    entry.benchmark.kernel = entry.kernel;
    entry.benchmark.device = entry.device;
    const std::string record_path = benchmark_record_path(scratch, kernel);
    if (entry.verdict() == "pass") {
      for (const CaseRecord& record : benchmark.cases) {
        if (record.status != "crashed") entry.phases += record.phases;  // a crashed one joins the cases
      }
      if (file_exists(record_path)) {
        try {
          entry.benchmark = deserialize_benchmark_record(read_whole_file(record_path));
        } catch (const std::exception& error) {
          entry.benchmark.problem = std::string("unreadable benchmark record: ") + error.what();
        }
      } else {
        entry.benchmark.problem = benchmark.cases.empty()
                                      ? "the benchmark process produced no result"
                                      : "the benchmark " + benchmark.cases[0].status + ": " +
                                            benchmark.cases[0].message;
        // A benchmark that crashed, hung or died fails the kernel: a kernel whose timing run
        // cannot finish is not a passing kernel, and the run's exit code must say so. Its record
        // joins the kernel's cases, so reports show it like any failed case.
        for (const CaseRecord& record : benchmark.cases) {
          if (record.status == "crashed") entry.cases.cases.push_back(record);
        }
        if (benchmark.cases.empty()) {
          entry.cases.problems.push_back("the benchmark process produced no result");
        }
      }
    } else {
      // A benchmark that ran beside a failing case (in a child started after another died in a
      // case, which did not see it) is not the kernel's: only a passing kernel is timed.
      ::unlink(record_path.c_str());
      entry.benchmark.problem =
          entry.verdict() == "skipped" && !entry.cases.cases.empty()
              ? entry.cases.cases[0].message
              : "its cases did not all pass, and a failing kernel is not timed";
    }
    // A kernel's child (and any child started after one died) uses one worker; the next kernel
    // gets a fresh one, so that no kernel runs in a process another kernel's code has run in
    // (and could have patched, or left a thread in), as when each child started its own.
    discard_worker();
    for (const CaseRecord& record : entry.cases.cases) entry.phases += record.phases;
    entry.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string peaks_file = peaks_path(scratch, kernel.device());
    if (report.peaks.count(entry.device) == 0 && file_exists(peaks_file)) {
      report.peaks[entry.device] = deserialize_device_peaks(read_whole_file(peaks_file));
    }
    std::cout << "rkt run: [" << i + 1 << "/" << kernels.size() << "] " << kernel.full_id() << " "
              << outcome_text(entry) << " in " << duration_text(entry.seconds) << "\n"
              << std::flush;
    report.kernels.push_back(std::move(entry));
    // Rewritten after every kernel: a crash or a kill of the job loses nothing already measured.
    write_run_folder(directory, report);
  }
  report.finished = true;
  write_run_folder(directory, report);
  set_stop_text(" after the last kernel; the run folder is " + directory + "\n");

  const std::string markdown = report_markdown(report);
  std::cout << "\n" << markdown.substr(markdown.find("## Summary")) << "\nrkt run: wrote "
            << directory << "/results.json, report.md and report.html\n";
  int failures = 0;
  std::vector<std::string> untimed;
  for (const KernelReport& kernel : report.kernels) {
    failures += kernel.verdict() == "FAIL";
    if (kernel.verdict() == "pass" && !kernel.benchmark.measured) {
      untimed.push_back(kernel.full_id() + " (" + kernel.benchmark.problem + ")");
    }
  }
  if (!untimed.empty()) {
    std::cout << "rkt run: " << untimed.size() << " of the passing kernels were not timed (their "
              << "benchmark was refused or measured nothing; `rkt compare` fails them):\n";
    for (const std::string& line : untimed) std::cout << "  " << line << "\n";
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace rkt
