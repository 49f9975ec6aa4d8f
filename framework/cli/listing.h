// `rkt list`: the registered tasks, kernels and the cases each kernel expands into.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "framework/cases/task_filter.h"

namespace rkt {

void print_listing_text(std::ostream& out);
/// {"tasks":[{"id",...}], "kernels":[{"id","task","device","precision","cases":[...]}]}
void print_listing_json(std::ostream& out);
/// A CMake script of add_test() calls: one ctest test per kernel and label group, each running
/// `executable test --junit DIR/<file>.xml --filter ...` under supervision, labelled with the
/// group and the device. Each test writes its cases' JUnit report into `junit_directory`, named
/// junit_file_name(test name).
void print_ctest_script(std::ostream& out, const std::string& executable,
                        const std::string& junit_directory);

/// A ctest test's JUnit file: its name with every character other than letters, digits, '_',
/// '-' and '.' turned into '.', and ".xml" ("softmax/cpu_loops:correctness" gives
/// "softmax.cpu_loops.correctness.xml"). cmake/RktKernelTestsScript.cmake turns a test prefix
/// into file names the same way.
std::string junit_file_name(const std::string& test_name);

/// docs/tasks.md: every task's id, description, inputs, sizes, bytes and flops, and the filter's
/// verdict. Deterministic, so the checked-in copy can be compared with a fresh one.
void print_task_catalog(std::ostream& out, const std::vector<TaskVerdict>& verdicts);

}  // namespace rkt
