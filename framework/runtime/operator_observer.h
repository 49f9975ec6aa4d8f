// Which ATen operators a kernel dispatches while it runs (RecordFunction callbacks).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rkt {

/// While alive, records every ATen operator called on any thread, by name and count: the
/// outermost ones only (those the kernel called itself, not those they dispatch internally).
/// Only one observer may be alive at a time.
class OperatorObserver {
 public:
  OperatorObserver();
  ~OperatorObserver();
  OperatorObserver(const OperatorObserver&) = delete;
  OperatorObserver& operator=(const OperatorObserver&) = delete;

  /// Operator name -> times called.
  std::map<std::string, int> operators() const;

 private:
  std::uint64_t handle_ = 0;
};

/// True for operators that only allocate, view, fill or copy: what a kernel may use without
/// declaring it (e.g. aten::empty, aten::view, aten::copy_).
bool is_bookkeeping_operator(const std::string& name);

/// The operators in `observed` that are neither bookkeeping nor in `allowed`.
std::vector<std::string> undeclared_compute_operators(const std::map<std::string, int>& observed,
                                                      const std::vector<std::string>& allowed);

}  // namespace rkt
