// Example of the tensor-form registration: with rkt/torch_kernel.h included, ROBUST_KERNEL_TEST
// also accepts `at::Tensor f(const at::Tensor&...)` that takes the task's inputs in order and
// returns its output. The kernel below builds RMSNorm from elementwise and reduction ATen calls
// (it must not call a whole RMSNorm op), computing in double and returning float32.

#include <ATen/ATen.h>
#include <rkt/torch_kernel.h>

namespace {

// y{B,N} = x / sqrt(mean(x^2 over the row) + 1e-6) * weight.
at::Tensor rmsnorm_cpu_aten_ops(const at::Tensor& x, const at::Tensor& weight) {
  const at::Tensor xd = x.to(at::kDouble);
  const at::Tensor mean_square = xd.square().mean(-1, /*keepdim=*/true);
  const at::Tensor y = xd * at::rsqrt(mean_square + 1e-6) * weight.to(at::kDouble);
  return y.to(x.scalar_type());
}

}  // namespace

ROBUST_KERNEL_TEST(rmsnorm, cpu_aten_ops, rmsnorm_cpu_aten_ops)
    .describe("ATen ops: x * rsqrt(mean(x^2) + eps) * weight, computed in double")
    // Declared so that the borrowed-computation gate accepts them and reports show them.
    .allow_operators({"aten::square", "aten::mean", "aten::add", "aten::rsqrt", "aten::mul"});
