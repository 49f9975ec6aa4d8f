// ROBUST_KERNEL_TEST: registers a kernel against a task. Needs no LibTorch, so `.cu` files can use it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rkt/kernel_call.h"
#include "rkt/precision.h"
#include "rkt/tensor_view.h"

namespace rkt {

/// The one callable form the framework stores. Tensor-form kernels are adapted to it by
/// rkt/torch_kernel.h.
using KernelFunction = std::function<void(KernelCall&)>;

/// The integrity gates every kernel is put through (docs/threat_model.md says what each catches).
enum class IntegrityGate {
  recycled_output,       ///< Outputs never written, or filled from the reference's freed memory.
  input_mutation,        ///< Inputs changed by the kernel.
  replay,                ///< Results cached by pointer, shape or call count.
  borrowed_computation,  ///< ATen compute operators called instead of the kernel's own work.
  escaped_work,          ///< Work left running after the kernel returned, or off its stream.
  determinism,           ///< Different results for the same inputs (races).
  out_of_bounds,         ///< Writes outside a buffer (redzones) or, on the CPU, reads past an input's end.
  misaligned_pointers,   ///< Buffers offset by an element from any larger alignment (or the declared one).
};

const char* to_string(IntegrityGate gate);
/// Every gate, in the order the cases run.
const std::vector<IntegrityGate>& all_integrity_gates();

/// One restriction on the dims a kernel supports, as the kernel declares it. Data only (a dim name,
/// a kind, a number): it travels from the worker to the judge in the kernel's description and is
/// never code, so an untrusted kernel library can declare it (docs/threat_model.md).
struct DimRestriction {
  enum class Kind : std::uint32_t {
    multiple_of = 0,  ///< dim % value == 0
    at_least = 1,     ///< dim >= value
    at_most = 2,      ///< dim <= value
  };
  std::string dim;
  Kind kind = Kind::multiple_of;
  std::int64_t value = 1;

  /// "N % 4 == 0", "N >= 16" or "N <= 8192": the form reports show and supports() reads.
  std::string describe() const;
  /// Whether `size` (the dim's size) satisfies the restriction.
  bool admits(std::int64_t size) const;
  bool operator==(const DimRestriction& other) const {
    return dim == other.dim && kind == other.kind && value == other.value;
  }
};

/// Reads "N % 4 == 0", "N >= 16" or "N <= 8192" (spaces optional). Throws std::invalid_argument
/// naming what it expected.
DimRestriction parse_dim_restriction(const std::string& text);

/// A kernel callable as the registry receives it from `to_kernel_function`.
struct KernelAdapter {
  KernelFunction function;
  bool returns_tensors = false;  ///< True for tensor-form kernels: they return their outputs.
};

/// A registered kernel and its options. Returned by ROBUST_KERNEL_TEST for fluent configuration:
///   ROBUST_KERNEL_TEST(softmax, cuda_online, softmax_online).precision(rkt::Precision::tf32);
class KernelSpec {
 public:
  KernelSpec(std::string task_id, std::string kernel_id, KernelAdapter adapter, Device device,
             std::string file, int line);

  /// Where the kernel runs. Defaults to CUDA in `.cu` files and to the CPU elsewhere.
  KernelSpec& device(Device device);
  /// The precision the kernel claims; picks its tolerance. Default: fp32 (strict).
  KernelSpec& precision(Precision precision);
  /// The precision the kernel's sums (dot products, row sums, running softmax statistics) are
  /// kept in. Default: fp32. A kernel that accumulates in bf16 or fp16 must declare it: its bound
  /// then grows with the task's reduction length, and every report shows the declared class; an
  /// undeclared low-precision accumulator fails the fp32 accumulation bound.
  KernelSpec& accumulates_in(Precision accumulation);
  /// One line shown in listings and reports.
  KernelSpec& describe(std::string description);
  /// Turns one integrity gate off for this kernel. The reason is mandatory and every report shows
  /// it (the gate's case is reported as skipped with it).
  KernelSpec& waive_gate(IntegrityGate gate, std::string reason);
  /// ATen compute operators the kernel may call (e.g. "aten::mm"), for kernels that build on
  /// LibTorch on purpose. Allocation, view and copy operators never need declaring.
  KernelSpec& allow_operators(std::vector<std::string> operator_names);
  /// Declares the dims the kernel supports: "N % 4 == 0", "N >= 16" or "N <= 8192" (one
  /// restriction per call; call again for more). Property tests then draw only inside them, the
  /// task's test and benchmark dims must satisfy them (a registration error otherwise), and every
  /// report shows them. A restriction the kernel does not declare stays a failure.
  KernelSpec& supports(const std::string& restriction);
  KernelSpec& supports(DimRestriction restriction);
  /// supports("<dim> % <step> == 0"), supports("<dim> >= <size>"), supports("<dim> <= <size>").
  KernelSpec& supports_multiple_of(const std::string& dim, std::int64_t step);
  KernelSpec& supports_min(const std::string& dim, std::int64_t size);
  KernelSpec& supports_max(const std::string& dim, std::int64_t size);
  /// Declares that the kernel needs every buffer's first element aligned to `bytes` (a power of
  /// two up to kMaxDeclaredAlignmentBytes, e.g. 16 for float4 loads). Its misaligned-pointer case
  /// then offsets buffers by exactly `bytes` from any larger alignment, and every report shows
  /// the requirement. Undeclared, buffers are offset by one element.
  KernelSpec& requires_alignment(std::int64_t bytes);

  const std::string& task_id() const { return task_id_; }
  const std::string& kernel_id() const { return kernel_id_; }
  /// "task/kernel": unique across the registry and used in test names.
  std::string full_id() const { return task_id_ + "/" + kernel_id_; }
  const KernelFunction& function() const { return function_; }
  Device device() const { return device_; }
  Precision precision() const { return precision_; }
  /// The declared accumulation precision (fp32 unless accumulates_in() said otherwise).
  Precision accumulation() const { return accumulation_; }
  const std::string& description() const { return description_; }
  const std::map<IntegrityGate, std::string>& waived_gates() const { return waived_gates_; }
  const std::vector<std::string>& allowed_operators() const { return allowed_operators_; }
  /// The dim restrictions the kernel declared (empty: every dim of the task's domains).
  const std::vector<DimRestriction>& supported_dims() const { return supported_dims_; }
  /// The alignment the kernel declared for its buffers, in bytes (0: none declared).
  std::int64_t alignment_bytes() const { return alignment_bytes_; }
  /// Declarations that could not be read (an unparsable supports() text), reported at start.
  const std::vector<std::string>& declaration_errors() const { return declaration_errors_; }
  /// Adds a declaration error (the judge re-registers those a worker described).
  void add_declaration_error(std::string error) { declaration_errors_.push_back(std::move(error)); }
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  /// True when the kernel returns LibTorch tensors instead of writing preallocated outputs.
  bool returns_tensors() const { return returns_tensors_; }

 private:
  std::string task_id_;
  std::string kernel_id_;
  KernelFunction function_;
  Device device_;
  Precision precision_ = Precision::fp32;
  Precision accumulation_ = Precision::fp32;
  std::string description_;
  std::map<IntegrityGate, std::string> waived_gates_;
  std::vector<std::string> allowed_operators_;
  std::vector<DimRestriction> supported_dims_;
  std::int64_t alignment_bytes_ = 0;
  std::vector<std::string> declaration_errors_;
  std::string file_;
  int line_ = 0;
  bool returns_tensors_ = false;
};

/// Adds a kernel to the global registry. The task id is checked when the registry is validated
/// (at program start), so kernels may be registered before their task.
KernelSpec& register_kernel(const std::string& task_id, const std::string& kernel_id,
                            KernelAdapter adapter, Device default_device, const char* file,
                            int line);

/// Every registered kernel, in registration order.
std::vector<KernelSpec*> registered_kernels();

/// View-form kernels: `void kernel(rkt::KernelCall& call)`.
inline KernelAdapter to_kernel_function(void (*function)(KernelCall&)) { return {function, false}; }

}  // namespace rkt

#define RKT_CONCAT_INNER(a, b) a##b
#define RKT_CONCAT(a, b) RKT_CONCAT_INNER(a, b)

#if defined(__CUDACC__)
#define RKT_DEFAULT_KERNEL_DEVICE ::rkt::Device::cuda
#else
#define RKT_DEFAULT_KERNEL_DEVICE ::rkt::Device::cpu
#endif

/// Registers `function` as kernel `kernel_id` of task `task_id`. The function is either
/// `void f(rkt::KernelCall&)` (writes preallocated outputs) or, with rkt/torch_kernel.h included,
/// `at::Tensor f(const at::Tensor&...)` taking the task's inputs in order and returning its outputs.
#define ROBUST_KERNEL_TEST(task_id, kernel_id, function)                                  \
  [[maybe_unused]] static ::rkt::KernelSpec& RKT_CONCAT(rkt_kernel_registration_,         \
                                                        __COUNTER__) =                    \
      ::rkt::register_kernel(#task_id, #kernel_id, ::rkt::to_kernel_function(function),   \
                             RKT_DEFAULT_KERNEL_DEVICE, __FILE__, __LINE__)
