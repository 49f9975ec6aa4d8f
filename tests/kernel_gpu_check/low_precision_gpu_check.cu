// low_precision_gpu_check.cu: a standalone check of the bf16 / fp16 CUDA kernels' headers
// (flash_attention.cuh, flash_attention_backward.cuh, bf16_gemm.cuh, low_precision_rows.cuh,
// low_precision_elementwise.cuh) on a real GPU, without the framework: random inputs, a
// float64 CPU reference from the same rounded inputs, the same tolerances as the CPU emulation
// tests, then CUDA-event timings at benchmark sizes. For a first look at a GPU machine before the
// tasks exist; the verdict that counts is `rkt test` (see docs). Build and run on the GPU host,
// from the repository root:
//   nvcc -std=c++17 -arch=sm_90 -O3 -Ikernels/cuda -o /tmp/lp_check
//     tests/kernel_gpu_check/low_precision_gpu_check.cu && /tmp/lp_check
// Exit status 1 when any check fails.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "bf16_gemm.cuh"
#include "flash_attention.cuh"
#include "flash_attention_backward.cuh"
#include "low_precision_elementwise.cuh"
#include "low_precision_rows.cuh"

namespace {

namespace lp = rkt::cuda_kernels::low_precision;
namespace flash = rkt::cuda_kernels::flash;
namespace flash_backward = rkt::cuda_kernels::flash_backward;
namespace gemm = rkt::cuda_kernels::bf16_gemm;

int failures = 0;

#define CHECK_CUDA(x)                                                                             \
  do {                                                                                            \
    cudaError_t e = (x);                                                                          \
    if (e != cudaSuccess) {                                                                       \
      std::printf("CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(2);                                                                               \
    }                                                                                             \
  } while (0)

// Host-side conversions (the same bit rules as the device).
float bf16_to_float(std::uint16_t h) {
  const unsigned u = unsigned{h} << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint16_t float_to_bf16(float x) {
  unsigned u;
  std::memcpy(&u, &x, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float fp16_to_float(std::uint16_t h) { return __half2float(__ushort_as_half(h)); }
std::uint16_t float_to_fp16(float x) { return __half_as_ushort(__float2half_rn(x)); }

template <class Format>
float host_to_float(std::uint16_t h) {
  return Format::kIsBf16 ? bf16_to_float(h) : fp16_to_float(h);
}
template <class Format>
std::uint16_t host_from_float(float x) {
  return Format::kIsBf16 ? float_to_bf16(x) : float_to_fp16(x);
}

template <class Format>
std::vector<std::uint16_t> random_values(std::size_t n, unsigned seed, float scale) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<std::uint16_t> v(n);
  for (auto& x : v) x = host_from_float<Format>(normal(rng));
  return v;
}

struct DeviceBuffer {
  void* base = nullptr;
  std::size_t bytes = 0;
  explicit DeviceBuffer(std::size_t b) : bytes(b) { CHECK_CUDA(cudaMalloc(&base, b + 64)); }
  ~DeviceBuffer() { cudaFree(base); }
  std::uint16_t* at(std::size_t lead) { return static_cast<std::uint16_t*>(base) + lead; }
};

// Runs fn(i) for i in [0, n) on all host cores.
template <class Fn>
void parallel_for(std::int64_t n, Fn fn) {
  const int workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w)
    pool.emplace_back([&, w] {
      for (std::int64_t i = w; i < n; i += workers) fn(i);
    });
  for (auto& t : pool) t.join();
}

// Element check: |out - ref| <= tol (rms(ref) + |ref|); reports the worst.
void compare(const std::string& name, const std::vector<float>& out, const std::vector<double>& ref,
             double tol) {
  double ss = 0;
  for (double r : ref) ss += r * r;
  const double rms = std::sqrt(ss / std::max<std::size_t>(1, ref.size()));
  std::size_t bad = 0;
  double worst = 0;
  std::size_t worst_i = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::fabs(out[i] - ref[i]) / (rms + std::fabs(ref[i]));
    if (!(err <= tol)) ++bad;
    if (!(err <= worst)) {
      worst = err;
      worst_i = i;
    }
  }
  std::printf("%-4s %s: worst %.3g of tol %.3g at %zu (got %g, ref %g), %zu bad of %zu\n",
              bad ? "FAIL" : "ok", name.c_str(), worst, tol, worst_i,
              ref.empty() ? 0.0 : out[worst_i], ref.empty() ? 0.0 : ref[worst_i], bad, ref.size());
  if (bad) ++failures;
}

template <class Format, int kD, bool kCausal, int kM = flash::kFlashWarpTiles>
void check_attention(std::int64_t B, std::int64_t H, std::int64_t G, std::int64_t S,
                     std::size_t lead, float scale) {
  const std::size_t qn = B * H * S * kD, kvn = B * G * S * kD;
  auto q = random_values<Format>(qn, 11, scale), k = random_values<Format>(kvn, 12, scale),
       v = random_values<Format>(kvn, 13, 1.0f);
  DeviceBuffer dq(qn * 2), dk(kvn * 2), dv(kvn * 2), dout(qn * 2);
  CHECK_CUDA(cudaMemcpy(dq.at(lead), q.data(), qn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dk.at(lead), k.data(), kvn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dv.at(lead), v.data(), kvn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dout.base, 0xff, qn * 2 + 64));  // NaN everywhere
  const flash::Params p{dq.at(lead),
                        dk.at(lead),
                        dv.at(lead),
                        dout.at(lead),
                        B,
                        H,
                        G,
                        S,
                        flash::kLog2e / std::sqrt(float(kD))};
  CHECK_CUDA((flash::launch_flash_attention_tiles<Format, kD, kM, kCausal>(p, nullptr)));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint16_t> o(qn);
  CHECK_CUDA(cudaMemcpy(o.data(), dout.at(lead), qn * 2, cudaMemcpyDeviceToHost));
  std::vector<float> out(qn);
  for (std::size_t i = 0; i < qn; ++i) out[i] = host_to_float<Format>(o[i]);
  std::vector<double> ref(qn);
  parallel_for(B * H * S, [&](std::int64_t row) {
    const std::int64_t i = row % S, bh = row / S, b = bh / H, h = bh % H, kv = h / (H / G);
    const std::size_t qo = (bh * S + i) * kD, ko = (b * G + kv) * S * kD;
    const std::int64_t visible = kCausal ? i + 1 : S;
    std::vector<double> w(visible);
    double mx = -INFINITY;
    for (std::int64_t j = 0; j < visible; ++j) {
      double dot = 0;
      for (int d = 0; d < kD; ++d)
        dot += double(host_to_float<Format>(q[qo + d])) * host_to_float<Format>(k[ko + j * kD + d]);
      w[j] = dot / std::sqrt(double(kD));
      mx = std::max(mx, w[j]);
    }
    double sum = 0;
    for (double& x : w) sum += (x = std::exp(x - mx));
    for (int d = 0; d < kD; ++d) {
      double acc = 0;
      for (std::int64_t j = 0; j < visible; ++j)
        acc += w[j] * host_to_float<Format>(v[ko + j * kD + d]);
      ref[qo + d] = acc / sum;
    }
  });
  char name[160];
  std::snprintf(name, sizeof name, "attention(%d) %s D=%d%s B=%ld H=%ld G=%ld S=%ld lead=%zu x%.0f",
                kM, Format::kIsBf16 ? "bf16" : "fp16", kD, kCausal ? " causal" : "", long(B),
                long(H), long(G), long(S), lead, scale);
  compare(name, out, ref, Format::kIsBf16 ? 1e-2 : 2.5e-3);
}

// The causal backward (flash_attention_backward.cuh) against float64 gradients, with the
// emulation test's per-element bound u (|ref| + 4 rss + rms / 64) (rss: the root sum of squares
// of the terms the element sums; see flash_attention_backward_emulation_test.cpp for why), and
// a second call that must give the same bits (no atomics).
template <class Format, int kD>
void check_attention_backward(std::int64_t B, std::int64_t H, std::int64_t G, std::int64_t S,
                              std::size_t lead, float scale) {
  const std::size_t qn = B * H * S * kD, kvn = B * G * S * kD, rows = B * H * S;
  const auto q = random_values<Format>(qn, 11, scale), k = random_values<Format>(kvn, 12, scale),
             v = random_values<Format>(kvn, 13, 1.0f), go = random_values<Format>(qn, 14, 1.0f);
  DeviceBuffer dq(qn * 2), dk(kvn * 2), dv(kvn * 2), dgo(qn * 2), dgq(qn * 2), dgk(kvn * 2),
      dgv(kvn * 2), dstats(3 * rows * sizeof(float));
  CHECK_CUDA(cudaMemcpy(dq.at(lead), q.data(), qn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dk.at(lead), k.data(), kvn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dv.at(lead), v.data(), kvn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dgo.at(lead), go.data(), qn * 2, cudaMemcpyHostToDevice));
  std::vector<std::uint16_t> first[3];
  for (int call = 0; call < 2; ++call) {
    for (DeviceBuffer* out : {&dgq, &dgk, &dgv, &dstats})
      CHECK_CUDA(cudaMemset(out->base, 0xff, out->bytes + 64));  // NaN everywhere
    float* stats = static_cast<float*>(dstats.base);
    const flash_backward::Params p{dq.at(lead),  dk.at(lead),  dv.at(lead),  dgo.at(lead),
                                   dgq.at(lead), dgk.at(lead), dgv.at(lead), stats,
                                   stats + rows, stats + 2 * rows, B,        H,            G,
                                   S,            1.0f / std::sqrt(float(kD)),
                                   flash::kLog2e / std::sqrt(float(kD))};
    CHECK_CUDA((flash_backward::launch_flash_attention_backward<Format, kD>(p, nullptr)));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint16_t> got[3] = {std::vector<std::uint16_t>(qn),
                                         std::vector<std::uint16_t>(kvn),
                                         std::vector<std::uint16_t>(kvn)};
    CHECK_CUDA(cudaMemcpy(got[0].data(), dgq.at(lead), qn * 2, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(got[1].data(), dgk.at(lead), kvn * 2, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(got[2].data(), dgv.at(lead), kvn * 2, cudaMemcpyDeviceToHost));
    if (call == 0) {
      for (int i = 0; i < 3; ++i) first[i] = got[i];
    } else if (got[0] != first[0] || got[1] != first[1] || got[2] != first[2]) {
      std::printf("FAIL attention backward: a second call gave different bits\n");
      ++failures;
    }
  }
  // Reference: one worker per (batch, kv head), which owns its grad_k / grad_v rows.
  std::vector<double> ref[3] = {std::vector<double>(qn, 0.0), std::vector<double>(kvn, 0.0),
                                std::vector<double>(kvn, 0.0)};
  std::vector<double> rss[3] = {std::vector<double>(qn, 0.0), std::vector<double>(kvn, 0.0),
                                std::vector<double>(kvn, 0.0)};
  const double sc = 1.0 / std::sqrt(double(kD));
  const auto at = [](const std::vector<std::uint16_t>& t, std::size_t i) {
    return double(host_to_float<Format>(t[i]));
  };
  parallel_for(B * G, [&](std::int64_t bg) {
    const std::int64_t b = bg / G, kv = bg % G, group = H / G;
    const std::size_t ko = bg * S * kD;
    std::vector<double> prob(S), dprob(S);
    for (std::int64_t h = kv * group; h < (kv + 1) * group; ++h)
      for (std::int64_t i = 0; i < S; ++i) {
        const std::size_t qo = ((b * H + h) * S + i) * kD;
        double mx = -INFINITY;
        for (std::int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int d = 0; d < kD; ++d) dot += at(q, qo + d) * at(k, ko + j * kD + d);
          mx = std::max(mx, prob[j] = dot * sc);
        }
        double sum = 0;
        for (std::int64_t j = 0; j <= i; ++j) sum += (prob[j] = std::exp(prob[j] - mx));
        double delta = 0;
        for (std::int64_t j = 0; j <= i; ++j) {
          prob[j] /= sum;
          double dot = 0;
          for (int d = 0; d < kD; ++d) dot += at(go, qo + d) * at(v, ko + j * kD + d);
          delta += prob[j] * (dprob[j] = dot);
        }
        for (std::int64_t j = 0; j <= i; ++j) {
          const double ds = prob[j] * (dprob[j] - delta);
          for (int d = 0; d < kD; ++d) {
            const double terms[3] = {ds * at(k, ko + j * kD + d) * sc, ds * at(q, qo + d) * sc,
                                     prob[j] * at(go, qo + d)};
            const std::size_t index[3] = {qo + d, ko + j * kD + d, ko + j * kD + d};
            for (int g = 0; g < 3; ++g) {
              ref[g][index[g]] += terms[g];
              rss[g][index[g]] += terms[g] * terms[g];
            }
          }
        }
      }
  });
  const double u = Format::kIsBf16 ? 1.0 / 256 : 1.0 / 2048;
  const char* names[3] = {"grad_q", "grad_k", "grad_v"};
  for (int g = 0; g < 3; ++g) {
    double ss = 0;
    for (double r : ref[g]) ss += r * r;
    const double rms = std::sqrt(ss / std::max<std::size_t>(1, ref[g].size()));
    std::size_t bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < ref[g].size(); ++i) {
      const double bound = u * (std::fabs(ref[g][i]) + 4 * std::sqrt(rss[g][i]) + rms / 64);
      const double err = std::fabs(at(first[g], i) - ref[g][i]);
      if (!(err <= bound)) ++bad;
      if (bound > 0) worst = std::max(worst, err / bound);
    }
    std::printf("%-4s attention backward %s %s D=%d B=%ld H=%ld G=%ld S=%ld lead=%zu x%.0f: worst "
                "%.3f of the bound, %zu bad of %zu\n",
                bad ? "FAIL" : "ok", names[g], Format::kIsBf16 ? "bf16" : "fp16", kD, long(B),
                long(H), long(G), long(S), lead, scale, worst, bad, ref[g].size());
    if (bad) ++failures;
  }
}

template <class Format>
void check_gemm(std::int64_t M, std::int64_t N, std::int64_t K, std::size_t lead) {
  auto a = random_values<Format>(M * K, 21, 1.0f), b = random_values<Format>(K * N, 22, 1.0f),
       bias = random_values<Format>(N, 23, 1.0f);
  DeviceBuffer da(M * K * 2), db(K * N * 2), dbias(N * 2), dy(M * N * 2);
  CHECK_CUDA(cudaMemcpy(da.at(lead), a.data(), M * K * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db.at(lead), b.data(), K * N * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dbias.at(lead), bias.data(), N * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dy.base, 0xff, M * N * 2 + 64));
  const gemm::Params p{da.at(lead), db.at(lead), dbias.at(lead), dy.at(lead), M, N, K};
  CHECK_CUDA(gemm::launch_bias_gelu_gemm<Format>(p, nullptr));
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::uint16_t> y(M * N);
  CHECK_CUDA(cudaMemcpy(y.data(), dy.at(lead), M * N * 2, cudaMemcpyDeviceToHost));
  std::vector<float> out(M * N);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = host_to_float<Format>(y[i]);
  std::vector<float> af(M * K), bt(K * N);
  for (std::size_t i = 0; i < af.size(); ++i) af[i] = host_to_float<Format>(a[i]);
  for (std::int64_t q = 0; q < K; ++q)
    for (std::int64_t j = 0; j < N; ++j) bt[j * K + q] = host_to_float<Format>(b[q * N + j]);
  std::vector<double> ref(M * N);
  parallel_for(M, [&](std::int64_t i) {
    for (std::int64_t j = 0; j < N; ++j) {
      double s = host_to_float<Format>(bias[j]);
      for (std::int64_t q = 0; q < K; ++q) s += double(af[i * K + q]) * bt[j * K + q];
      ref[i * N + j] = 0.5 * s * (1.0 + std::erf(s / std::sqrt(2.0)));
    }
  });
  char name[160];
  std::snprintf(name, sizeof name, "gemm %s M=%ld N=%ld K=%ld lead=%zu%s",
                Format::kIsBf16 ? "bf16" : "fp16", long(M), long(N), long(K), lead,
                gemm::copies_aligned(p) ? " (cp.async)" : " (2-byte staging)");
  compare(name, out, ref, Format::kIsBf16 ? 8e-3 : 2e-3);
}

template <class Launch>
float time_ms(Launch launch) {
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) launch();
  CHECK_CUDA(cudaDeviceSynchronize());
  constexpr int kReps = 20;
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < kReps; ++i) launch();
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  return ms / kReps;
}

template <class Format, int kD, bool kCausal, int kM = flash::kFlashWarpTiles>
void time_attention(std::int64_t B, std::int64_t H, std::int64_t G, std::int64_t S) {
  const std::size_t qn = B * H * S * kD, kvn = B * G * S * kD;
  auto q = random_values<Format>(qn, 1, 1.0f);
  DeviceBuffer dq(qn * 2), dk(kvn * 2), dv(kvn * 2), dout(qn * 2);
  CHECK_CUDA(cudaMemcpy(dq.at(0), q.data(), qn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dk.at(0), q.data(), kvn * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dv.at(0), q.data(), kvn * 2, cudaMemcpyHostToDevice));
  const flash::Params p{
      dq.at(0), dk.at(0), dv.at(0), dout.at(0), B, H, G, S, flash::kLog2e / std::sqrt(float(kD))};
  const float ms = time_ms([&] {
    CHECK_CUDA((flash::launch_flash_attention_tiles<Format, kD, kM, kCausal>(p, nullptr)));
  });
  const double flops = 4.0 * B * H * double(S) * S * kD * (kCausal ? 0.5 : 1.0);
  std::printf(
      "time attention (%d m16 per warp) %s D=%d%s B=%ld H=%ld G=%ld S=%ld: %.3f ms, %.1f TFLOP/s "
      "(%.1f%% of 790)\n",
      kM, Format::kIsBf16 ? "bf16" : "fp16", kD, kCausal ? " causal" : "", long(B), long(H),
      long(G), long(S), ms, flops / ms / 1e9, flops / ms / 1e9 / 7.9);
}

// Times the causal backward (both kernels, scratch preallocated). TFLOP/s counts the five causal
// products a backward needs (5 B H S^2 D flops), not the nine this one computes.
template <class Format, int kD>
void time_attention_backward(std::int64_t B, std::int64_t H, std::int64_t G, std::int64_t S) {
  const std::size_t qn = B * H * S * kD, kvn = B * G * S * kD, rows = B * H * S;
  auto x = random_values<Format>(qn, 1, 1.0f);
  DeviceBuffer dq(qn * 2), dk(kvn * 2), dv(kvn * 2), dgo(qn * 2), dgq(qn * 2), dgk(kvn * 2),
      dgv(kvn * 2), dstats(3 * rows * sizeof(float));
  for (DeviceBuffer* in : {&dq, &dgo}) {
    CHECK_CUDA(cudaMemcpy(in->at(0), x.data(), qn * 2, cudaMemcpyHostToDevice));
  }
  for (DeviceBuffer* in : {&dk, &dv}) {
    CHECK_CUDA(cudaMemcpy(in->at(0), x.data(), kvn * 2, cudaMemcpyHostToDevice));
  }
  float* stats = static_cast<float*>(dstats.base);
  const flash_backward::Params p{dq.at(0),  dk.at(0),  dv.at(0),  dgo.at(0),
                                 dgq.at(0), dgk.at(0), dgv.at(0), stats,
                                 stats + rows, stats + 2 * rows, B, H,    G,
                                 S,         1.0f / std::sqrt(float(kD)),
                                 flash::kLog2e / std::sqrt(float(kD))};
  const float ms = time_ms([&] {
    CHECK_CUDA((flash_backward::launch_flash_attention_backward<Format, kD>(p, nullptr)));
  });
  const double flops = 5.0 * B * H * double(S) * S * kD;
  std::printf("time attention backward %s D=%d causal B=%ld H=%ld G=%ld S=%ld: %.3f ms, %.1f "
              "TFLOP/s (%.1f%% of 790)\n",
              Format::kIsBf16 ? "bf16" : "fp16", kD, long(B), long(H), long(G), long(S), ms,
              flops / ms / 1e9, flops / ms / 1e9 / 7.9);
}

template <class Tiles>
const char* tile_name() {
  if constexpr (std::is_void_v<Tiles>) {
    return "chosen";
  } else {
    return Tiles::kBN == 128 ? "128-column" : "other";
  }
}

template <class Format, class Tiles = void>
void time_gemm(std::int64_t M, std::int64_t N, std::int64_t K) {
  auto a = random_values<Format>(std::max(M * K, K * N), 1, 1.0f);
  DeviceBuffer da(M * K * 2), db(K * N * 2), dbias(N * 2), dy(M * N * 2);
  CHECK_CUDA(cudaMemcpy(da.at(0), a.data(), M * K * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db.at(0), a.data(), K * N * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dbias.at(0), a.data(), N * 2, cudaMemcpyHostToDevice));
  const gemm::Params p{da.at(0), db.at(0), dbias.at(0), dy.at(0), M, N, K};
  const float ms = time_ms([&] {
    if constexpr (std::is_void_v<Tiles>) {
      CHECK_CUDA(gemm::launch_bias_gelu_gemm<Format>(p, nullptr));
    } else {
      CHECK_CUDA((gemm::launch_with_tiles<Format, Tiles>(p, nullptr)));
    }
  });
  const double flops = 2.0 * M * N * double(K);
  std::printf("time gemm (%s tiles) %s %ldx%ldx%ld: %.3f ms, %.1f TFLOP/s (%.1f%% of 790)\n",
              tile_name<Tiles>(), Format::kIsBf16 ? "bf16" : "fp16", long(M), long(N), long(K), ms,
              flops / ms / 1e9, flops / ms / 1e9 / 7.9);
}

namespace rows = rkt::cuda_kernels::low_precision_rows;
namespace ew = rkt::cuda_kernels::low_precision_elementwise;

enum class RowOp { softmax, layernorm, rmsnorm, cross_entropy, gelu, silu };
const char* name_of(RowOp op) {
  switch (op) {
    case RowOp::softmax:
      return "softmax";
    case RowOp::layernorm:
      return "layernorm";
    case RowOp::rmsnorm:
      return "rmsnorm";
    case RowOp::cross_entropy:
      return "cross_entropy";
    case RowOp::gelu:
      return "gelu";
    case RowOp::silu:
      return "silu";
  }
  return "?";
}

// Runs one row / elementwise kernel on [R, N] inputs of the given scale, offset by `lead`
// elements; returns the milliseconds per call when `timed`.
template <class Format>
float run_rows(RowOp op, std::int64_t R, std::int64_t N, std::size_t lead, float scale, bool check,
               bool timed) {
  const std::size_t n = R * N;
  auto x = random_values<Format>(n, 31, scale), w = random_values<Format>(N, 32, 1.0f),
       b = random_values<Format>(N, 33, 1.0f);
  std::vector<std::int64_t> target(R);
  for (std::int64_t r = 0; r < R; ++r) target[r] = (r * 7919) % N;
  DeviceBuffer dx(n * 2), dw(N * 2), db(N * 2), dy(n * 4), dt(R * 8);
  CHECK_CUDA(cudaMemcpy(dx.at(lead), x.data(), n * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dw.at(lead), w.data(), N * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db.at(lead), b.data(), N * 2, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dt.base, target.data(), R * 8, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dy.base, 0xff, n * 4 + 64));
  float* loss = reinterpret_cast<float*>(dy.base);
  const auto launch = [&] {
    switch (op) {
      case RowOp::softmax:
        CHECK_CUDA(rows::launch_softmax<Format>(dx.at(lead), dy.at(lead), R, N, nullptr));
        break;
      case RowOp::layernorm:
        CHECK_CUDA((rows::launch_norm<Format, false>(dx.at(lead), dw.at(lead), db.at(lead),
                                                     dy.at(lead), R, N, nullptr)));
        break;
      case RowOp::rmsnorm:
        CHECK_CUDA((rows::launch_norm<Format, true>(dx.at(lead), dw.at(lead), nullptr, dy.at(lead),
                                                    R, N, nullptr)));
        break;
      case RowOp::cross_entropy:
        CHECK_CUDA(rows::launch_cross_entropy<Format>(
            dx.at(lead), static_cast<const std::int64_t*>(dt.base), loss, R, N, nullptr));
        break;
      case RowOp::gelu:
        CHECK_CUDA(
            (ew::launch_elementwise<Format, ew::Gelu>(dx.at(lead), dy.at(lead), n, nullptr)));
        break;
      case RowOp::silu:
        CHECK_CUDA(
            (ew::launch_elementwise<Format, ew::Silu>(dx.at(lead), dy.at(lead), n, nullptr)));
        break;
    }
  };
  float ms = 0;
  if (timed) {
    ms = time_ms(launch);
    const double bytes = op == RowOp::cross_entropy ? n * 2.0 + R * 12.0 : n * 4.0;
    std::printf("time %s %s %ldx%ld: %.4f ms, %.0f GB/s (%.1f%% of 4.0 TB/s)\n", name_of(op),
                Format::kIsBf16 ? "bf16" : "fp16", long(R), long(N), ms, bytes / ms / 1e6,
                bytes / ms / 1e6 / 40.0);
  }
  if (!check) return ms;
  launch();
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<double> ref(op == RowOp::cross_entropy ? R : n);
  std::vector<float> out(ref.size());
  if (op == RowOp::cross_entropy) {
    CHECK_CUDA(cudaMemcpy(out.data(), loss, R * 4, cudaMemcpyDeviceToHost));
  } else {
    std::vector<std::uint16_t> y(n);
    CHECK_CUDA(cudaMemcpy(y.data(), dy.at(lead), n * 2, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < n; ++i) out[i] = host_to_float<Format>(y[i]);
  }
  const auto X = [&](std::int64_t r, std::int64_t j) {
    return double(host_to_float<Format>(x[r * N + j]));
  };
  parallel_for(R, [&](std::int64_t r) {
    if (op == RowOp::gelu || op == RowOp::silu) {
      for (std::int64_t j = 0; j < N; ++j) {
        const double v = X(r, j);
        ref[r * N + j] = op == RowOp::gelu ? 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)))
                                           : v / (1 + std::exp(-v));
      }
      return;
    }
    double mx = -INFINITY, sum = 0, sq = 0;
    for (std::int64_t j = 0; j < N; ++j) mx = std::max(mx, X(r, j)), sum += X(r, j);
    const double mean = sum / N;
    for (std::int64_t j = 0; j < N; ++j)
      sq += op == RowOp::rmsnorm ? X(r, j) * X(r, j) : (X(r, j) - mean) * (X(r, j) - mean);
    double se = 0;
    for (std::int64_t j = 0; j < N; ++j) se += std::exp(X(r, j) - mx);
    if (op == RowOp::cross_entropy) {
      ref[r] = mx + std::log(se) - X(r, target[r]);
      return;
    }
    for (std::int64_t j = 0; j < N; ++j) {
      const double wj = host_to_float<Format>(w[j]), bj = host_to_float<Format>(b[j]);
      double v = 0;
      if (op == RowOp::softmax) v = std::exp(X(r, j) - mx) / se;
      if (op == RowOp::layernorm) v = (X(r, j) - mean) / std::sqrt(sq / N + 1e-5) * wj + bj;
      if (op == RowOp::rmsnorm) v = X(r, j) / std::sqrt(sq / N + 1e-6) * wj;
      ref[r * N + j] = v;
    }
  });
  char label[160];
  std::snprintf(label, sizeof label, "%s %s R=%ld N=%ld lead=%zu x%g", name_of(op),
                Format::kIsBf16 ? "bf16" : "fp16", long(R), long(N), lead, scale);
  // Output rounding (2^-9 / 2^-11 relative) dominates; cross-entropy's fp32 loss is tighter.
  const double tol = op == RowOp::cross_entropy ? 1e-4 : (Format::kIsBf16 ? 8e-3 : 2e-3);
  compare(label, out, ref, tol);
  return ms;
}

}  // namespace

int main() {
  using lp::Bf16Format;
  using lp::Fp16Format;
  // LP_TIMINGS_ONLY=1: the timings alone (the checks take a minute of CPU references).
  const bool checks = std::getenv("LP_TIMINGS_ONLY") == nullptr;
  if (checks) {
    check_attention<Bf16Format, 64, false>(1, 2, 2, 1, 0, 1);
    check_attention<Bf16Format, 64, false>(2, 4, 1, 200, 0, 1);
    check_attention<Bf16Format, 128, true>(1, 8, 2, 257, 0, 1);
    check_attention<Fp16Format, 128, false>(1, 4, 4, 512, 0, 1);
    check_attention<Fp16Format, 64, true>(2, 4, 4, 100, 0, 1);
    check_attention<Bf16Format, 128, true>(1, 4, 1, 130, 1, 1);
    check_attention<Fp16Format, 64, false>(1, 2, 1, 64, 1, 1);
    check_attention<Bf16Format, 64, true>(1, 2, 2, 300, 0, 12);
    check_attention<Fp16Format, 128, true>(1, 2, 2, 1000, 0, 3);
    check_attention<Bf16Format, 128, true, 1>(1, 8, 2, 257, 0, 1);
    check_attention<Fp16Format, 64, false, 1>(1, 4, 4, 300, 1, 3);
    check_attention_backward<Bf16Format, 64>(1, 2, 2, 1, 0, 1);
    check_attention_backward<Fp16Format, 64>(2, 4, 2, 200, 1, 1);
    check_attention_backward<Bf16Format, 128>(1, 4, 1, 257, 0, 1);
    check_attention_backward<Fp16Format, 128>(1, 2, 2, 130, 1, 1);
    check_attention_backward<Bf16Format, 64>(1, 2, 1, 1000, 0, 3);
    check_gemm<Bf16Format>(512, 512, 512, 0);
    check_gemm<Fp16Format>(1000, 1032, 264, 0);
    check_gemm<Bf16Format>(257, 300, 520, 0);
    check_gemm<Fp16Format>(129, 136, 72, 1);
    check_gemm<Bf16Format>(3, 5, 7, 0);
    check_gemm<Bf16Format>(2048, 1024, 4096, 0);
    check_gemm<Fp16Format>(2000, 3000, 1000, 0);  // many blocks, tails
    check_gemm<Bf16Format>(2048, 4100, 300, 1);   // many blocks, 2-byte staging

    for (RowOp op : {RowOp::softmax, RowOp::layernorm, RowOp::rmsnorm, RowOp::cross_entropy,
                     RowOp::gelu, RowOp::silu}) {
      run_rows<Bf16Format>(op, 64, 4096, 0, 1, true, false);
      run_rows<Fp16Format>(op, 33, 1000, 0, 3, true, false);
      run_rows<Bf16Format>(op, 17, 777, 1, 1, true, false);
      run_rows<Fp16Format>(op, 5, 40000, 0, 1, true, false);
      run_rows<Bf16Format>(op, 3, 50000, 1, 1, true, false);
      run_rows<Bf16Format>(op, 8, 32768, 0, 1, true, false);
      if (op != RowOp::gelu && op != RowOp::silu && op != RowOp::softmax &&
          op != RowOp::cross_entropy) {
        run_rows<Bf16Format>(op, 4, 2048, 0, 1e20f, true, false);  // statistics overflow fp32
        run_rows<Bf16Format>(op, 4, 40000, 0, 1e20f, true, false);
      }
    }
  }
  std::printf("%d check(s) failed\n", failures);
  for (RowOp op : {RowOp::softmax, RowOp::layernorm, RowOp::rmsnorm, RowOp::gelu, RowOp::silu}) {
    run_rows<Bf16Format>(op, 4096, 8192, 0, 1, false, true);
    run_rows<Fp16Format>(op, 4096, 8192, 0, 1, false, true);
  }
  run_rows<Bf16Format>(RowOp::cross_entropy, 4096, 32768, 0, 1, false, true);
  run_rows<Bf16Format>(RowOp::cross_entropy, 1024, 128256, 0, 1, false, true);

  for (int round = 0; round < 2; ++round) {
    time_gemm<Bf16Format>(4096, 4096, 4096);
    time_attention<Bf16Format, 128, true, 1>(4, 32, 32, 4096);
    time_attention<Bf16Format, 128, true, 2>(4, 32, 32, 4096);
    time_attention<Bf16Format, 128, false, 1>(4, 32, 32, 4096);
    time_attention<Bf16Format, 128, false, 2>(4, 32, 32, 4096);
    time_attention<Bf16Format, 64, true, 1>(4, 16, 4, 2048);
    time_attention<Bf16Format, 64, true, 2>(4, 16, 4, 2048);
    time_attention<Bf16Format, 64, false, 1>(4, 16, 4, 2048);
    time_attention<Bf16Format, 64, false, 2>(4, 16, 4, 2048);
    time_attention_backward<Bf16Format, 128>(4, 32, 32, 4096);
    time_attention_backward<Bf16Format, 64>(4, 16, 4, 2048);
  }
  return failures ? 1 : 0;
}
