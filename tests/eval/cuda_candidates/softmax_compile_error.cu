// A CUDA candidate that does not compile (a device function called with too few arguments).
// Must get status compile_error with nvcc's message naming this file by its bare name.
#include <cuda_runtime.h>

#include "rkt/kernel.h"

namespace {

__device__ float twice(float x, float y) { return x + y; }

__global__ void softmax_broken(const float* x, float* y, long count) {
  const long i = blockIdx.x * static_cast<long>(blockDim.x) + threadIdx.x;
  if (i < count) y[i] = twice(x[i]);
}

void softmax_launch(rkt::KernelCall& call) {
  const long count = call.output(0).numel();
  softmax_broken<<<(count + 255) / 256, 256, 0, static_cast<cudaStream_t>(call.cuda_stream())>>>(
      call.input(0).data_as<const float>(), call.output(0).data_as<float>(), count);
}

}  // namespace

ROBUST_KERNEL_TEST(softmax, eval_cuda_compile_error, softmax_launch);
