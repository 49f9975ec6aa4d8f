// Kernels whose outputs are not final when they return: the 2026 exploit class (GPU MODE nvfp4
// group-GEMM, March 2026) where a call returns while its work still writes the outputs. Each
// passes a read-back that waits for the whole device; the outputs-final-at-return check on every
// CUDA case must catch it (tests/unit/integrity_test.cpp, on the H200). The honest control splits
// its work over two streams and joins them before returning: it must pass.
#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "rkt/cuda_check.h"
#include "rkt/kernel.h"

namespace {

__global__ void relu_range(const float* x, float* y, long long begin, long long end) {
  for (long long i = begin + blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
       i < end; i += static_cast<long long>(gridDim.x) * blockDim.x) {
    y[i] = x[i] > 0 ? x[i] : 0.0f;
  }
}

void launch_relu(const float* x, float* y, long long begin, long long end, cudaStream_t stream) {
  if (end <= begin) return;
  relu_range<<<1024, 256, 0, stream>>>(x, y, begin, end);
  RKT_CUDA_CHECK_LAUNCH();
}

cudaStream_t side_stream() {
  static cudaStream_t stream = [] {
    cudaStream_t made;
    RKT_CUDA_CHECK(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking));
    return made;
  }();
  return stream;
}

cudaEvent_t new_event() {
  cudaEvent_t event;
  RKT_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return event;
}

// Pipelines across calls: the work runs on a side stream that starts after the call stream's
// earlier work (an event), and is joined only at the start of the next call. A caller that runs
// the kernel in a loop sees correct results; one that reads the output right after the call
// reads it unfinished.
void relu_joined_at_next_call(rkt::KernelCall& call) {
  static cudaEvent_t inputs_ready = new_event();
  static cudaEvent_t side_done = new_event();
  static bool pending = false;
  const auto stream = static_cast<cudaStream_t>(call.cuda_stream());
  if (pending) RKT_CUDA_CHECK(cudaStreamWaitEvent(stream, side_done, 0));
  RKT_CUDA_CHECK(cudaEventRecord(inputs_ready, stream));
  RKT_CUDA_CHECK(cudaStreamWaitEvent(side_stream(), inputs_ready, 0));
  const rkt::TensorView& x = call.input(0);
  launch_relu(x.data_as<const float>(), call.output(0).data_as<float>(), 0, x.numel(),
              side_stream());
  RKT_CUDA_CHECK(cudaEventRecord(side_done, side_stream()));
  pending = true;
}

void CUDART_CB sleep_two_milliseconds(void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

// A host function holds the side stream for 2 ms before the work: the call stream itself is
// done at once, the outputs arrive later.
void relu_behind_host_function(rkt::KernelCall& call) {
  static cudaEvent_t inputs_ready = new_event();
  const auto stream = static_cast<cudaStream_t>(call.cuda_stream());
  RKT_CUDA_CHECK(cudaEventRecord(inputs_ready, stream));
  RKT_CUDA_CHECK(cudaStreamWaitEvent(side_stream(), inputs_ready, 0));
  RKT_CUDA_CHECK(cudaLaunchHostFunc(side_stream(), sleep_two_milliseconds, nullptr));
  const rkt::TensorView& x = call.input(0);
  launch_relu(x.data_as<const float>(), call.output(0).data_as<float>(), 0, x.numel(),
              side_stream());
}

// A persistent kernel that serves calls: it polls a mailbox in device memory, and each call
// posts its pointers there (a copy on a stream of its own, which runs beside the server) and
// returns. The server never ends, so the device never goes idle. (Mapped host memory would do
// the same; device memory needs no pinned allocation, which a sandbox may refuse.)
struct Mailbox {
  const float* x;
  float* y;
  long long n;
  int sequence;  // incremented by the host per posted call
};

__global__ void serve_relu_calls(volatile Mailbox* mailbox) {
  __shared__ int posted;
  int served = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      while (mailbox->sequence == served) {
      }
      posted = mailbox->sequence;
    }
    __syncthreads();
    const float* x = mailbox->x;
    float* y = mailbox->y;
    const long long n = mailbox->n;
    for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * blockDim.x) {
      y[i] = x[i] > 0 ? x[i] : 0.0f;
    }
    served = posted;
    __syncthreads();
  }
}

void relu_by_persistent_kernel(rkt::KernelCall& call) {
  static cudaStream_t post_stream = [] {
    cudaStream_t made;
    RKT_CUDA_CHECK(cudaStreamCreateWithFlags(&made, cudaStreamNonBlocking));
    return made;
  }();
  static Mailbox posted{};
  static Mailbox* mailbox = [] {
    Mailbox* device = nullptr;
    RKT_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&device), sizeof(Mailbox)));
    RKT_CUDA_CHECK(cudaMemsetAsync(device, 0, sizeof(Mailbox), post_stream));
    RKT_CUDA_CHECK(cudaStreamSynchronize(post_stream));
    // Blocks poll on their own and take a grid-stride share each: no grid-wide sync needed.
    serve_relu_calls<<<64, 256, 0, side_stream()>>>(device);
    RKT_CUDA_CHECK_LAUNCH();
    return device;
  }();
  // The call's inputs must be ready before the server reads them.
  RKT_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(call.cuda_stream())));
  const rkt::TensorView& x = call.input(0);
  posted.x = x.data_as<const float>();
  posted.y = call.output(0).data_as<float>();
  posted.n = x.numel();
  // The pointers first, the sequence number after them: the server may read them only then.
  RKT_CUDA_CHECK(
      cudaMemcpyAsync(mailbox, &posted, sizeof(Mailbox), cudaMemcpyHostToDevice, post_stream));
  posted.sequence += 1;
  RKT_CUDA_CHECK(cudaMemcpyAsync(&mailbox->sequence, &posted.sequence, sizeof(int),
                                 cudaMemcpyHostToDevice, post_stream));
  RKT_CUDA_CHECK(cudaStreamSynchronize(post_stream));
}

// Honest: half the work on the call stream, half on a side stream, joined before returning.
void relu_on_two_streams_joined(rkt::KernelCall& call) {
  static cudaEvent_t inputs_ready = new_event();
  static cudaEvent_t side_done = new_event();
  const auto stream = static_cast<cudaStream_t>(call.cuda_stream());
  const rkt::TensorView& x = call.input(0);
  const long long half = x.numel() / 2;
  RKT_CUDA_CHECK(cudaEventRecord(inputs_ready, stream));
  RKT_CUDA_CHECK(cudaStreamWaitEvent(side_stream(), inputs_ready, 0));
  launch_relu(x.data_as<const float>(), call.output(0).data_as<float>(), half, x.numel(),
              side_stream());
  launch_relu(x.data_as<const float>(), call.output(0).data_as<float>(), 0, half, stream);
  RKT_CUDA_CHECK(cudaEventRecord(side_done, side_stream()));
  RKT_CUDA_CHECK(cudaStreamWaitEvent(stream, side_done, 0));
}

}  // namespace

ROBUST_KERNEL_TEST(relu, late_join_next_call, relu_joined_at_next_call)
    .describe("works on a side stream joined only at its next call: outputs unfinished at return");
ROBUST_KERNEL_TEST(relu, late_host_function, relu_behind_host_function)
    .describe("a 2 ms host function ahead of its side-stream work: outputs unfinished at return");
ROBUST_KERNEL_TEST(relu, late_persistent_server, relu_by_persistent_kernel)
    .describe("a persistent kernel polling a mailbox does the work: the device never goes idle");
ROBUST_KERNEL_TEST(relu, two_streams_joined, relu_on_two_streams_joined)
    .describe("honest: splits its work over two streams and joins them before returning");
