#include "framework/cases/sanitizer_tool_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <vector>

#include "framework/base/child_process.h"
#include "framework/base/file_access.h"
#include "framework/runtime/device_support.h"
#include "framework/wire/worker_protocol.h"

namespace rkt {
namespace {

std::mutex checks_mutex;
std::map<std::string, SanitizerToolCheck> checks;  // by key; guarded by checks_mutex

std::string check_folder() {
  const char* chosen = std::getenv(kSanitizerCheckFolderVariable);
  return chosen != nullptr && *chosen != '\0' ? chosen : kSanitizerCheckFolder;
}

// The driver's version line ("NVRM version: ... 580.159.04 ..."), "" where there is none.
std::string driver_version_line() {
  std::istringstream lines(read_whole_file("/proc/driver/nvidia/version"));
  std::string first;
  std::getline(lines, first);
  return first;
}

// What the answer depends on: the GPU, its driver, the tool (its path and when it changed).
std::string check_key(SanitizerTool tool, const std::string& sanitizer) {
  struct stat status {};
  const long long changed = ::stat(sanitizer.c_str(), &status) == 0 ? status.st_mtime : 0;
  return std::string(to_string(tool)) + " " + device_identity(Device::cuda) + " " + sanitizer +
         "@" + std::to_string(changed) + " " + driver_version_line();
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// The kept answer: "key\n1 or 0\nevidence".
bool read_kept(const std::string& path, const std::string& key, SanitizerToolCheck& check) {
  std::istringstream kept(read_whole_file(path));
  std::string kept_key, reports;
  if (!std::getline(kept, kept_key) || kept_key != key || !std::getline(kept, reports))
    return false;
  check.reports_planted_error = reports == "1";
  std::getline(kept, check.evidence);
  return !check.evidence.empty();
}

SanitizerToolCheck run_probe(SanitizerTool tool, const std::string& sanitizer,
                             const std::string& worker) {
  const char* temporary = std::getenv("TMPDIR");
  std::string folder = std::string(temporary != nullptr ? temporary : "/tmp") + "/rkt-probe-XXXXXX";
  if (::mkdtemp(folder.data()) == nullptr) {
    return {false, std::string("could not create a folder for the ") + to_string(tool) +
                       " probe's log, so the tool was not asked"};
  }
  const std::string log_path = folder + "/log.txt";
  const std::string output_path = folder + "/output.txt";
  ChildCommand probe;
  probe.argv = {sanitizer,       "--tool", to_string(tool),
                "--print-limit", "1",      "--log-file",
                log_path,        worker,   wire::kSanitizerProbeArgument,
                to_string(tool)};
  probe.output_file = output_path;
  probe.timeout_seconds = kSanitizerProbeTimeoutSeconds;
  const ChildOutcome run = run_child_command(probe);
  SanitizerToolCheck check =
      judge_sanitizer_probe(tool, read_whole_file(log_path), describe_outcome(run), run.timed_out);
  const std::string printed = first_line(read_whole_file(output_path));
  if (!check.reports_planted_error && !printed.empty())
    check.evidence += "; it printed: " + printed;
  ::unlink(log_path.c_str());
  ::unlink(output_path.c_str());
  ::rmdir(folder.c_str());
  return check;
}

}  // namespace

const char* planted_error(SanitizerTool tool) {
  switch (tool) {
    case SanitizerTool::memcheck:
      return "a read one past the end of a cudaMalloc'd buffer";
    case SanitizerTool::racecheck:
      return "a shared-memory slot read by another warp with no barrier after its write";
    case SanitizerTool::synccheck:
      return "a __syncwarp whose mask leaves out a lane that calls it";
    case SanitizerTool::initcheck:
      return "(no planted error: initcheck is not probed)";
  }
  return "?";
}

SanitizerToolCheck judge_sanitizer_probe(SanitizerTool tool, const std::string& log_text,
                                         const std::string& ended, bool timed_out) {
  const SanitizerLog log = read_sanitizer_log(log_text);
  const std::string what = std::string("compute-sanitizer ") + to_string(tool);
  SanitizerToolCheck check;
  if (log.errors > 0 || !log.first_finding.empty()) {
    check.reports_planted_error = true;
    check.evidence = what + " reported " + planted_error(tool) + " (" + log.first_finding + ")";
  } else if (timed_out) {
    check.evidence = what + " reported nothing for " + planted_error(tool) + " in " +
                     std::to_string(kSanitizerProbeTimeoutSeconds) + " s (" + ended + ")";
  } else if (log.summarised) {
    check.evidence = what + " reported 0 errors for " + planted_error(tool) + " (" + ended + ")";
  } else {
    check.evidence = what + " wrote no summary for " + planted_error(tool) + " (" + ended + ")";
  }
  return check;
}

SanitizerToolCheck check_sanitizer_tool(SanitizerTool tool, const std::string& sanitizer,
                                        const std::string& worker) {
  if (tool == SanitizerTool::initcheck) return {true, "initcheck is not probed"};
  const std::string key = check_key(tool, sanitizer);
  const std::lock_guard<std::mutex> lock(checks_mutex);  // one probe at a time in a process
  if (const auto known = checks.find(key); known != checks.end()) return known->second;
  const std::string path =
      check_folder() + "/" + to_string(tool) + "-" + device_identity(Device::cuda) + ".txt";
  SanitizerToolCheck check;
  if (!read_kept(path, key, check)) {
    check = run_probe(tool, sanitizer, worker);
    try {
      make_directories(check_folder());
      ::chmod(check_folder().c_str(), 01777);
      write_file_atomically(path, key + "\n" + (check.reports_planted_error ? "1" : "0") + "\n" +
                                      check.evidence + "\n");
    } catch (const std::exception&) {
      // Not kept: the next judge asks the tool again.
    }
  }
  checks[key] = check;
  return check;
}

}  // namespace rkt
