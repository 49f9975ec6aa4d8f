// Which cases `rkt test` runs: kernels chosen by --kernel and cases chosen by --filter, both applied.
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// True when `name` ("task/kernel.case") matches the gtest filter `filter`: positive patterns
/// separated by ':', then optionally '-' and negative patterns; '*' matches any run of characters,
/// '?' one character. An empty positive part means '*', as in gtest.
bool matches_gtest_filter(const std::string& name, const std::string& filter);

/// The names of every registered case of kernels whose "task/kernel" id contains `kernel_fragment`
/// (every kernel when empty) that also match `filter` (every case when empty), in catalog order.
std::vector<std::string> selected_case_names(const std::string& kernel_fragment,
                                             const std::string& filter);

/// The gtest filter for `rkt test --kernel K --filter F`: "*" when neither is given, F alone, the
/// kernel pattern alone, or, when both are, the explicit list of the cases they both select
/// ("" when none: the caller reports it).
std::string case_selection_filter(const std::string& kernel_fragment, const std::string& filter);

}  // namespace rkt
