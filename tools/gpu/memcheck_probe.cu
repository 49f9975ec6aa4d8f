// Does compute-sanitizer's memcheck name an out-of-bounds write on this machine, outside rkt?
// Run 44 (H100, 2026-12-07): the sanitized worker of relu/cuda_reads_past_end spun in
// cuStreamSynchronize, with the sandbox or without it, after the tool printed "Could not find
// CUDA Debugger back-end". This program writes one float past a cudaMalloc'd buffer and
// synchronises: under `compute-sanitizer --tool memcheck` it must end with the tool's report.
//   nvcc -o memcheck_probe memcheck_probe.cu && compute-sanitizer --tool memcheck ./memcheck_probe
#include <cstdio>

__global__ void write_one_past_end(float* y, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) y[n] = 1.0f;
}

int main() {
  const int n = 1 << 20;
  float* y = nullptr;
  if (cudaMalloc(&y, n * sizeof(float)) != cudaSuccess) return 2;
  write_one_past_end<<<1, 32>>>(y, n);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("memcheck_probe: synchronised: %s\n", cudaGetErrorString(status));
  cudaFree(y);
  return status == cudaSuccess ? 0 : 1;
}
