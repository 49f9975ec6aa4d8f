// Does compute-sanitizer's memcheck name an access one past a buffer on this machine, outside
// rkt, on memory the process allocated itself and on memory mapped from another process by CUDA
// IPC (as rkt's workers map the judge's buffers)? Run 44 (H100, 2026-12-07): the sanitized worker
// of relu/cuda_reads_past_end spun in cuStreamSynchronize, with the sandbox or without it, and
// the tool printed "Could not find CUDA Debugger back-end"; run 16 (H200) saw memcheck name a
// write past the end in rkt's own process.
//   nvcc -o memcheck_probe memcheck_probe.cu
//   compute-sanitizer --tool memcheck ./memcheck_probe own   # the buffer is the process's own
//   compute-sanitizer --tool memcheck ./memcheck_probe ipc   # a child maps its parent's buffer
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

__global__ void read_one_past_end(const float* x, float* sum, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *sum = x[n];
}

namespace {

constexpr int kElements = 1 << 20;

int read_past_end_of(const float* x, const char* whose) {
  float* sum = nullptr;
  cudaMalloc(&sum, sizeof(float));
  read_one_past_end<<<1, 32>>>(x, sum, kElements);
  const cudaError_t status = cudaDeviceSynchronize();
  std::printf("memcheck_probe (%s buffer): synchronised: %s\n", whose, cudaGetErrorString(status));
  std::fflush(stdout);
  return status == cudaSuccess ? 0 : 1;
}

int own() {
  float* x = nullptr;
  if (cudaMalloc(&x, kElements * sizeof(float)) != cudaSuccess) return 2;
  return read_past_end_of(x, "own");
}

// The child is forked before the parent touches CUDA; the handle goes through a pipe.
int ipc() {
  int channel[2];
  if (pipe(channel) != 0) return 2;
  const pid_t child = fork();
  if (child == 0) {
    cudaIpcMemHandle_t handle;
    if (read(channel[0], &handle, sizeof(handle)) != static_cast<ssize_t>(sizeof(handle))) _exit(2);
    void* mapped = nullptr;
    if (cudaIpcOpenMemHandle(&mapped, handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) _exit(3);
    _exit(read_past_end_of(static_cast<const float*>(mapped), "IPC-mapped"));
  }
  float* x = nullptr;
  cudaIpcMemHandle_t handle;
  if (cudaMalloc(&x, kElements * sizeof(float)) != cudaSuccess) return 2;
  if (cudaIpcGetMemHandle(&handle, x) != cudaSuccess) return 2;
  if (write(channel[1], &handle, sizeof(handle)) != static_cast<ssize_t>(sizeof(handle))) return 2;
  int status = 0;
  waitpid(child, &status, 0);
  std::printf("memcheck_probe: the child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  return argc > 1 && std::strcmp(argv[1], "ipc") == 0 ? ipc() : own();
}
