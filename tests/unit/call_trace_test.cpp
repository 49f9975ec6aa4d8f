// Where a kernel call's time goes (framework/isolation/call_trace.h, RKT_CALL_TRACE): a line per
// call in a worker, whose parts add up, and nothing written when the variable is unset.
#include "framework/isolation/call_trace.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "framework/inputs/input_generation.h"
#include "framework/isolation/kernel_invocation.h"
#include "framework/isolation/kernel_library.h"
#include "rkt/registration.h"

namespace rkt {
namespace {

std::vector<std::vector<std::string>> read_rows(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) fields.push_back(cell);
    rows.push_back(fields);
  }
  return rows;
}

// In a child process (the library's kernels join the registry there only). Exit code 0: as
// expected; otherwise which check failed.
int trace_two_calls_then_none(const std::string& path) {
  if (!load_kernel_library({RKT_ADVERSARIES_LIBRARY, RKT_WORKER_EXECUTABLE}).empty()) return 2;
  const KernelSpec* honest = nullptr;
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->full_id() == "relu/honest_loop") honest = kernel;
  }
  const TaskSpec* relu = find_task("relu");
  if (honest == nullptr || relu == nullptr) return 3;
  const std::vector<at::Tensor> inputs = generate_inputs(*relu, {{"B", 3}, {"N", 41}}, 7);
  const std::vector<OutputSignature> signatures =
      infer_output_signatures(*relu, inputs, Device::cpu);
  ::setenv(kCallTraceVariable, path.c_str(), 1);
  invoke_kernel(*honest, inputs, signatures);
  invoke_kernel(*honest, inputs, signatures);
  ::unsetenv(kCallTraceVariable);
  invoke_kernel(*honest, inputs, signatures);
  const auto rows = read_rows(path);
  if (rows.size() != 3) return 4;  // a header and two calls; the third call untraced
  const std::vector<std::string>& header = rows[0];
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return i;
    }
    return header.size();
  };
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const std::vector<std::string>& row = rows[r];
    if (row.size() != header.size()) return 5;
    if (row[column("task")] != "relu" || row[column("kernel")] != "honest_loop") return 6;
    if (std::stoll(row[column("bytes")]) != 2 * 3 * 41 * 4) return 7;  // input and output, fp32
    const double asking = std::stod(row[column("asking_ms")]);
    const double worker = std::stod(row[column("worker_ms")]);
    const double stream = std::stod(row[column("stream_ms")]);
    const double mapping = std::stod(row[column("mapping_ms")]);
    if (!(stream >= 0 && mapping >= 0 && stream + mapping <= worker + 1e-3)) return 8;
    if (!(worker <= asking + 1e-3)) return 9;  // the worker's time is inside the round trip
    if (!(std::stod(row[column("preparing_ms")]) >= 0 &&
          std::stod(row[column("checking_ms")]) >= 0))
      return 10;
  }
  return 0;
}

TEST(CallTrace, ALinePerCallWhoseWorkerTimeLiesInsideItsRoundTripAndNoneWhenUnset) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("rkt_call_trace_" + std::to_string(::getpid()) + ".tsv"))
                               .string();
  std::filesystem::remove(path);
  EXPECT_EXIT(std::exit(trace_two_calls_then_none(path)), ::testing::ExitedWithCode(0), "");
  std::filesystem::remove(path);
}

TEST(CallTrace, OffWhenTheVariableIsUnsetOrEmpty) {
  ::unsetenv(kCallTraceVariable);
  EXPECT_FALSE(call_trace_enabled());
  ::setenv(kCallTraceVariable, "", 1);
  EXPECT_FALSE(call_trace_enabled());
  ::unsetenv(kCallTraceVariable);
}

}  // namespace
}  // namespace rkt
