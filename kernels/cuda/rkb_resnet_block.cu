// rkb_resnet_block: y = relu(bn2(conv2(relu(bn1(conv1(x))))) + x), 3x3 convolutions (stride 1,
// padding 1, no bias) on NCHW fp32, BatchNorm in inference mode with eps 1e-5.
//
// Design: two implicit-GEMM convolutions on the tensor cores (conv3x3_gemm.cuh, 3xTF32 mma.sync)
// with everything else fused into their epilogues:
//   1. t = relu((conv1(x) - mean1) / sqrt(var1 + eps) * w1 + b1), written once to a scratch
//      tensor (cudaMallocAsync on the stream, the size of x);
//   2. y = relu((conv2(t) - mean2) / sqrt(var2 + eps) * w2 + b2 + x), written once.
// Eager PyTorch makes a separate pass over the activation for each BatchNorm, ReLU and the
// residual add (seven passes over 128 MB tensors at the default 10 x 64 x 224 x 224 besides the
// two convolutions); here the activations cross memory three times (x read by conv1 and by the
// residual, t written and read, y written) on top of the convolutions' own patch reads.
// Work: 2 x 2 B C^2 H W 9 flops (74 GFLOP at the default size). Expected: 50-70 TFLOP/s of
// fp32-accurate results (about 1.1-1.5 ms): faster than eager fp32, slower than eager TF32
// (cuDNN with one TF32 product per MMA) for the reason matmul.cu gives (one TF32 product fails
// the tf32 tolerance). Claimed precision: tf32 (measured error close to fp32's).
// Registers (nvcc 13.0, sm_90, -Xptxas -v): 95 / 117 (64-channel tiles, the task's whole
// domain: two blocks per SM), 143 / 187 (128-channel tiles); no spills.
#include <cuda_runtime.h>

#include <cstdint>

#include "conv3x3_gemm.cuh"
#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

namespace conv3x3 = rkt::cuda_kernels::conv3x3;

constexpr float kBatchNormEps = 1e-5f;

struct BatchNorm {
  const float* weight;
  const float* bias;
  const float* mean;
  const float* var;
  __device__ float operator()(std::int64_t c, float v) const {
    return (v - mean[c]) / sqrtf(var[c] + kBatchNormEps) * weight[c] + bias[c];
  }
};

__device__ __forceinline__ float relu(float v) { return (v > 0.0f || v != v) ? v : 0.0f; }

// t = relu(bn1(conv1(x))).
struct FirstEpilogue {
  BatchNorm bn;
  float* t;
  int channels;
  std::int64_t plane;
  __device__ void operator()(std::int64_t image, std::int64_t channel, std::int64_t offset,
                             float acc) const {
    t[(image * channels + channel) * plane + offset] = relu(bn(channel, acc));
  }
};

// y = relu(bn2(conv2(t)) + x).
struct SecondEpilogue {
  BatchNorm bn;
  const float* x;
  float* y;
  int channels;
  std::int64_t plane;
  __device__ void operator()(std::int64_t image, std::int64_t channel, std::int64_t offset,
                             float acc) const {
    const std::int64_t i = (image * channels + channel) * plane + offset;
    y[i] = relu(bn(channel, acc) + x[i]);
  }
};

// Inputs: x, conv1_weight, bn1_weight, bn1_bias, bn1_mean, bn1_var, conv2_weight, bn2_weight,
// bn2_bias, bn2_mean, bn2_var (the task's order).
void rkb_resnet_block_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  if (y.numel() == 0) return;
  const auto f = [&](std::size_t i) { return call.input(i).data_as<const float>(); };
  const conv3x3::Geometry g{static_cast<int>(x.size(0)), static_cast<int>(x.size(1)),
                            static_cast<int>(x.size(1)), static_cast<int>(x.size(2)),
                            static_cast<int>(x.size(3))};
  const std::int64_t plane = std::int64_t{g.h} * g.w;

  float* t = nullptr;
  RKT_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&t),
                                 static_cast<std::size_t>(x.numel()) * sizeof(float), stream));
  const FirstEpilogue first{BatchNorm{f(2), f(3), f(4), f(5)}, t, g.cin, plane};
  cudaError_t status = conv3x3::launch(f(0), f(1), g, first, stream);
  if (status == cudaSuccess) {
    const SecondEpilogue second{BatchNorm{f(7), f(8), f(9), f(10)}, f(0), y.data_as<float>(), g.cin,
                                plane};
    status = conv3x3::launch(t, f(6), g, second, stream);
  }
  // Free on the stream (ordered after the kernels) before reporting any launch failure.
  const cudaError_t free_status = cudaFreeAsync(t, stream);
  RKT_CUDA_CHECK(status);
  RKT_CUDA_CHECK(free_status);
}

}  // namespace

ROBUST_KERNEL_TEST(rkb_resnet_block, cuda_implicit_gemm, rkb_resnet_block_cuda)
    .precision(rkt::Precision::tf32)
    .describe(
        "Two implicit-GEMM 3x3 convs on 3xTF32 tensor cores; BatchNorm, ReLU and the "
        "residual add fused into their epilogues");
