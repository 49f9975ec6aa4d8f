// Which cases `rkt test` runs: kernels chosen by --kernel and cases chosen by --filter, both applied.
// --kernel may be given more than once: the kernels any of its fragments selects (the union).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace rkt {

class KernelSpec;

/// True when `name` ("task/kernel.case") matches the gtest filter `filter`: positive patterns
/// separated by ':', then optionally '-' and negative patterns; '*' matches any run of characters,
/// '?' one character. An empty positive part means '*', as in gtest.
bool matches_gtest_filter(const std::string& name, const std::string& filter);

/// True when `fragment` is the whole id ("task/kernel") of a registered kernel.
bool is_registered_kernel_id(const std::string& fragment);

/// True when the kernel id `id` ("task/kernel") is selected by one of `kernel_fragments` (every id
/// when there are none): the --kernel options, repeated ones selecting the union. A fragment that
/// is a registered kernel's whole id selects that kernel alone; any other selects every id that
/// contains it ("relu", "cuda", "softmax/cpu").
bool kernel_selected(const std::string& id, const std::vector<std::string>& kernel_fragments);

/// The --kernel fragments as messages and results.json show them: "a, b" ("" when none).
std::string kernel_selection_text(const std::vector<std::string>& kernel_fragments);

/// Calls `visit` with each registered case of the kernels `kernel_fragments` selects (every
/// kernel when empty) that also matches `filter` (every case when empty), in catalog order: its
/// kernel and its full name ("task/kernel.case"). `visit` returns false to stop the walk.
void for_each_selected_case(const std::vector<std::string>& kernel_fragments, const std::string& filter,
                            const std::function<bool(const KernelSpec&, const std::string&)>& visit);

/// The names of every registered case of the kernels `kernel_fragments` selects that also match
/// `filter` (every case when empty), in catalog order.
std::vector<std::string> selected_case_names(const std::vector<std::string>& kernel_fragments,
                                             const std::string& filter);

/// The gtest filter for `rkt test --kernel K... --filter F`: "*" when neither is given, F alone,
/// the kernel patterns alone, or, when both are, the explicit list of the cases they both select
/// ("" when none: the caller reports it).
std::string case_selection_filter(const std::vector<std::string>& kernel_fragments,
                                  const std::string& filter);

}  // namespace rkt
