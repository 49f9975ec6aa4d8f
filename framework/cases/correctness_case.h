// One correctness case: draw inputs, run the kernel, compare with the float64 reference.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "framework/cases/case_outcome.h"
#include "framework/isolation/kernel_invocation.h"
#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// What a correctness case runs on: dims, the scale applied to floating inputs, and the seed.
struct CaseInputs {
  Dims dims;
  double scale = 1;
  std::uint64_t seed = 0;
  std::string distribution;  ///< A name for messages, e.g. "x3" or "property scale".
  /// When set, floating inputs are redrawn uniformly in [first, second) before scaling.
  std::optional<std::pair<double, double>> value_range;
};

/// "distribution x3 (scale 3), dims B=37 N=300, seed 42": enough to reproduce the case.
std::string describe_case(const CaseInputs& inputs);

/// A case's inputs, drawn and on the kernel's device.
struct PreparedCase {
  /// As drawn (on the device DrawOn chose); the kernel never sees these buffers, and the
  /// reference runs on fresh copies of them.
  std::vector<at::Tensor> drawn_inputs;
  std::vector<at::Tensor> device_inputs;  ///< Copies on the kernel's device, passed to the kernel.
  std::vector<OutputSignature> signatures;
};

/// Where a case's inputs are drawn. The values are the same either way (counter_random.h); a GPU
/// draws a large input in a fraction of a millisecond where the host takes most of a second.
enum class DrawOn {
  kernel_device,  ///< the kernel's device: correctness, property, hidden and integrity cases, benchmarks
  cpu,            ///< the host: for callers that transform the drawn inputs with host-side code
                  ///< (users' properties; value families and relations transform on the device)
};

/// Draws the inputs of `inputs` for `kernel`. Throws with a message when the task cannot.
PreparedCase prepare_case(const KernelSpec& kernel, const TaskSpec& task, const CaseInputs& inputs,
                          DrawOn draw_on = DrawOn::kernel_device);

/// Prepares inputs drawn elsewhere (a user property's generator): output signatures from the
/// reference on meta tensors, copies for the kernel.
PreparedCase prepare_given_inputs(const KernelSpec& kernel, const TaskSpec& task,
                                  std::vector<at::Tensor> drawn_inputs);

/// Runs the reference on fresh copies of `drawn_inputs` (after the kernel ran) and judges
/// `outputs`. `where` prefixes every message.
CaseOutcome judge_outputs(const KernelSpec& kernel, const TaskSpec& task, const std::string& where,
                          const std::vector<at::Tensor>& drawn_inputs,
                          const std::vector<OutputSignature>& signatures,
                          const std::vector<at::Tensor>& outputs);

/// How many times this process has computed honest kernels for a derived bound (below fp32, or
/// on a bf16 / fp16 task). judge_outputs computes them only when an output is past the class's
/// floor, since a derived bound is never below it. For tests and diagnostics.
std::size_t honest_sample_derivations();

/// Forgets the references (and honest samples) this process keeps for the next case on the same
/// inputs, with those inputs: their device memory goes back once nothing else holds it (a judge
/// giving back its kept memory, framework/supervision/device_memory_retry.h).
void forget_cached_references();

/// The skipped outcome when `kernel`'s device is missing, else nullopt.
std::optional<CaseOutcome> skip_if_device_missing(const KernelSpec& kernel);

/// The details a program may read about a case on `inputs` (the seed only without a secret seed).
CaseDetails case_details(const TaskSpec& task, const CaseInputs& inputs);

/// Runs `kernel` once on `inputs` and judges every output. Never throws: a kernel exception or
/// a malformed task becomes a failed outcome naming it.
CaseOutcome run_correctness_case(const KernelSpec& kernel, const TaskSpec& task,
                                 const CaseInputs& inputs);

}  // namespace rkt
