#include "framework/cases/case_selection.h"

#include <sstream>

#include "framework/cases/case_catalog.h"
#include "rkt/registration.h"

namespace rkt {
namespace {

// '*' and '?' glob matching, iterative with one backtrack point (linear for gtest-style patterns).
bool glob_matches(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, t = 0, star = std::string::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool matches_any(const std::string& patterns, const std::string& name) {
  std::stringstream stream(patterns);
  for (std::string pattern; std::getline(stream, pattern, ':');) {
    if (glob_matches(pattern, name)) return true;
  }
  return false;
}

}  // namespace

bool matches_gtest_filter(const std::string& name, const std::string& filter) {
  const std::size_t dash = filter.find('-');
  std::string positive = filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return matches_any(positive, name) && !(negative.size() && matches_any(negative, name));
}

bool is_registered_kernel_id(const std::string& fragment) {
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->full_id() == fragment) return true;
  }
  return false;
}

bool kernel_selected(const std::string& id, const std::vector<std::string>& kernel_fragments) {
  if (kernel_fragments.empty()) return true;
  for (const std::string& fragment : kernel_fragments) {
    if (id == fragment) return true;
    // A kernel's whole id names that kernel alone: "relu/cpu_loops" is not also
    // "rkb_mnist_linear_relu/cpu_loops".
    if (is_registered_kernel_id(fragment)) continue;
    if (id.find(fragment) != std::string::npos) return true;
  }
  return false;
}

std::string kernel_selection_text(const std::vector<std::string>& kernel_fragments) {
  std::string text;
  for (const std::string& fragment : kernel_fragments) text += (text.empty() ? "" : ", ") + fragment;
  return text;
}

void for_each_selected_case(const std::vector<std::string>& kernel_fragments, const std::string& filter,
                            const std::function<bool(const KernelSpec&, const std::string&)>& visit) {
  for (const KernelSpec* kernel : registered_kernels()) {
    if (!kernel_selected(kernel->full_id(), kernel_fragments)) continue;
    const TaskSpec* task = find_task(kernel->task_id());
    if (task == nullptr) continue;
    for (const KernelCase& kernel_case : cases_of(*kernel, *task)) {
      const std::string name = kernel_case.suite + "." + kernel_case.name;
      if (!filter.empty() && !matches_gtest_filter(name, filter)) continue;
      if (!visit(*kernel, name)) return;
    }
  }
}

std::vector<std::string> selected_case_names(const std::vector<std::string>& kernel_fragments,
                                             const std::string& filter) {
  std::vector<std::string> names;
  for_each_selected_case(kernel_fragments, filter, [&](const KernelSpec&, const std::string& name) {
    names.push_back(name);
    return true;
  });
  return names;
}

std::string case_selection_filter(const std::vector<std::string>& kernel_fragments,
                                  const std::string& filter) {
  if (kernel_fragments.empty()) return filter.empty() ? "*" : filter;
  std::string joined;
  if (filter.empty()) {
    for (const std::string& fragment : kernel_fragments) {
      joined += (joined.empty() ? "" : ":") +
                (is_registered_kernel_id(fragment) ? fragment + ".*" : "*" + fragment + "*.*");
    }
    return joined;
  }
  for (const std::string& name : selected_case_names(kernel_fragments, filter)) {
    joined += (joined.empty() ? "" : ":") + name;
  }
  return joined;
}

}  // namespace rkt
