// Twin agreement: every forward task's Python twin (tasks/twins/*.py, the reference the compiled
// baseline is built from) must compute what its C++ reference computes. The C++ side draws each
// task's inputs exactly as the correctness cases do (small dims, every config, the four
// distributions, the same case seeds) and writes them where Python reads them; a Python driver
// (tools/twins/check_twins.py) runs the twins in float32 and writes their outputs back; the C++
// side then judges each twin output against the float64 reference with the fp32 tolerance, by
// the same check_output a kernel's outputs go through.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace rkt {

/// Files in a twin-agreement folder:
///   cases.tsv                        one line per case: stem, task, config, distribution, seed
///   cases/<stem>.inputs.pt           the drawn, scaled inputs (torch.load reads a list of tensors)
///   cases/<stem>.twin.pt             the twin's outputs, written by the Python driver
///   cases/<stem>.twin.error          or why the twin failed to run
///   twins.tsv                        written by the driver: each task with a twin, and its module
inline constexpr const char* kTwinCasesFile = "cases.tsv";
inline constexpr const char* kTwinListFile = "twins.tsv";

/// Writes the cases of every forward task whose id contains `task_filter` into `directory`
/// (created if missing). Returns the number of cases written. Backward tasks have no twin and
/// no cases. Throws std::runtime_error when a file cannot be written.
int write_twin_cases(const std::string& directory, const std::string& task_filter);

/// Judges the twin outputs in `directory` for every task whose id contains `task_filter`: one
/// line per task on `out` (ok, FAIL with the worst element, MISSING for a forward task without a
/// twin, "no twin" for backward tasks), then "N passed, M failed". Returns the number of failed
/// tasks (a missing twin counts as a failure).
int judge_twin_outputs(const std::string& directory, const std::string& task_filter,
                       std::ostream& out);

/// `rkt twin-inputs --dir DIR [--task SUBSTRING]` and `rkt twin-check --dir DIR [--task
/// SUBSTRING]`; return the process exit code.
int run_twin_inputs_command(const std::vector<std::string>& args);
int run_twin_check_command(const std::vector<std::string>& args);

}  // namespace rkt
