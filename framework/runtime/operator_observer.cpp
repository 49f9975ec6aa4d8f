#include "framework/runtime/operator_observer.h"

#include <ATen/record_function.h>

#include <algorithm>
#include <mutex>
#include <set>

namespace rkt {
namespace {

std::mutex observed_mutex;
std::map<std::string, int> observed_operators;

// Only operators the kernel calls itself count, not the ones they call in turn (aten::mean
// calls aten::sum): a kernel declares what it calls.
thread_local int operator_depth = 0;

std::unique_ptr<at::ObserverContext> on_operator_start(const at::RecordFunction& function) {
  if (operator_depth++ == 0) {
    std::lock_guard<std::mutex> lock(observed_mutex);
    ++observed_operators[function.name()];
  }
  return nullptr;
}

void on_operator_end(const at::RecordFunction&, at::ObserverContext*) { --operator_depth; }

}  // namespace

OperatorObserver::OperatorObserver() {
  {
    std::lock_guard<std::mutex> lock(observed_mutex);
    observed_operators.clear();
  }
  // Global, not thread-local: a kernel could call operators from a thread of its own.
  handle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(on_operator_start, on_operator_end)
          .scopes({at::RecordScope::FUNCTION}));
}

OperatorObserver::~OperatorObserver() { at::removeCallback(handle_); }

std::map<std::string, int> OperatorObserver::operators() const {
  std::lock_guard<std::mutex> lock(observed_mutex);
  return observed_operators;
}

bool is_bookkeeping_operator(const std::string& name) {
  static const std::set<std::string> bookkeeping = {
      // allocation
      "aten::empty", "aten::empty_like", "aten::empty_strided", "aten::empty_permuted",
      "aten::new_empty", "aten::new_empty_strided", "aten::zeros", "aten::zeros_like",
      "aten::new_zeros", "aten::full", "aten::full_like", "aten::ones", "aten::ones_like",
      "aten::resize_", "aten::set_", "aten::record_stream",
      // fills and copies
      "aten::zero_", "aten::fill_", "aten::copy_", "aten::to", "aten::_to_copy", "aten::clone",
      "aten::contiguous", "aten::detach", "aten::lift_fresh", "aten::item",
      "aten::_local_scalar_dense",
      // views
      "aten::view", "aten::reshape", "aten::_reshape_alias", "aten::as_strided", "aten::alias",
      "aten::select", "aten::slice", "aten::narrow", "aten::permute", "aten::transpose",
      "aten::t", "aten::expand", "aten::unsqueeze", "aten::squeeze", "aten::flatten",
      "aten::unflatten", "aten::unbind", "aten::split", "aten::chunk", "aten::view_as",
      "aten::expand_as", "aten::reshape_as", "aten::result_type", "aten::is_nonzero"};
  return bookkeeping.count(name) > 0;
}

std::vector<std::string> undeclared_compute_operators(const std::map<std::string, int>& observed,
                                                      const std::vector<std::string>& allowed) {
  std::vector<std::string> undeclared;
  for (const auto& [name, count] : observed) {
    if (is_bookkeeping_operator(name)) continue;
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    undeclared.push_back(name + " (x" + std::to_string(count) + ")");
  }
  return undeclared;
}

}  // namespace rkt
