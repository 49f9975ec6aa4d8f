#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>

#include "framework/comparison/comparison_kernel.h"
#include "framework/comparison/comparison_sums.h"

namespace rkt {
namespace {

using comparison_sums::Sums;

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 1024;  // a grid-stride loop past this
constexpr int kSumFields = 5;
// scratch: [blocks][kSumFields] for each pass, then the bound: own scale, scale, absolute, and
// the first pass's sum of the reference's squares.
constexpr int kBoundFields = 4;

std::int64_t blocks_for(std::int64_t count) {
  return std::max<std::int64_t>(1, std::min(kMaxBlocks, (count + kThreads - 1) / kThreads));
}

__device__ double as_double(const float* values, std::int64_t i) { return values[i]; }
__device__ double as_double(const double* values, std::int64_t i) { return values[i]; }
__device__ double as_double(const __half* values, std::int64_t i) {
  return __half2float(values[i]);
}
__device__ double as_double(const __nv_bfloat16* values, std::int64_t i) {
  return __bfloat162float(values[i]);
}

__device__ void store(const Sums& sums, double* out) {
  out[0] = sums.outside;
  out[1] = sums.bad_values;
  out[2] = sums.error_squares;
  out[3] = sums.reference_squares;
  out[4] = sums.largest_error;
}

__device__ Sums load(const double* in) {
  Sums sums;
  sums.outside = in[0];
  sums.bad_values = in[1];
  sums.error_squares = in[2];
  sums.reference_squares = in[3];
  sums.largest_error = in[4];
  return sums;
}

// The block's threads' sums combined as a fixed tree; thread 0 returns the total.
__device__ Sums block_total(Sums mine) {
  __shared__ double shared[kThreads * kSumFields];
  store(mine, shared + threadIdx.x * kSumFields);
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) {
      Sums left = load(shared + threadIdx.x * kSumFields);
      comparison_sums::combine(load(shared + (threadIdx.x + half) * kSumFields), left);
      store(left, shared + threadIdx.x * kSumFields);
    }
    __syncthreads();
  }
  return load(shared);
}

__global__ void reference_pass(const double* reference, std::int64_t count, double* block_sums) {
  Sums mine;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    comparison_sums::add_reference(reference[i], mine);
  }
  const Sums total = block_total(mine);
  if (threadIdx.x == 0) store(total, block_sums + blockIdx.x * kSumFields);
}

// One block: the blocks' sums in order, each thread a fixed slice, then the tree.
__device__ Sums blocks_total(const double* block_sums, int blocks) {
  Sums mine;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x) {
    comparison_sums::combine(load(block_sums + b * kSumFields), mine);
  }
  return block_total(mine);
}

__global__ void bound_kernel(const double* block_sums, int blocks, std::int64_t count, double atol,
                             double scale_floor, double* bound) {
  const Sums total = blocks_total(block_sums, blocks);
  if (threadIdx.x == 0) {
    const double own =
        comparison_sums::own_scale(total.reference_squares, static_cast<double>(count));
    const double scale = fmax(own, scale_floor);
    bound[0] = own;
    bound[1] = scale;
    bound[2] = __dmul_rn(scale, atol);
    bound[3] = total.reference_squares;
  }
}

template <typename Output>
__global__ void element_pass(const Output* output, const double* reference, std::int64_t count,
                             const double* bound, double rtol, double* block_sums) {
  const double absolute = bound[2];
  Sums mine;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const double ref = reference[i];
    comparison_sums::add_element(as_double(output, i), ref, absolute, rtol, mine);
  }
  const Sums total = block_total(mine);
  if (threadIdx.x == 0) store(total, block_sums + blockIdx.x * kSumFields);
}

__global__ void results_kernel(const double* block_sums, int blocks, const double* bound,
                               double* results) {
  const Sums total = blocks_total(block_sums, blocks);
  if (threadIdx.x == 0) {
    store(total, results);
    results[3] = bound[3];  // the first pass summed the reference's squares already
    results[5] = bound[0];
    results[6] = bound[1];
  }
}

template <typename Output>
int enqueue_with(const Output* output, const double* reference, std::int64_t count, double atol,
                 double rtol, double scale_floor, double* scratch, double* results,
                 cudaStream_t stream) {
  const std::int64_t blocks = blocks_for(count);
  double* first_sums = scratch;
  double* second_sums = scratch + blocks * kSumFields;
  double* bound = scratch + 2 * blocks * kSumFields;
  const auto grid = static_cast<unsigned>(blocks);
  reference_pass<<<grid, kThreads, 0, stream>>>(reference, count, first_sums);
  bound_kernel<<<1, kThreads, 0, stream>>>(first_sums, static_cast<int>(blocks), count, atol,
                                           scale_floor, bound);
  element_pass<Output>
      <<<grid, kThreads, 0, stream>>>(output, reference, count, bound, rtol, second_sums);
  results_kernel<<<1, kThreads, 0, stream>>>(second_sums, static_cast<int>(blocks), bound, results);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

std::int64_t comparison_scratch_doubles(std::int64_t count) {
  return 2 * blocks_for(count) * kSumFields + kBoundFields;
}

int enqueue_output_comparison(const void* output, ComparedFormat format, const double* reference,
                              std::int64_t count, double atol, double rtol, double scale_floor,
                              double* scratch, double* results, void* cuda_stream) {
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  switch (format) {
    case ComparedFormat::float32:
      return enqueue_with(static_cast<const float*>(output), reference, count, atol, rtol,
                          scale_floor, scratch, results, stream);
    case ComparedFormat::float64:
      return enqueue_with(static_cast<const double*>(output), reference, count, atol, rtol,
                          scale_floor, scratch, results, stream);
    case ComparedFormat::float16:
      return enqueue_with(static_cast<const __half*>(output), reference, count, atol, rtol,
                          scale_floor, scratch, results, stream);
    case ComparedFormat::bfloat16:
      return enqueue_with(static_cast<const __nv_bfloat16*>(output), reference, count, atol, rtol,
                          scale_floor, scratch, results, stream);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace rkt
