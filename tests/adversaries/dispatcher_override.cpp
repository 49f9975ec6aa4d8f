// A kernel library that registers a LibTorch dispatcher override for the operator its task's
// reference uses: aten::relu on the CPU returns zeros, and so does the kernel. In one process
// with the judge, the float64 reference would agree with it; isolated, the override lives only
// in the worker, and the judge's reference is untouched.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "rkt/kernel.h"

namespace {

at::Tensor zeros_like_input(const at::Tensor& x) { return at::zeros_like(x); }

void writes_zeros(rkt::KernelCall& call) {
  float* y = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < call.output(0).numel(); ++i) y[i] = 0;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, CPU, library) { library.impl("relu", zeros_like_input); }

ROBUST_KERNEL_TEST(relu, override_reference_dispatch, writes_zeros)
    .describe("writes zeros and overrides aten::relu on the CPU to return zeros too");
