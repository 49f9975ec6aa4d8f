// GPU-only tricks against the timer and the read-back: work launched off the stream the
// framework gave the kernel. Run on the H200 (tests/unit/integrity_test.cpp, CUDA tests).
#include <cuda_runtime.h>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

// Spins for `cycles` before writing, so the work is still running when a read-back that waits
// only for the framework's stream takes place.
__global__ void slow_relu(const float* x, float* y, long long n, long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    y[i] = x[i] > 0 ? x[i] : 0.0f;
  }
}

// A stream of the kernel's own, which the framework's stream does not wait for.
cudaStream_t own_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t created;
    cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking);
    return created;
  }();
  return stream;
}

// Escaped work: launches on a stream of its own.
void relu_on_own_stream(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  slow_relu<<<1024, 256, 0, own_stream()>>>(x.data_as<const float>(), call.output(0).data_as<float>(),
                                          x.numel(), 20'000'000);  // about 10 ms at 2 GHz
  RKT_CUDA_CHECK_LAUNCH();
}

// The legacy default stream: the framework's stream is non-blocking (a LibTorch pool stream), so
// it does not wait for work queued there; the read-back and the timer see none of it.
void relu_on_legacy_stream(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  slow_relu<<<1024, 256, 0, cudaStreamLegacy>>>(x.data_as<const float>(),
                                                call.output(0).data_as<float>(), x.numel(),
                                                20'000'000);
  RKT_CUDA_CHECK_LAUNCH();
}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// Work the timer never sees, too short for a host clock to tell: the outputs are computed on the
// given stream and final at return, and a side kernel of about 1 ms (what a kernel could spend
// preparing its next call) runs on a stream of its own, not joined. It is launched after the
// outputs' kernel, so that it outlasts the call on the stream whatever that takes: launched first
// and shorter (0.3 ms until run 43), it could end inside the call, where the timer sees it, and
// the gate rightly passed it on one call in two on an H100. On the host's clock it hides inside
// 3 x the stream time + 1 ms; on the GPU's clock it ends after the call.
void relu_with_side_work(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  slow_relu<<<1024, 256, 0, static_cast<cudaStream_t>(call.cuda_stream())>>>(
      x.data_as<const float>(), call.output(0).data_as<float>(), x.numel(), 0);
  RKT_CUDA_CHECK_LAUNCH();
  spin<<<1, 32, 0, own_stream()>>>(2'000'000);  // about 1 ms at 2 GHz
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cheat_side_work, relu_with_side_work)
    .describe("a 1 ms kernel on its own stream after correct outputs: work the timer never sees");
ROBUST_KERNEL_TEST(relu, cheat_legacy_stream, relu_on_legacy_stream)
    .describe("launches on the legacy default stream: results arrive after the read-back");
ROBUST_KERNEL_TEST(relu, cheat_own_stream, relu_on_own_stream)
    .describe("launches on its own stream: results arrive after the read-back");
