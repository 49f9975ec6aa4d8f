#include <cuda_runtime.h>

#include <cstdio>

#include "framework/worker/sanitizer_probe.h"

namespace rkt {
namespace {

constexpr int kProbeElements = 1 << 20;  // [floats] the buffer memcheck's probe reads past
constexpr int kProbeThreads = 64;  // [threads] two warps: racecheck reports races between them

__global__ void read_one_past_end(const float* x, float* out, int n) {
  if (threadIdx.x == 0) *out = x[n];
}

// Each thread writes its shared slot and reads the slot of a thread in the other warp, with no
// barrier between (racecheck reports races between warps, not inside one: run 19).
__global__ void unsynchronised_shared_read(int* out) {
  __shared__ int slots[kProbeThreads];
  volatile int* shared = slots;
  shared[threadIdx.x] = static_cast<int>(threadIdx.x);
  out[threadIdx.x] = shared[(threadIdx.x + 32) % kProbeThreads];
}

// Lanes 0-16 call __syncwarp with the mask of lanes 0-15: lane 16 calls a warp barrier whose
// mask leaves it out. (synccheck reported nothing on sm_90 for a block barrier half a warp
// skips, run 19: that is not what this probe plants.)
__global__ void syncwarp_mask_without_caller(int* out) {
  const unsigned lane = threadIdx.x & 31u;
  const unsigned low_lanes = __ballot_sync(0xffffffffu, lane < 16u);
  if (lane <= 16u) __syncwarp(low_lanes);
  out[threadIdx.x] = static_cast<int>(lane);
}

}  // namespace

int run_sanitizer_probe(const std::string& tool) {
  if (tool != "memcheck" && tool != "racecheck" && tool != "synccheck") {
    std::fprintf(stderr, "rkt-worker: sanitizer probe: no planted error for '%s'\n", tool.c_str());
    return 2;
  }
  void* scratch = nullptr;
  if (cudaMalloc(&scratch, kProbeThreads * sizeof(int)) != cudaSuccess) {
    std::fprintf(stderr, "rkt-worker: sanitizer probe: cudaMalloc failed\n");
    return 1;
  }
  float* buffer = nullptr;
  if (tool == "memcheck") {
    cudaMalloc(reinterpret_cast<void**>(&buffer), kProbeElements * sizeof(float));
    read_one_past_end<<<1, kProbeThreads>>>(buffer, static_cast<float*>(scratch), kProbeElements);
  } else if (tool == "racecheck") {
    unsynchronised_shared_read<<<1, kProbeThreads>>>(static_cast<int*>(scratch));
  } else {
    syncwarp_mask_without_caller<<<1, kProbeThreads>>>(static_cast<int*>(scratch));
  }
  const cudaError_t status = cudaDeviceSynchronize();
  std::fprintf(stderr, "rkt-worker: sanitizer probe %s: %s\n", tool.c_str(),
               cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}

}  // namespace rkt
