// A tensor-form kernel in a library compiled against LibTorch's headers but not linked to it, as
// `rkt eval` builds a source file: its LibTorch symbols are undefined until the worker loads
// LibTorch (tests/unit/light_worker_test.cpp).
#include <ATen/ATen.h>
#include <rkt/torch_kernel.h>

namespace {

at::Tensor relu_by_clamp(const at::Tensor& x) { return x.clamp_min(0); }

}  // namespace

ROBUST_KERNEL_TEST(relu, unlinked_tensor_form, relu_by_clamp)
    .describe("tensor form, LibTorch's symbols left for the worker to provide")
    .allow_operators({"aten::clamp_min"});
