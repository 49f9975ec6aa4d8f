// CUDA kernels that give the right answer on today's GPUs while breaking memory or
// synchronisation rules (issue 19). Each must be caught on the H200: writes outside a buffer by
// the redzones (relu/fault_one_past_end, in cuda_faults.cu), reads past the end by memcheck at
// the sanitizer cases' ragged dims (odd numel: relu/cuda_float4_tail_overread), undeclared float4 loads by the
// misaligned_pointers case, the others by a sanitizer case (tests/unit/gpu_bounds_test.cpp, run
// by tools/gpu/run.sh). The honest controls (declared alignment, own scratch) must pass every case.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kThreads = 256;

int blocks_for(long long n) { return static_cast<int>((n + kThreads - 1) / kThreads); }
cudaStream_t stream_of(rkt::KernelCall& call) { return static_cast<cudaStream_t>(call.cuda_stream()); }

__device__ float relu(float v) { return v > 0 ? v : 0.0f; }

// Reads x[n] (one past the end) from the last element's thread and multiplies it by zero.
__global__ void relu_reads_past_end(const float* x, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float next = (i == n - 1) ? x[i + 1] : 0.0f;
  y[i] = relu(x[i]) + (next == next ? 0.0f * next : 0.0f) * 0.0f;
}

// The first half of each warp waits at a block barrier that the second half never reaches
// (it writes its element and leaves). Undefined behaviour that happens to work today.
__global__ void relu_divergent_barrier(const float* x, float* y, long long n) {
  __shared__ float tile[kThreads];
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const float v = i < n ? x[i] : 0.0f;
  tile[threadIdx.x] = v;
  if ((threadIdx.x & 31) < 16) {
    __syncthreads();
    if (i < n) y[i] = relu(tile[threadIdx.x]);
  } else if (i < n) {
    y[i] = relu(v);
  }
}

// Lanes past the end leave; the rest shuffle with a full mask that names the exited lanes.
__global__ void relu_shuffle_exited_lanes(const float* x, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  const float neighbour = __shfl_down_sync(0xffffffffu, v, 1);
  y[i] = relu(v) + 0.0f * neighbour * 0.0f;
}

// The common real-kernel form of a divergent barrier: the barrier sits inside the bounds check,
// so the threads past the end (the last block's tail, part of one warp and whole warps) never
// reach it.
__global__ void relu_barrier_inside_bounds_check(const float* x, float* y, long long n) {
  __shared__ float tile[kThreads];
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) {
    tile[threadIdx.x] = x[i];
    __syncthreads();
    y[i] = relu(tile[threadIdx.x]);
  }
}

// A warp barrier whose mask leaves out one of its callers: lanes 0-16 call __syncwarp with the
// mask of lanes 0-15 (lane 16 is not in the mask it passes).
__global__ void relu_syncwarp_mask_without_caller(const float* x, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const unsigned lane = threadIdx.x & 31u;
  const unsigned low_lanes = __ballot_sync(0xffffffffu, lane < 16u);
  if (lane <= 16u) __syncwarp(low_lanes);
  if (i < n) y[i] = relu(x[i]);
}

// Each thread writes its shared slot and reads one written by another warp, with no barrier
// between: a race (racecheck does not report one inside a warp).
__global__ void relu_shared_race(const float* x, float* y, long long n) {
  __shared__ float tile[kThreads];
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  volatile float* slots = tile;
  const float v = i < n ? x[i] : 0.0f;
  slots[threadIdx.x] = v;
  const float neighbour = slots[(threadIdx.x + 32) % kThreads];
  if (i < n) y[i] = relu(v) + 0.0f * (neighbour - neighbour);
}

// Reads a scratch buffer that nothing wrote.
__global__ void relu_reads_uninitialised(const float* x, const float* scratch, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = relu(x[i]) + 0.0f * (scratch[i] - scratch[i]);
}

// float4 loads and stores: the base pointers must be 16-byte aligned.
__global__ void relu_float4(const float* x, float* y, long long n) {
  const long long vectors = n / 4;
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < vectors;
       v += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float4 a = reinterpret_cast<const float4*>(x)[v];
    reinterpret_cast<float4*>(y)[v] = make_float4(relu(a.x), relu(a.y), relu(a.z), relu(a.w));
  }
  const long long tail = vectors * 4 + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (tail < n) y[tail] = relu(x[tail]);
}

// The commonest real tail bug: the vector count is rounded up, so whenever numel % 4 != 0 the
// last vector's load reads up to 12 bytes past the end of x. Only in-bounds elements are
// written, so the output is right; at numel 11100 (B=37 N=300) it reads nothing outside at all.
__global__ void relu_float4_rounds_up(const float* x, float* y, long long n) {
  const long long vectors = (n + 3) / 4;
  for (long long v = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; v < vectors;
       v += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float4 a = reinterpret_cast<const float4*>(x)[v];
    const float lanes[4] = {a.x, a.y, a.z, a.w};
    for (int lane = 0; lane < 4; ++lane) {
      if (v * 4 + lane < n) y[v * 4 + lane] = relu(lanes[lane]);
    }
  }
}

// Scratch of its own, fully written before it is read.
__global__ void fill_scratch(const float* x, float* scratch, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) scratch[i] = relu(x[i]);
}
__global__ void copy_scratch(const float* scratch, float* y, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = scratch[i];
}

template <void (*kernel)(const float*, float*, long long)>
void launch_elementwise(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  kernel<<<blocks_for(n), kThreads, 0, stream_of(call)>>>(call.input(0).data_as<const float>(),
                                                         call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

void reads_uninitialised(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  float* scratch = nullptr;
  RKT_CUDA_CHECK(cudaMallocAsync(&scratch, n * sizeof(float), stream_of(call)));
  relu_reads_uninitialised<<<blocks_for(n), kThreads, 0, stream_of(call)>>>(
      call.input(0).data_as<const float>(), scratch, call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
  RKT_CUDA_CHECK(cudaFreeAsync(scratch, stream_of(call)));
}

void float4_loads(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  relu_float4<<<1024, kThreads, 0, stream_of(call)>>>(call.input(0).data_as<const float>(),
                                                      call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

void float4_loads_checked(rkt::KernelCall& call) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (!aligned(call.input(0).data) || !aligned(call.output(0).data)) {
    throw std::invalid_argument("relu/cuda_float4_declared needs 16-byte aligned buffers");
  }
  float4_loads(call);
}

void float4_loads_rounded_up(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  relu_float4_rounds_up<<<1024, kThreads, 0, stream_of(call)>>>(
      call.input(0).data_as<const float>(), call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
}

void own_scratch(rkt::KernelCall& call) {
  const long long n = call.input(0).numel();
  float* scratch = nullptr;
  RKT_CUDA_CHECK(cudaMallocAsync(&scratch, n * sizeof(float), stream_of(call)));
  fill_scratch<<<blocks_for(n), kThreads, 0, stream_of(call)>>>(call.input(0).data_as<const float>(), scratch, n);
  copy_scratch<<<blocks_for(n), kThreads, 0, stream_of(call)>>>(scratch, call.output(0).data_as<float>(), n);
  RKT_CUDA_CHECK_LAUNCH();
  RKT_CUDA_CHECK(cudaFreeAsync(scratch, stream_of(call)));
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cuda_reads_past_end, launch_elementwise<relu_reads_past_end>)
    .describe("reads one element past the end of its input (memcheck)");
ROBUST_KERNEL_TEST(relu, cuda_divergent_barrier, launch_elementwise<relu_divergent_barrier>)
    .describe("half of each warp skips a block barrier (synccheck)");
ROBUST_KERNEL_TEST(relu, cuda_shuffle_exited_lanes, launch_elementwise<relu_shuffle_exited_lanes>)
    .describe("shuffles with a full mask after lanes past the end have exited (synccheck)");
ROBUST_KERNEL_TEST(relu, cuda_barrier_inside_bounds_check, launch_elementwise<relu_barrier_inside_bounds_check>)
    .describe("a block barrier inside the bounds check: the tail's threads skip it (synccheck)");
ROBUST_KERNEL_TEST(relu, cuda_syncwarp_mask_without_caller, launch_elementwise<relu_syncwarp_mask_without_caller>)
    .describe("__syncwarp called by a lane its mask leaves out (synccheck)");
ROBUST_KERNEL_TEST(relu, cuda_shared_race, launch_elementwise<relu_shared_race>)
    .describe("reads a neighbour's shared slot without a barrier (racecheck)");
ROBUST_KERNEL_TEST(relu, cuda_reads_uninitialised, reads_uninitialised)
    .describe("reads scratch memory nothing wrote (initcheck)");
ROBUST_KERNEL_TEST(relu, cuda_float4_undeclared, float4_loads)
    .describe("float4 loads and stores, alignment not declared (misaligned_pointers)");
ROBUST_KERNEL_TEST(relu, cuda_float4_declared, float4_loads_checked)
    .requires_alignment(16)
    .describe("float4 loads and stores, 16-byte alignment declared and checked (honest)");
ROBUST_KERNEL_TEST(relu, cuda_own_scratch, own_scratch).describe("scratch memory of its own, written before read (honest)");
ROBUST_KERNEL_TEST(relu, cuda_float4_tail_overread, float4_loads_rounded_up)
    .requires_alignment(16)
    .describe("float4 loads with the vector count rounded up: reads up to 12 bytes past x (memcheck)");
