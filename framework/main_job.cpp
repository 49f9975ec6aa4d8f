#include "framework/main_job.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "framework/device_support.h"
#include "framework/hidden_inputs.h"
#include "framework/json_text.h"
#include "framework/seeding.h"
#include "framework/supervisor.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {
namespace {

struct KernelResult {
  const KernelSpec* kernel = nullptr;
  SupervisedRun run;
  double seconds = 0;
};

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::ostringstream text;
  text << std::put_time(&utc, "%Y%m%dT%H%M%SZ");
  return text.str();
}

std::string verdict_of(const SupervisedRun& run) {
  switch (supervised_exit_code(run)) {
    case 0: return "pass";
    case 77: return "skipped";
    default: return "FAIL";
  }
}

void write_results_json(const std::filesystem::path& path, const std::vector<KernelResult>& results,
                        bool finished) {
  std::ofstream out(path);
  out << "{\n  \"schema\": \"rkt-test-summary/1\",\n  \"seed\": " << base_seed()
      << ",\n  \"hidden_inputs\": " << json_string(hidden_inputs().summary())
      << ",\n  \"finished\": " << (finished ? "true" : "false") << ",\n  \"kernels\": [";
  for (std::size_t k = 0; k < results.size(); ++k) {
    const KernelResult& result = results[k];
    out << (k ? "," : "") << "\n    {\"task\": " << json_string(result.kernel->task_id())
        << ", \"kernel\": " << json_string(result.kernel->kernel_id())
        << ", \"device\": " << json_string(to_string(result.kernel->device()))
        << ", \"precision\": " << json_string(to_string(result.kernel->precision()))
        << ", \"verdict\": " << json_string(verdict_of(result.run))
        << ", \"seconds\": " << result.seconds << ",\n     \"cases\": [";
    for (std::size_t c = 0; c < result.run.cases.size(); ++c) {
      const CaseRecord& record = result.run.cases[c];
      out << (c ? "," : "") << "\n       {\"name\": " << json_string(record.name)
          << ", \"status\": " << json_string(record.status)
          << ", \"milliseconds\": " << record.milliseconds
          << ", \"message\": " << json_string(record.message) << "}";
    }
    out << "],\n     \"problems\": [";
    for (std::size_t p = 0; p < result.run.problems.size(); ++p) {
      out << (p ? ", " : "") << json_string(result.run.problems[p]);
    }
    out << "]}";
  }
  out << "\n  ]\n}\n";
}

std::string summary_table(const std::vector<KernelResult>& results) {
  std::ostringstream text;
  text << "| kernel | device | verdict | passed | failed | skipped | seconds |\n"
       << "|---|---|---|---|---|---|---|\n";
  for (const KernelResult& result : results) {
    text << "| " << result.kernel->full_id() << " | " << to_string(result.kernel->device())
         << " | " << verdict_of(result.run) << " | " << result.run.count("passed") << " | "
         << result.run.count("failed") + result.run.count("crashed") << " | "
         << result.run.count("skipped") << " | " << std::fixed << std::setprecision(1)
         << result.seconds << " |\n";
  }
  return text.str();
}

}  // namespace

int run_main_job(const MainJobOptions& options) {
  const std::filesystem::path directory =
      options.output_directory.empty() ? std::filesystem::path("runs") / utc_timestamp()
                                       : std::filesystem::path(options.output_directory);
  std::filesystem::create_directories(directory);
  const bool terminal = ::isatty(1) && std::getenv("CI") == nullptr;

  std::vector<const KernelSpec*> kernels;
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->full_id().find(options.kernel_filter) != std::string::npos) {
      kernels.push_back(kernel);
    }
  }
  std::cout << "rkt run: " << kernels.size() << " kernels, seed " << base_seed()
            << " (RKT_SEED=" << base_seed() << " reproduces), results in " << directory.string()
            << "\n";
  for (Device device : {Device::cpu, Device::cuda}) {
    if (!device_available(device)) {
      std::cout << "rkt run: " << to_string(device)
                << " kernels are skipped: " << device_unavailable_reason(device) << "\n";
    }
  }

  std::vector<KernelResult> results;
  const auto job_start = std::chrono::steady_clock::now();
  int failures = 0;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelSpec* kernel = kernels[i];
    if (terminal) {
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - job_start).count();
      const double remaining = i == 0 ? 0 : elapsed / i * (kernels.size() - i);
      std::cout << "[" << i + 1 << "/" << kernels.size() << "] " << kernel->full_id()
                << "  elapsed " << std::fixed << std::setprecision(0) << elapsed
                << " s, about " << remaining << " s left\n"
                << std::flush;
    }
    SupervisionOptions supervision;
    supervision.executable = options.executable;
    supervision.gtest_filter = kernel->full_id() + ".*";
    supervision.extra_args = {"--gtest_brief=1"};
    supervision.echo_child_output = false;
    if (options.case_timeout_seconds > 0) {
      supervision.case_timeout_seconds = options.case_timeout_seconds;
    }
    const auto start = std::chrono::steady_clock::now();
    KernelResult result{kernel, run_supervised(supervision), 0};
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (supervised_exit_code(result.run) == 1) ++failures;
    results.push_back(std::move(result));
    // Written after every kernel so that a crash of the job itself loses nothing measured.
    write_results_json(directory / "results.json", results, false);
  }
  write_results_json(directory / "results.json", results, true);

  std::ostringstream report;
  report << "# RobustKernelTest run\n\nseed " << base_seed() << "; hidden inputs: "
         << hidden_inputs().summary() << "; " << kernels.size()
         << " kernels; " << failures << " failed.\n\n"
         << summary_table(results) << "\n";
  for (const KernelResult& result : results) {
    for (const CaseRecord& record : result.run.cases) {
      if (record.status == "failed" || record.status == "crashed") {
        report << "- **" << record.name << "** (" << record.status << "): " << record.message
               << "\n";
      }
    }
    for (const std::string& problem : result.run.problems) {
      report << "- **" << result.kernel->full_id() << "**: " << problem << "\n";
    }
  }
  std::ofstream(directory / "summary.md") << report.str();
  std::cout << "\n" << summary_table(results) << "\nrkt run: wrote " << (directory / "results.json").string()
            << " and " << (directory / "summary.md").string() << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace rkt
