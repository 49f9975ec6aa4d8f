// The bf16 and fp16 tasks: the kernels people ship today (a GEMM with a fused bias + GELU epilogue,
// softmax, two normalisations, a cross-entropy over a large vocabulary, elementwise activations),
// each declared once per 16-bit storage format (tasks/low_precision_formats.h). Attention is in
// attention_tasks.cpp.
//
// Inputs are drawn, then stored in the task's format (every value exactly representable: the
// float64 reference computes from the very values the kernel reads). The references are written
// in the inputs' dtype, so the judge runs them in float64 and the eager baseline in bf16 or fp16
// (PyTorch's own kernels, which keep their sums in float32). A kernel accumulates in fp32 unless
// it declares otherwise (KernelSpec::accumulates_in); its bound is derived from the storage
// format, the declared accumulator and the task's reduction length (`.reduction`,
// framework/comparison/derived_tolerance.h). No task needs an absolute bound: every bound is in
// units of the output's RMS, which covers the outputs near zero (GELU and SiLU of negative
// inputs, a cross-entropy whose target dominates its row).
#include <ATen/ATen.h>

#include <cmath>

#include "rkt/task.h"
#include "rkt/value_families.h"
#include "tasks/low_precision_formats.h"

namespace {

using rkt::Dims;
using rkt::TaskSpec;
using rkt::low_precision::kStorageBytes;
using rkt::low_precision::kStorageFormats;
using rkt::low_precision::StorageFormat;
using rkt::low_precision::task_id;
using Family = rkt::ValueFamily;
namespace values = rkt::values;

double d(const Dims& dims, const char* name) { return static_cast<double>(dims.at(name)); }
constexpr double kFloatBytes = 4;  // [bytes per float32 element] (the cross-entropy's loss)
constexpr double kIndexBytes = 8;  // [bytes per int64 target]

// Softmax and cross-entropy logits: N(0, 4). Scaled x3 (std 12) a row's largest logit lies near
// 50, past the exponent range of fp16 (e^11.1 = 65504) and of bf16 and float32 once two such
// exponentials are summed carelessly, so a kernel that exponentiates before subtracting the
// row's max overflows; x0.01 (std 0.04) makes the rows nearly flat, where the sum's rounding,
// not its largest term, decides the result.
constexpr double kLogitStd = 4;

TaskSpec& declare(const std::string& stem, const StorageFormat& format, int line) {
  return rkt::register_task(task_id(stem, format), __FILE__, line);
}

void declare_matmul_bias_gelu(const StorageFormat& f) {
  // b and bias as PyTorch initialises a Linear layer (U[-1/sqrt(K), 1/sqrt(K)]): the
  // pre-activation has an RMS near 0.6 at every K, in GELU's curved region; x3 reaches its
  // linear and flat tails, x0.01 keeps fp16's products and outputs near its subnormal range.
  declare("matmul_bias_gelu", f, __LINE__)
      .describe("y = gelu(a @ b + bias), erf GELU, " + std::string(f.suffix) + " in and out")
      .input("a", {"M", "K"}, values::normal(), f.dtype)
      .input("b", {"K", "N"}, values::fan_in_uniform("K"), f.dtype)
      .weight("bias", {"N"}, values::fan_in_uniform("K"), f.dtype)
      .outputs({"y"})
      .default_dims({{"M", 4096}, {"K", 4096}, {"N", 4096}})
      .small_dims({{"M", 64}, {"K", 512}, {"N", 48}})
      .domain("M", 1, 16384)
      .domain("K", 1, 16384)
      .domain("N", 1, 16384)
      .reduction({"K"})
      .reference([](const std::vector<at::Tensor>& in) {
        return std::vector{at::gelu(at::addmm(in[2], in[0], in[1]))};
      })
      .bytes([](const Dims& s) {
        return (d(s, "M") * d(s, "K") + d(s, "K") * d(s, "N") + d(s, "N") + d(s, "M") * d(s, "N")) *
               kStorageBytes;
      })
      .flops([](const Dims& s) { return 2 * d(s, "M") * d(s, "N") * d(s, "K"); });
}

void declare_softmax(const StorageFormat& f) {
  declare("softmax", f, __LINE__)
      .describe("y = softmax(x) over the last dim, " + std::string(f.suffix) + " in and out")
      .input("x", {"B", "N"}, values::normal(0, kLogitStd), f.dtype)
      .outputs({"y"})
      .default_dims({{"B", 4096}, {"N", 8192}})
      .small_dims({{"B", 37}, {"N", 300}})
      .domain("B", 1, 16384)
      .domain("N", 1, 32768)
      .reduction({"N"})
      .reference([](const std::vector<at::Tensor>& in) { return std::vector{at::softmax(in[0], -1)}; })
      .bytes([](const Dims& s) { return 2 * d(s, "B") * d(s, "N") * kStorageBytes; })
      .flops([](const Dims& s) { return 5 * d(s, "B") * d(s, "N"); })
      .output_scale([](const Dims& s) { return 1 / d(s, "N"); });  // Each row sums to 1.
  rkt::register_value_families(task_id("softmax", f), {Family::offset, Family::ties}, __FILE__,
                               __LINE__);
}

void declare_layernorm(const StorageFormat& f) {
  declare("layernorm", f, __LINE__)
      .describe("y = (x - mean) / sqrt(var + 1e-5) * weight + bias over the last dim (biased var), " +
                std::string(f.suffix) + " in and out")
      .input("x", {"B", "N"}, values::normal(), f.dtype)
      .weight("weight", {"N"}, values::normal(1, 0.1), f.dtype)
      .weight("bias", {"N"}, values::normal(0, 0.1), f.dtype)
      .outputs({"y"})
      .default_dims({{"B", 4096}, {"N", 8192}})
      .small_dims({{"B", 37}, {"N", 300}})
      .domain("B", 1, 16384)
      .domain("N", 1, 32768)
      .reduction({"N"})
      .reference([](const std::vector<at::Tensor>& in) {
        return std::vector{at::layer_norm(in[0], {in[0].size(-1)}, in[1], in[2], 1e-5)};
      })
      .bytes([](const Dims& s) { return (2 * d(s, "B") * d(s, "N") + 2 * d(s, "N")) * kStorageBytes; })
      .flops([](const Dims& s) { return 8 * d(s, "B") * d(s, "N"); });
  // Offset: rows far from zero next to their spread, where E[x^2] - E[x]^2 cancels.
  rkt::register_value_families(task_id("layernorm", f), {Family::offset, Family::ties}, __FILE__,
                               __LINE__);
}

void declare_rmsnorm(const StorageFormat& f) {
  declare("rmsnorm", f, __LINE__)
      .describe("y = x / sqrt(mean(x^2) + 1e-6) * weight over the last dim, " +
                std::string(f.suffix) + " in and out")
      .input("x", {"B", "N"}, values::normal(), f.dtype)
      .weight("weight", {"N"}, values::normal(1, 0.1), f.dtype)
      .outputs({"y"})
      .default_dims({{"B", 4096}, {"N", 8192}})
      .small_dims({{"B", 37}, {"N", 300}})
      .domain("B", 1, 16384)
      .domain("N", 1, 32768)
      .reduction({"N"})
      .reference([](const std::vector<at::Tensor>& in) {
        return std::vector{at::rms_norm(in[0], {in[0].size(-1)}, in[1], 1e-6)};
      })
      .bytes([](const Dims& s) { return (2 * d(s, "B") * d(s, "N") + d(s, "N")) * kStorageBytes; })
      .flops([](const Dims& s) { return 4 * d(s, "B") * d(s, "N"); });
  rkt::register_value_families(task_id("rmsnorm", f), {Family::offset, Family::signed_zeros_denormals},
                               __FILE__, __LINE__);
}

void declare_cross_entropy(const StorageFormat& f) {
  // A vocabulary of 32768 even at the CI size: the sum over a long row is what low-precision
  // accumulation gets wrong. The loss is float32 (one number per row: nothing to save by storing
  // it in 16 bits, and a training loop's loss is float32).
  declare("cross_entropy", f, __LINE__)
      .describe("loss[b] = logsumexp(logits[b]) - logits[b, target[b]], logits " +
                std::string(f.suffix) + ", loss float32")
      .input("logits", {"B", "V"}, values::normal(0, kLogitStd), f.dtype)
      .input("target", {"B"}, values::class_index("V"))
      .outputs({"loss"})
      .default_dims({{"B", 4096}, {"V", 65536}})
      .small_dims({{"B", 8}, {"V", 32768}})
      .domain("B", 1, 16384)
      .domain("V", 32768, 262144)
      .reduction({"V"})
      .reference([](const std::vector<at::Tensor>& in) {
        const at::Tensor& logits = in[0];
        const at::Tensor loss =
            at::logsumexp(logits, {1}) - logits.gather(1, in[1].unsqueeze(1)).squeeze(1);
        // float64 when the judge runs it in float64; float32 from bf16 or fp16 logits.
        return std::vector{logits.scalar_type() == at::kDouble ? loss : loss.to(at::kFloat)};
      })
      .bytes([](const Dims& s) {
        return d(s, "B") * d(s, "V") * kStorageBytes + d(s, "B") * (kIndexBytes + kFloatBytes);
      })
      .flops([](const Dims& s) { return 4 * d(s, "B") * d(s, "V"); });
  rkt::register_value_families(task_id("cross_entropy", f), {Family::offset, Family::ties}, __FILE__,
                               __LINE__);
}

void declare_activation(const std::string& stem, const std::string& formula, const StorageFormat& f,
                        at::Tensor (*activation)(const at::Tensor&)) {
  declare(stem, f, __LINE__)
      .describe("y = " + formula + " elementwise, " + std::string(f.suffix) + " in and out")
      .input("x", {"B", "N"}, values::normal(), f.dtype)
      .outputs({"y"})
      .default_dims({{"B", 8192}, {"N", 8192}})
      .small_dims({{"B", 37}, {"N", 300}})
      .domain("B", 1, 16384)
      .domain("N", 1, 16384)
      .reference([activation](const std::vector<at::Tensor>& in) { return std::vector{activation(in[0])}; })
      .bytes([](const Dims& s) { return 2 * d(s, "B") * d(s, "N") * kStorageBytes; })
      .flops([](const Dims& s) { return 8 * d(s, "B") * d(s, "N"); });
  rkt::register_value_families(task_id(stem, f), {Family::signed_zeros_denormals}, __FILE__, __LINE__);
}

at::Tensor erf_gelu(const at::Tensor& x) { return at::gelu(x); }
at::Tensor silu(const at::Tensor& x) { return at::silu(x); }

[[maybe_unused]] const bool registered = [] {
  for (const StorageFormat& format : kStorageFormats) {
    declare_matmul_bias_gelu(format);
    declare_softmax(format);
    declare_layernorm(format);
    declare_rmsnorm(format);
    declare_cross_entropy(format);
    declare_activation("gelu", "gelu(x) = 0.5 x (1 + erf(x / sqrt 2))", format, erf_gelu);
    declare_activation("silu", "silu(x) = x * sigmoid(x)", format, silu);
  }
  return true;
}();

}  // namespace
