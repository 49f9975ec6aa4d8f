// CUDA kernels that declare the dims they support (KernelSpec::supports). On a GPU a kernel is
// tested at the task's default size, but its value-family and sanitizer cases run at the small
// size: these must be moved inside the declared domain (dims_inside_domain), or an honest kernel
// that handles only what it declares fails there. Run on a GPU by tests/unit/kernel_domain_test.cpp.
#include <cuda_runtime.h>

#include <stdexcept>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

// One block of 64 threads per 64 elements of a row: no bounds check, so N must be a multiple of 64.
__global__ void relu_chunks_of_64(const float* x, float* y) {
  const long long i = blockIdx.x * 64ll + threadIdx.x;
  y[i] = x[i] > 0 ? x[i] : 0.0f;
}

void relu_rows_of_64(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  if (x.size(1) % 64 != 0) throw std::invalid_argument("relu/cuda_rows_of_64_declared handles N % 64 == 0 only");
  const long long chunks = x.numel() / 64;
  if (chunks == 0) return;
  relu_chunks_of_64<<<static_cast<unsigned>(chunks), 64, 0, static_cast<cudaStream_t>(call.cuda_stream())>>>(
      x.data_as<const float>(), call.output(0).data_as<float>());
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cuda_rows_of_64_declared, relu_rows_of_64)
    .describe("handles N % 64 == 0 only and declares it: value, relation and sanitizer cases inside, passes")
    .supports_multiple_of("N", 64);
