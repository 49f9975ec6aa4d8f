// The kernel registry: ROBUST_KERNEL_TEST's registrars fill it before main(). Linked into every
// kernel library (and into the judge, for kernels registered in its own binary), so it needs no
// LibTorch and no judge code.
#include <deque>
#include <stdexcept>

#include "rkt/defaults.h"
#include "rkt/registration.h"

namespace rkt {
namespace {

// A function-local static: registrars in other translation units may run before this file's
// globals are constructed. A deque keeps references stable as entries are added.
std::deque<KernelSpec>& kernel_storage() {
  static std::deque<KernelSpec> storage;
  return storage;
}

}  // namespace

KernelSpec::KernelSpec(std::string task_id, std::string kernel_id, KernelAdapter adapter,
                       Device device, std::string file, int line)
    : task_id_(std::move(task_id)),
      kernel_id_(std::move(kernel_id)),
      function_(std::move(adapter.function)),
      device_(device),
      file_(std::move(file)),
      line_(line),
      returns_tensors_(adapter.returns_tensors) {}

KernelSpec& KernelSpec::device(Device device) {
  device_ = device;
  return *this;
}

KernelSpec& KernelSpec::precision(Precision precision) {
  precision_ = precision;
  return *this;
}

KernelSpec& KernelSpec::accumulates_in(Precision accumulation) {
  accumulation_ = accumulation;
  return *this;
}

KernelSpec& KernelSpec::describe(std::string description) {
  description_ = std::move(description);
  return *this;
}

KernelSpec& KernelSpec::waive_gate(IntegrityGate gate, std::string reason) {
  waived_gates_[gate] = std::move(reason);
  return *this;
}

KernelSpec& KernelSpec::allow_operators(std::vector<std::string> operator_names) {
  allowed_operators_.insert(allowed_operators_.end(), operator_names.begin(),
                            operator_names.end());
  return *this;
}

KernelSpec& KernelSpec::supports(const std::string& restriction) {
  try {
    return supports(parse_dim_restriction(restriction));
  } catch (const std::invalid_argument& error) {
    // Kept, not thrown: a registrar runs before main, where an exception would abort the
    // program without naming the kernel. registry_errors() reports it with the kernel's name.
    declaration_errors_.push_back(error.what());
    return *this;
  }
}

KernelSpec& KernelSpec::supports(DimRestriction restriction) {
  supported_dims_.push_back(std::move(restriction));
  return *this;
}

KernelSpec& KernelSpec::supports_multiple_of(const std::string& dim, std::int64_t step) {
  return supports(DimRestriction{dim, DimRestriction::Kind::multiple_of, step});
}

KernelSpec& KernelSpec::supports_min(const std::string& dim, std::int64_t size) {
  return supports(DimRestriction{dim, DimRestriction::Kind::at_least, size});
}

KernelSpec& KernelSpec::supports_max(const std::string& dim, std::int64_t size) {
  return supports(DimRestriction{dim, DimRestriction::Kind::at_most, size});
}

KernelSpec& KernelSpec::requires_alignment(std::int64_t bytes) {
  if (bytes < 1 || bytes > defaults::kMaxDeclaredAlignmentBytes || (bytes & (bytes - 1)) != 0) {
    declaration_errors_.push_back("requires_alignment(" + std::to_string(bytes) +
                                  "): the alignment must be a power of two from 1 to " +
                                  std::to_string(defaults::kMaxDeclaredAlignmentBytes) + " bytes");
    return *this;
  }
  alignment_bytes_ = bytes;
  return *this;
}

const char* to_string(IntegrityGate gate) {
  switch (gate) {
    case IntegrityGate::recycled_output: return "recycled_output";
    case IntegrityGate::input_mutation: return "input_mutation";
    case IntegrityGate::replay: return "replay";
    case IntegrityGate::borrowed_computation: return "borrowed_computation";
    case IntegrityGate::escaped_work: return "escaped_work";
    case IntegrityGate::determinism: return "determinism";
    case IntegrityGate::out_of_bounds: return "out_of_bounds";
    case IntegrityGate::misaligned_pointers: return "misaligned_pointers";
  }
  return "?";
}

const std::vector<IntegrityGate>& all_integrity_gates() {
  static const std::vector<IntegrityGate> gates = {
      IntegrityGate::recycled_output, IntegrityGate::input_mutation,
      IntegrityGate::replay,          IntegrityGate::borrowed_computation,
      IntegrityGate::escaped_work,    IntegrityGate::determinism,
      IntegrityGate::out_of_bounds,   IntegrityGate::misaligned_pointers};
  return gates;
}

KernelSpec& register_kernel(const std::string& task_id, const std::string& kernel_id,
                            KernelAdapter adapter, Device default_device, const char* file,
                            int line) {
  return kernel_storage().emplace_back(task_id, kernel_id, std::move(adapter), default_device,
                                       file, line);
}

std::vector<KernelSpec*> registered_kernels() {
  std::vector<KernelSpec*> kernels;
  for (KernelSpec& kernel : kernel_storage()) kernels.push_back(&kernel);
  return kernels;
}

KernelSpec& adopt_kernel(const KernelSpec& kernel) { return kernel_storage().emplace_back(kernel); }

}  // namespace rkt
