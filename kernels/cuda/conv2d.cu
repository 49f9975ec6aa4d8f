// conv2d (3x3, stride 1, zero padding 1, plus bias): each 16x16-thread block computes a 16x16
// spatial tile for 8 output channels of one image; per input channel it stages the 18x18 input
// halo (zeros outside the image) and the 8x3x3 weights in shared memory, accumulating in fp32.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

constexpr int kTile = 16;              // output tile is kTile x kTile, one thread per pixel
constexpr int kHalo = kTile + 2;       // input tile with the 1-pixel border
constexpr int kCoutPerBlock = 8;       // output channels computed by one block
constexpr int kThreads = kTile * kTile;
constexpr std::int64_t kMaxBlocks = 1 << 20;

__global__ void __launch_bounds__(kThreads)
    conv2d_3x3_kernel(const float* __restrict__ x, const float* __restrict__ w,
                      const float* __restrict__ bias, float* __restrict__ y, std::int64_t batch,
                      std::int64_t cin, std::int64_t cout, std::int64_t h, std::int64_t wd) {
  __shared__ float in_tile[kHalo][kHalo + 1];
  __shared__ float w_tile[kCoutPerBlock][9];

  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int tid = ty * kTile + tx;
  const std::int64_t tiles_w = (wd + kTile - 1) / kTile;
  const std::int64_t tiles_h = (h + kTile - 1) / kTile;
  const std::int64_t cout_groups = (cout + kCoutPerBlock - 1) / kCoutPerBlock;
  const std::int64_t total = batch * cout_groups * tiles_h * tiles_w;

  for (std::int64_t block = blockIdx.x; block < total; block += gridDim.x) {
    // block -> (image, output-channel group, tile row, tile column), tile column fastest.
    std::int64_t rest = block;
    const std::int64_t tile_x = rest % tiles_w;
    rest /= tiles_w;
    const std::int64_t tile_y = rest % tiles_h;
    rest /= tiles_h;
    const std::int64_t group = rest % cout_groups;
    const std::int64_t img = rest / cout_groups;

    const std::int64_t oy0 = tile_y * kTile;
    const std::int64_t ox0 = tile_x * kTile;
    const std::int64_t co0 = group * kCoutPerBlock;

    float acc[kCoutPerBlock];
#pragma unroll
    for (int c = 0; c < kCoutPerBlock; ++c) acc[c] = 0.0f;

    for (std::int64_t ci = 0; ci < cin; ++ci) {
      __syncthreads();  // everyone is done reading the previous channel's tiles
      const float* xc = x + (img * cin + ci) * h * wd;
      for (int i = tid; i < kHalo * kHalo; i += kThreads) {
        const int r = i / kHalo;
        const int c = i % kHalo;
        const std::int64_t iy = oy0 + r - 1;
        const std::int64_t ix = ox0 + c - 1;
        in_tile[r][c] = (iy >= 0 && iy < h && ix >= 0 && ix < wd) ? xc[iy * wd + ix] : 0.0f;
      }
      if (tid < kCoutPerBlock * 9) {
        const int c = tid / 9;
        const int tap = tid % 9;
        const std::int64_t co = co0 + c;
        w_tile[c][tap] = co < cout ? w[(co * cin + ci) * 9 + tap] : 0.0f;
      }
      __syncthreads();

      float patch[9];
#pragma unroll
      for (int ky = 0; ky < 3; ++ky)
#pragma unroll
        for (int kx = 0; kx < 3; ++kx) patch[ky * 3 + kx] = in_tile[ty + ky][tx + kx];
#pragma unroll
      for (int c = 0; c < kCoutPerBlock; ++c)
#pragma unroll
        for (int tap = 0; tap < 9; ++tap) acc[c] = fmaf(patch[tap], w_tile[c][tap], acc[c]);
    }

    const std::int64_t oy = oy0 + ty;
    const std::int64_t ox = ox0 + tx;
    if (oy < h && ox < wd) {
#pragma unroll
      for (int c = 0; c < kCoutPerBlock; ++c) {
        const std::int64_t co = co0 + c;
        if (co < cout) y[((img * cout + co) * h + oy) * wd + ox] = acc[c] + bias[co];
      }
    }
  }
}

void conv2d_cuda(rkt::KernelCall& call) {
  const rkt::TensorView& x = call.input(0);
  const rkt::TensorView& w = call.input(1);
  const rkt::TensorView& b = call.input(2);
  const rkt::TensorView& y = call.output(0);
  cudaStream_t stream = static_cast<cudaStream_t>(call.cuda_stream());
  const std::int64_t batch = x.size(0);
  const std::int64_t cin = x.size(1);
  const std::int64_t h = x.size(2);
  const std::int64_t wd = x.size(3);
  const std::int64_t cout = w.size(0);
  if (y.numel() == 0) return;
  const std::int64_t total = batch * ((cout + kCoutPerBlock - 1) / kCoutPerBlock) *
                             ((h + kTile - 1) / kTile) * ((wd + kTile - 1) / kTile);
  const dim3 block(kTile, kTile);
  conv2d_3x3_kernel<<<static_cast<unsigned>(std::min(total, kMaxBlocks)), block, 0, stream>>>(
      x.data_as<const float>(), w.data_as<const float>(), b.data_as<const float>(),
      y.data_as<float>(), batch, cin, cout, h, wd);
  RKT_CUDA_CHECK_LAUNCH();
}

}  // namespace

ROBUST_KERNEL_TEST(conv2d, cuda_tiled, conv2d_cuda)
    .describe("Direct 3x3 conv: 16x16 tile x 8 output channels per block, shared-memory halo");
