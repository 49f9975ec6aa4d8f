// Kernels that game the benchmark rather than fail it honestly: each targets one integrity gate
// (tests/unit/integrity_test.cpp checks that the gate catches it and names the trick).
#include <ATen/ATen.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "rkt/torch_kernel.h"

namespace {

void relu_into(const rkt::TensorView& x, const rkt::TensorView& y) {
  const float* in = x.data_as<const float>();
  float* out = y.data_as<float>();
  for (std::int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] > 0 ? in[i] : 0.0f;
}

// Recycled output: returns uninitialised memory, hoping the allocator hands back the block where
// the reference's output was just freed (KernelBench's known loophole).
at::Tensor relu_uninitialised(const at::Tensor& x) { return at::empty_like(x); }

// Unwritten output: writes nothing into the preallocated output.
void relu_writes_nothing(rkt::KernelCall&) {}

// Input mutation: right answer, then zeroes its input.
void relu_then_zero_input(rkt::KernelCall& call) {
  relu_into(call.input(0), call.output(0));
  std::memset(call.input(0).data, 0, call.input(0).numel() * sizeof(float));
}

// Replay keyed on the input pointer: computes once per buffer, then serves the cached result.
void relu_memoized_by_pointer(rkt::KernelCall& call) {
  static std::map<const void*, std::vector<float>> cache;
  const rkt::TensorView& y = call.output(0);
  auto found = cache.find(call.input(0).data);
  if (found == cache.end()) {
    relu_into(call.input(0), y);
    found = cache.emplace(call.input(0).data,
                          std::vector<float>(y.data_as<float>(), y.data_as<float>() + y.numel()))
                .first;
  }
  std::memcpy(y.data, found->second.data(), found->second.size() * sizeof(float));
}

// Replay keyed on call count: does the work on every third call and repeats it in between.
void relu_every_third_call(rkt::KernelCall& call) {
  static int calls = 0;
  static std::vector<float> last;
  const rkt::TensorView& y = call.output(0);
  if (calls++ % 3 == 0 || last.size() != static_cast<std::size_t>(y.numel())) {
    relu_into(call.input(0), y);
    last.assign(y.data_as<float>(), y.data_as<float>() + y.numel());
  } else {
    std::memcpy(y.data, last.data(), last.size() * sizeof(float));
  }
}

// Stale output: writes an output buffer only the first time it sees it, hoping the judge hands
// the same buffer back (it does: idle_buffer_pool.h) still holding the earlier answer.
void relu_skips_seen_output(rkt::KernelCall& call) {
  static std::set<const void*> written;
  if (written.insert(call.output(0).data).second) relu_into(call.input(0), call.output(0));
}

// Borrowed computation: calls the baseline itself.
at::Tensor softmax_borrowed(const at::Tensor& x) { return at::softmax(x, -1); }

// Escaped work (CPU): returns at once and finishes the result on a detached thread.
void relu_on_a_late_thread(rkt::KernelCall& call) {
  const rkt::TensorView x = call.input(0), y = call.output(0);
  std::thread([x, y] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    relu_into(x, y);
  }).detach();
}

// Nondeterminism: every second call loses an update (as a race would) in one element.
void relu_racy(rkt::KernelCall& call) {
  static int calls = 0;
  relu_into(call.input(0), call.output(0));
  if (calls++ % 2 == 1) call.output(0).data_as<float>()[0] += 1.0f;
}

// Lower precision: claims fp32 but rounds its operands to bfloat16.
at::Tensor matmul_in_bf16(const at::Tensor& a, const at::Tensor& b) {
  return at::matmul(a.to(at::kBFloat16).to(at::kFloat), b.to(at::kBFloat16).to(at::kFloat));
}

// Reads the hidden-input variables: they must be gone before any kernel runs.
void relu_reads_secrets(rkt::KernelCall& call) {
  relu_into(call.input(0), call.output(0));
  for (const char* name : {"RKT_SECRET_SEED", "RKT_HIDDEN_SUITE", "RKT_SECRETS_FD"}) {
    if (std::getenv(name) != nullptr) call.output(0).data_as<float>()[0] = 12345.0f;
  }
}

// Correct except at one shape the visible tests never use (a hidden suite names it).
void relu_wrong_at_5_by_7(rkt::KernelCall& call) {
  relu_into(call.input(0), call.output(0));
  if (call.input(0).size(0) == 5 && call.input(0).size(1) == 7) {
    call.output(0).data_as<float>()[0] = -1.0f;
  }
}

}  // namespace

ROBUST_KERNEL_TEST(relu, cheat_uninitialised_output, relu_uninitialised)
    .allow_operators({"aten::empty_like"})
    .describe("returns at::empty_like(x): reads whatever the allocator hands back");
ROBUST_KERNEL_TEST(relu, cheat_uninitialised_output_cuda, relu_uninitialised)
    .device(rkt::Device::cuda)
    .describe("returns at::empty_like(x) on the GPU: the caching allocator's freed blocks");
ROBUST_KERNEL_TEST(relu, cheat_writes_nothing, relu_writes_nothing)
    .describe("never writes its output");
ROBUST_KERNEL_TEST(relu, cheat_zeroes_input, relu_then_zero_input)
    .describe("right answer, then zeroes its input");
ROBUST_KERNEL_TEST(relu, cheat_memo_pointer, relu_memoized_by_pointer)
    .describe("caches results by input pointer");
ROBUST_KERNEL_TEST(relu, cheat_skips_seen_output, relu_skips_seen_output)
    .describe("writes each output buffer once, then relies on its old contents");
ROBUST_KERNEL_TEST(relu, cheat_every_third_call, relu_every_third_call)
    .describe("computes on every third call, replays in between");
ROBUST_KERNEL_TEST(softmax, cheat_borrows_softmax, softmax_borrowed)
    .describe("calls at::softmax");
ROBUST_KERNEL_TEST(softmax, waives_borrowed_gate, softmax_borrowed)
    .waive_gate(rkt::IntegrityGate::borrowed_computation, "wraps at::softmax to show a waiver")
    .describe("a waived gate: skipped, with its reason in every report");
ROBUST_KERNEL_TEST(relu, cheat_late_thread, relu_on_a_late_thread)
    .describe("finishes the output on a detached thread after returning");
ROBUST_KERNEL_TEST(relu, cheat_racy, relu_racy).describe("every second call is off by one");
ROBUST_KERNEL_TEST(matmul, cheat_bf16_claims_fp32, matmul_in_bf16)
    .allow_operators({"aten::matmul"})
    .describe("claims fp32, rounds operands to bf16");
ROBUST_KERNEL_TEST(relu, reads_secrets, relu_reads_secrets)
    .describe("fails only if the hidden-input variables are still in its environment");
ROBUST_KERNEL_TEST(relu, wrong_at_hidden_shape, relu_wrong_at_5_by_7)
    .describe("correct except at 5 x 7, a shape only a hidden suite uses");
