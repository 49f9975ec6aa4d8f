// What the outputs-final-at-return check costs per CUDA call, measured on the H200: one hash of
// the outputs in stream order at return, a device-wide synchronisation, and a second hash
// (framework/runtime/outputs_final_at_return.cpp), timed on the host around each, at the
// sizes the cases run at. A benchmark, not a test.
//
//   nvcc -std=c++17 -arch=sm_90 -O3 -I. -o /tmp/fingerprint_cost \
//     tests/kernel_gpu_check/fingerprint_cost.cu framework/runtime/output_fingerprint_kernel.cu
//   /tmp/fingerprint_cost
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "framework/runtime/output_fingerprint_kernel.h"

namespace {

// One pass as the check makes it: zero the slot, hash, copy the hash back, wait for the stream.
void hash_once(const void* data, std::size_t bytes, std::uint64_t* slot, std::uint64_t* host,
               cudaStream_t stream) {
  cudaMemsetAsync(slot, 0, sizeof(std::uint64_t), stream);
  rkt::enqueue_byte_hash(data, bytes, slot, stream);
  cudaMemcpyAsync(host, slot, sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream);
  cudaStreamSynchronize(stream);
}

}  // namespace

int main() {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  std::uint64_t *slot, *host;
  cudaMalloc(&slot, sizeof(std::uint64_t));
  cudaMallocHost(&host, sizeof(std::uint64_t));
  // relu's sanitizer size (37 x 301 floats), a CPU-test size, 4096^2 and 8192^2 floats (the CUDA
  // correctness size of the elementwise tasks: 256 MiB).
  for (std::size_t bytes : {std::size_t{37 * 301 * 4}, std::size_t{1} << 20, std::size_t{64} << 20,
                            std::size_t{256} << 20}) {
    void* data;
    cudaMalloc(&data, bytes);
    cudaMemset(data, 1, bytes);
    std::vector<double> samples;
    for (int s = 0; s < 50; ++s) {
      const auto start = std::chrono::steady_clock::now();
      hash_once(data, bytes, slot, host, stream);
      cudaDeviceSynchronize();
      hash_once(data, bytes, slot, host, stream);
      samples.push_back(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(samples.begin(), samples.end());
    std::printf("outputs-final check, %zu bytes: median %.1f us, max %.1f us per call (%.1f GB/s "
                "per hash)\n",
                bytes, samples[samples.size() / 2], samples.back(),
                2.0 * bytes / (samples[samples.size() / 2] * 1e3));
    cudaFree(data);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
