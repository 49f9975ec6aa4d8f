#include "framework/runs/run_sharding.h"

#include <algorithm>
#include <stdexcept>

#include "framework/cases/case_selection.h"
#include "rkt/registration.h"

namespace rkt {
namespace {

// A whole non-negative decimal number, or -1.
long whole_number(const std::string& text) {
  if (text.empty() || text.size() > 6 ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    return -1;
  }
  return std::stol(text);
}

}  // namespace

ShardSpec parse_shard(const std::string& text) {
  const std::string form = "--shard takes I/N (shard I of N, 1 <= I <= N, e.g. 2/4), not '" +
                           text + "'";
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) throw std::invalid_argument(form + ": no '/'");
  const long index = whole_number(text.substr(0, slash));
  const long count = whole_number(text.substr(slash + 1));
  if (index < 0 || count < 0) throw std::invalid_argument(form + ": I and N must be whole numbers");
  if (count == 0) throw std::invalid_argument(form + ": N must be at least 1");
  if (index == 0) throw std::invalid_argument(form + ": shards count from 1");
  if (index > count) throw std::invalid_argument(form + ": I is larger than N");
  return {static_cast<int>(index), static_cast<int>(count)};
}

std::vector<const KernelSpec*> selected_kernels(const std::vector<std::string>& kernel_fragments) {
  std::vector<const KernelSpec*> kernels;
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel_selected(kernel->full_id(), kernel_fragments)) kernels.push_back(kernel);
  }
  std::sort(kernels.begin(), kernels.end(), [](const KernelSpec* a, const KernelSpec* b) {
    return a->full_id() < b->full_id();
  });
  return kernels;
}

}  // namespace rkt
