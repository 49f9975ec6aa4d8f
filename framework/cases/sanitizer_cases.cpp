#include "framework/cases/sanitizer_cases.h"

#include <ATen/ATen.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "framework/cases/correctness_case.h"
#include "framework/cases/cuda_debugger_backend.h"
#include "framework/cases/failed_cases.h"
#include "framework/cases/sanitizer_tool_check.h"
#include "framework/dims/kernel_domain.h"
#include "framework/dims/ragged_dims.h"
#include "framework/inputs/input_generation.h"
#include "framework/inputs/seeding.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/isolation/kernel_library.h"
#include "framework/isolation/shared_tensors.h"
#include "framework/isolation/worker_process.h"
#include "framework/runtime/outputs_final_at_return.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"

namespace rkt {
namespace {

// How often the log is read for a finding while the sanitized worker runs, and how long a
// finding's block is given to be written whole.
constexpr int kLogPollMilliseconds = 100;       // [ms]
constexpr int kFindingSettleMilliseconds = 1000;  // [ms]

bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

// A compute-sanitizer log line without its "========= " prefix; "" for other lines.
// How many of the tool's last lines stand for a finding the reader does not recognise.
constexpr std::size_t kUnrecognisedFindingLines = 4;  // [lines]

std::string sanitizer_line(const std::string& line) {
  static const std::string prefix = "=========";
  if (line.compare(0, prefix.size(), prefix) != 0) return "";
  const std::size_t text = line.find_first_not_of(' ', prefix.size());
  return text == std::string::npos ? "" : line.substr(text);
}

// The small dims the sanitized call runs at: the task's CPU test size moved inside what the
// kernel declares it supports (not to its full test size: the sanitizer slows a call by
// 10-100x), then made ragged: every dim odd and off a power of two where the domain allows, so
// a tail that reads past the end (float4 loads when numel % 4 != 0) does so here, where
// memcheck sees it.
Dims sanitizer_dims(const KernelSpec& kernel, const TaskSpec& task) {
  return ragged_dims(dims_inside_domain(task.small_dims(), task, kernel.supported_dims()), task,
                     kernel.supported_dims());
}

std::string read_file_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

const std::vector<SanitizerTool>& all_sanitizer_tools() {
  static const std::vector<SanitizerTool> tools = {SanitizerTool::memcheck, SanitizerTool::racecheck,
                                                   SanitizerTool::synccheck, SanitizerTool::initcheck};
  return tools;
}

std::string sanitizer_tool_disabled_reason(SanitizerTool tool) {
  if (tool != SanitizerTool::initcheck) return "";
  const char* enabled = std::getenv("RKT_SANITIZER_INITCHECK");
  if (enabled != nullptr && std::string(enabled) == "1") return "";
  return "initcheck is off (RKT_SANITIZER_INITCHECK=1 turns it on): on the H200 a worker under "
         "initcheck never answered, even for an honest kernel (docs/gpu_runs.md, runs 19 and 20), "
         "so the case could only end at its timeout; reads of memory nobody wrote go unchecked";
}

const char* to_string(SanitizerTool tool) {
  switch (tool) {
    case SanitizerTool::memcheck: return "memcheck";
    case SanitizerTool::racecheck: return "racecheck";
    case SanitizerTool::synccheck: return "synccheck";
    case SanitizerTool::initcheck: return "initcheck";
  }
  return "?";
}

std::string compute_sanitizer_path() {
  if (const char* chosen = std::getenv("RKT_COMPUTE_SANITIZER")) return executable(chosen) ? chosen : "";
  std::vector<std::string> candidates;
  if (const char* cuda_home = std::getenv("CUDA_HOME")) candidates.push_back(std::string(cuda_home) + "/bin/compute-sanitizer");
  candidates.push_back("/usr/local/cuda/bin/compute-sanitizer");
  if (const char* path = std::getenv("PATH")) {
    std::istringstream folders(path);
    for (std::string folder; std::getline(folders, folder, ':');) {
      if (!folder.empty()) candidates.push_back(folder + "/compute-sanitizer");
    }
  }
  for (const std::string& candidate : candidates) {
    if (executable(candidate)) return candidate;
  }
  return "";
}

SanitizerLog read_sanitizer_log(const std::string& text) {
  SanitizerLog log;
  std::istringstream lines(text);
  static const std::regex error_summary(R"(ERROR SUMMARY: ([0-9]+) error)");
  static const std::regex race_summary(R"(RACECHECK SUMMARY: .*\(([0-9]+) error)");
  bool in_finding = false, finding_done = false;
  // An API error the tool counts ("Program hit cudaErrorLaunchFailure ... on CUDA API call to
  // ..."), kept apart: it names a finding only when the log holds no other (an empty message
  // was seen on the H200: the count said 1, the finding was such a line).
  std::string api_error;
  std::vector<std::string> recent;  // the tool's last lines, for a finding in no known form
  for (std::string line; std::getline(lines, line);) {
    const std::string content = sanitizer_line(line);
    if (!content.empty() && content != "COMPUTE-SANITIZER" && content.find("SUMMARY: ") == std::string::npos) {
      recent.push_back(content);
      if (recent.size() > kUnrecognisedFindingLines) recent.erase(recent.begin());
    }
    if (api_error.empty() && content.rfind("Program hit", 0) == 0) api_error = content;
    std::smatch match;
    if (std::regex_search(content, match, error_summary) || std::regex_search(content, match, race_summary)) {
      log.summarised = true;
      log.errors = std::max(log.errors, std::stoi(match[1]));
      in_finding = false;
      continue;
    }
    if (finding_done) continue;
    const bool indented = line.size() > 10 && line.compare(0, 13, "=========    ") == 0;
    if (!in_finding) {
      // A finding starts with an unindented line that is not the banner or a program message.
      if (content.empty() || indented || content == "COMPUTE-SANITIZER" ||
          content.rfind("Program hit", 0) == 0 || content.rfind("Target application", 0) == 0) {
        continue;
      }
      log.first_finding = content;
      in_finding = true;
      continue;
    }
    if (content.empty() || content.find("Saved host backtrace") != std::string::npos ||
        content.find("Host Frame") != std::string::npos || !indented) {
      in_finding = false;
      finding_done = true;
      continue;
    }
    log.first_finding += "; " + content;
  }
  if (log.errors > 0 && log.first_finding.empty()) {
    if (!api_error.empty()) {
      log.first_finding = api_error;
    } else {
      log.first_finding = "no finding in a form this reader knows; the tool's last lines:";
      for (const std::string& content : recent) log.first_finding += " " + content + ";";
      if (recent.empty()) log.first_finding += " none (only its summary)";
    }
  }
  return log;
}

std::string sanitizer_call_cut_short_reason(const std::string& kernel_id, SanitizerTool tool,
                                            double seconds_since_case_start) {
  const std::string failed = first_failed_case(kernel_id);
  if (failed.empty() || seconds_since_case_start < defaults::kSanitizerSecondsAfterKernelFailed)
    return "";
  std::ostringstream reason;
  reason.precision(3);
  reason << "not finished: the kernel had failed " << failed
         << ", and its call under compute-sanitizer " << to_string(tool)
         << " was still running with no finding " << seconds_since_case_start
         << " s after the case began; it was ended there (after an invalid access the sanitized "
            "worker can stay silent until the case's limit, holding the GPU meanwhile)";
  return reason.str();
}

CaseOutcome run_sanitizer_case(const KernelSpec& kernel, const TaskSpec& task, SanitizerTool tool) {
  const std::string name = kernel.full_id() + " sanitizer " + to_string(tool);
  if (auto skipped = skip_if_device_missing(kernel)) return *skipped;
  if (const std::string why = sanitizer_tool_disabled_reason(tool); !why.empty()) {
    return {CaseStatus::skipped, name + ": " + why};
  }
  const std::string sanitizer = compute_sanitizer_path();
  if (sanitizer.empty()) {
    return {CaseStatus::skipped, name + ": compute-sanitizer not found (looked at $RKT_COMPUTE_SANITIZER, "
                                        "$CUDA_HOME/bin, /usr/local/cuda/bin and PATH)"};
  }
  const WorkerLaunch* launch = worker_launch();
  if (launch == nullptr) {
    return {CaseStatus::skipped, name + ": the sanitizer cases run the kernel in a worker under "
                                        "compute-sanitizer, and --in-process has no worker"};
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    // Whether the tool's silence means anything on this machine (sanitizer_tool_check.h).
    const SanitizerToolCheck tool_check = check_sanitizer_tool(tool, sanitizer, launch->executable);
    CaseInputs inputs;
    inputs.dims = sanitizer_dims(kernel, task);
    inputs.seed = case_seed(task.id() + "/sanitizer_" + to_string(tool));
    inputs.distribution = std::string("sanitizer ") + to_string(tool);
    const std::string where = kernel.full_id() + ", " + describe_case(inputs);
    const std::vector<at::Tensor> drawn = generate_inputs(task, inputs.dims, inputs.seed, c10::Device(c10::kCPU));
    const std::vector<OutputSignature> signatures = infer_output_signatures(task, drawn, kernel.device());
    // Exactly their data: memcheck judges an access against the allocation it lands in.
    BufferPlacement exact;
    exact.redzones = false;
    std::vector<at::Tensor> buffers_in, outputs;
    for (const at::Tensor& input : drawn) buffers_in.push_back(copy_for_kernel(input, kernel, exact));
    for (const OutputSignature& signature : signatures) {
      outputs.push_back(allocate_for_kernel(signature.sizes, signature.dtype, kernel, exact));
      poison_output(outputs.back());
    }
    synchronize_device(kernel.device());

    // A folder of the judge's own for the tool's log (std::filesystem is avoided here: LibTorch
    // exports symbols of its own build of it, and the process may bind to those).
    const char* temporary = std::getenv("TMPDIR");
    std::string folder = std::string(temporary != nullptr ? temporary : "/tmp") + "/rkt-sanitizer-XXXXXX";
    if (::mkdtemp(folder.data()) == nullptr) throw std::runtime_error("could not create a folder for the sanitizer's log");
    const std::string log_path = folder + "/log.txt";
    WorkerLaunch sanitized = *launch;
    sanitized.wrapper = {sanitizer, "--tool", to_string(tool), "--print-limit", "1", "--log-file", log_path};
    // RKT_SANITIZER_OWN_COPIES=1: the kernel runs on allocations of the worker's own, whose bounds
    // the tool knows, not on the judge's buffers mapped by CUDA IPC (own_device_copies.h). Off
    // until a GPU run shows memcheck naming accesses so and passing honest kernels (the copies
    // are API calls on IPC memory that memcheck checks too).
    const char* own_copies = std::getenv("RKT_SANITIZER_OWN_COPIES");
    sanitized.own_device_copies = own_copies != nullptr && std::string(own_copies) == "1";
    // RKT_SANITIZER_NO_CHROOT=1: the sanitized worker keeps the file system (diagnosis only).
    if (const char* no_chroot = std::getenv("RKT_SANITIZER_NO_CHROOT")) sanitized.change_root = std::string(no_chroot) != "1";
    // RKT_SANITIZER_NO_SECCOMP=1: the sanitized worker may make any system call (diagnosis only).
    if (const char* no_seccomp = std::getenv("RKT_SANITIZER_NO_SECCOMP"))
      sanitized.seccomp = std::string(no_seccomp) != "1";

    std::string call_error;
    std::string cut_short;  // why the watcher ended the call without a finding
    wire::Reply reply;
    try {
      WorkerProcess worker(sanitized);
      // After a finding the instrumented worker may never answer or exit (seen on the H200 with
      // memcheck and initcheck): once the log holds a finding, the tool and its worker are
      // killed and the finding is the verdict.
      // A kernel that failed another case meanwhile gets kSanitizerSecondsAfterKernelFailed for
      // its finding, then the tool is ended too (sanitizer_call_cut_short_reason).
      std::atomic<bool> done{false};
      const pid_t group = worker.pid();  // the tool and its worker: a process group of their own
      std::thread watcher([&] {
        while (!done) {
          std::this_thread::sleep_for(std::chrono::milliseconds(kLogPollMilliseconds));
          if (!read_sanitizer_log(read_file_text(log_path)).first_finding.empty()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(kFindingSettleMilliseconds));
            if (!done) ::kill(-group, SIGKILL);  // the socket closes: the main thread's ask() ends
            return;
          }
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          std::string reason = sanitizer_call_cut_short_reason(kernel.full_id(), tool, seconds);
          if (!reason.empty() && !done) {
            cut_short = std::move(reason);  // read after the join below
            ::kill(-group, SIGKILL);
            return;
          }
        }
      });
      try {
        std::vector<SharedLocationRef> shared;
        const wire::Request request = call_request(kernel, buffers_in, outputs, shared);
        reply = worker.ask(request, shared, defaults::kSanitizerCallTimeoutSeconds);
        if (!reply.ok) call_error = reply.error;
        if (reply.not_final_at_return && reply.not_final_output >= 0) {
          const auto index = static_cast<std::size_t>(reply.not_final_output);
          call_error = replace_output_placeholder(
              reply.error, index, task_buffer_name(kernel.task_id(), false, index));
        }
        worker.finish(defaults::kSanitizerExitTimeoutSeconds);
      } catch (const WorkerFailure& failure) {
        call_error = failure.what();
      }
      done = true;
      watcher.join();
    } catch (const WorkerFailure& failure) {
      call_error = failure.what();
    }
    const SanitizerLog log = read_sanitizer_log(read_file_text(log_path));
    // RKT_SANITIZER_LOG_DIR keeps the tool's whole log (diagnosis).
    if (const char* keep = std::getenv("RKT_SANITIZER_LOG_DIR")) {
      std::ofstream(std::string(keep) + "/" + kernel.task_id() + "." + kernel.kernel_id() + "." +
                    to_string(tool) + ".log")
          << read_file_text(log_path);
    }
    ::unlink(log_path.c_str());
    ::rmdir(folder.c_str());
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::ostringstream cost;
    cost.precision(3);
    cost << seconds;
    if (log.errors > 0) {
      return {CaseStatus::failed, name + ": compute-sanitizer " + to_string(tool) + " found " +
                                      std::to_string(log.errors) + " error" + (log.errors == 1 ? "" : "s") +
                                      " (" + where + "); the first: " + log.first_finding};
    }
    if (!cut_short.empty()) return {CaseStatus::skipped, name + ": " + cut_short};
    if (!call_error.empty()) {
      // Seen on the H200 (docs/gpu_runs.md run 22): after an invalid global read (one past the
      // end, or a float4 tail) the sanitized worker ran on without answering and the tool wrote
      // no finding; honest kernels answered in 1-3 s.
      const bool hung = call_error.find("did not answer within") != std::string::npos;
      return {
          CaseStatus::failed,
          name + ": the call under compute-sanitizer " + to_string(tool) + " failed (" + where +
              "): " + call_error +
              (hung ? "; the tool reported nothing before the worker stopped answering, which "
                      "on the H200 followed invalid memory accesses (honest kernels answer in "
                      "1-3 s): run the call under compute-sanitizer by hand to see the access; " +
                          describe_cuda_debugger_backend(
                              find_cuda_debugger_backend(cuda_debugger_backend_directories())) +
                          (tool_check.reports_planted_error
                               ? std::string()
                               : "; on this machine the tool cannot name an access: " +
                                     tool_check.evidence)
                    : "")};
    }
    if (!log.summarised) {
      return {CaseStatus::failed, name + ": compute-sanitizer " + to_string(tool) +
                                      " wrote no summary (the tool did not complete; " + where + ")"};
    }
    const CaseOutcome judged = judge_outputs(kernel, task, where, drawn, signatures, outputs);
    if (judged.status != CaseStatus::passed) return judged;
    if (!tool_check.reports_planted_error) {
      return {CaseStatus::skipped,
              name + ": compute-sanitizer " + to_string(tool) + " ran the call (" + where + ", " +
                  cost.str() +
                  " s) and reported nothing, but on this machine it reports nothing "
                  "for a planted error either, so its silence vouches for nothing: " +
                  tool_check.evidence + " (kept in " + kSanitizerCheckFolder + " or $" +
                  kSanitizerCheckFolderVariable + "; the outputs were right)"};
    }
    return {CaseStatus::passed, name + ": no errors (one call, " + where + ", " + cost.str() + " s)"};
  } catch (const std::exception& error) {
    return {CaseStatus::failed, name + ": " + describe_call_failure(error)};
  }
}

}  // namespace rkt
