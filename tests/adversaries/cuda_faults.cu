// Faulty CUDA kernels: a fault must fail the faulty kernel's own case, and nothing else. After an
// illegal memory access the CUDA context of the process that ran the kernel is lost, so the judge
// replaces that worker; a kernel that never finishes is stopped by the case timeout. The honest
// control runs after them in the same supervised run and must pass. Run on the H200
// (tests/unit/fault_containment_test.cpp; docs/gpu_runs.md).
#include <cuda_runtime.h>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kThreads = 256;

__global__ void relu_grid_stride(const float* x, float* y, long long n) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    y[i] = x[i] > 0 ? x[i] : 0.0f;
  }
}

// Writes 2^40 floats past the output: far outside any allocation, an illegal address.
__global__ void relu_writes_far_away(const float* x, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i + (1LL << 40)] = x[i];
}

// Never finishes (a clock that is read, so the compiler keeps the loop).
__global__ void relu_spins_forever(float* y) {
  long long spins = 0;
  while (clock64() >= 0) ++spins;
  y[0] = static_cast<float>(spins);
}

// Writes one element past the end of the output: inside the allocation's granularity, so the
// hardware does not fault; compute-sanitizer's memcheck must report it (tools/gpu/sanitize.sh).
__global__ void relu_writes_one_past_end(const float* x, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = x[i] > 0 ? x[i] : 0.0f;
  if (i == n) y[n] = 0.0f;
}

int blocks_for(long long n) { return static_cast<int>((n + kThreads) / kThreads); }

cudaStream_t stream_of(rkt::KernelCall& call) { return static_cast<cudaStream_t>(call.cuda_stream()); }

void honest_relu(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  relu_grid_stride<<<1024, kThreads, 0, stream_of(call)>>>(
      call.input(0).data_as<const float>(), call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

void illegal_address(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  relu_writes_far_away<<<blocks_for(n), kThreads, 0, stream_of(call)>>>(
      call.input(0).data_as<const float>(), call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

void spins_forever(rkt::KernelCall& call) {
  relu_spins_forever<<<1, 1, 0, stream_of(call)>>>(call.output(0).data_as<float>());
  RKT_CUDA_CHECK_LAUNCH();
}

void one_past_end(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  relu_writes_one_past_end<<<blocks_for(n), kThreads, 0, stream_of(call)>>>(
      call.input(0).data_as<const float>(), call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cuda_control, honest_relu)
    .describe("honest grid-stride relu: runs after the faulty kernels and must pass");
ROBUST_KERNEL_TEST(relu, fault_illegal_address, illegal_address)
    .describe("writes 2^40 elements past its output: an illegal memory access");
ROBUST_KERNEL_TEST(relu, fault_spins_forever, spins_forever).describe("a CUDA kernel that never ends");
ROBUST_KERNEL_TEST(relu, fault_one_past_end, one_past_end)
    .describe("writes one element past its output (no hardware fault; compute-sanitizer sees it)");
