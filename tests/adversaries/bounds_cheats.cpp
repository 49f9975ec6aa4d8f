// Kernels that touch memory outside their buffers, or assume an alignment they never declared,
// while computing the right answer (tests/unit/adversary_test.cpp, "Bounds"): the redzones, the
// out_of_bounds case's inaccessible pages and the misaligned_pointers case must catch each. The
// honest controls (declared alignment, own scratch) must pass everything.
#include <immintrin.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "rkt/registration.h"

namespace {

void relu_into(const float* in, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[i] > 0 ? in[i] : 0.0f;
}

// A stray store that changes every byte of the element: the redzone's pattern is random, so a
// fixed value (0.0f) matched one of its four bytes about one call in 64, and the message then
// counted 3 changed bytes where the test names 4 (CI at 3b11ad1).
void store_changing_every_byte(float* element) {
  auto* bytes = reinterpret_cast<volatile unsigned char*>(element);
  for (int b = 0; b < 4; ++b) bytes[b] = static_cast<unsigned char>(~bytes[b]);
}

// Writes one element past the end of its output (an off-by-one loop bound).
void relu_writes_past_end(rkt::KernelCall& call) {
  const std::int64_t n = call.input(0).numel();
  float* out = call.output(0).data_as<float>();
  relu_into(call.input(0).data_as<const float>(), out, n);
  store_changing_every_byte(out + n);
}

// Writes one element before the start of its output (a halo written at index -1).
void relu_writes_before_start(rkt::KernelCall& call) {
  const std::int64_t n = call.input(0).numel();
  float* out = call.output(0).data_as<float>();
  relu_into(call.input(0).data_as<const float>(), out, n);
  store_changing_every_byte(out - 1);
}

// Reads one element past the end of its input (a look-ahead that ignores the last element's
// neighbour); the result is right, so only an inaccessible page after the input shows it.
void relu_reads_past_end(rkt::KernelCall& call) {
  const std::int64_t n = call.input(0).numel();
  const volatile float* in = call.input(0).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  float sink = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const float next = in[i + 1];  // in[n] on the last element
    out[i] = in[i] > 0 ? in[i] : 0.0f;
    sink += next * 0.0f;
  }
  if (sink != 0.0f) out[0] = sink;  // never: keeps the read
}

// 16-byte aligned SSE loads and stores (movaps), assumed without declaring it: a buffer offset
// by one float faults.
void relu_aligned_sse(rkt::KernelCall& call) {
  const std::int64_t n = call.input(0).numel();
  const float* in = call.input(0).data_as<const float>();
  float* out = call.output(0).data_as<float>();
  const __m128 zero = _mm_setzero_ps();
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_store_ps(out + i, _mm_max_ps(_mm_load_ps(in + i), zero));
  relu_into(in + i, out + i, n - i);
}

void relu_aligned_sse_undeclared(rkt::KernelCall& call) { relu_aligned_sse(call); }

// The honest control: the same loads, declared with requires_alignment(16), and checked.
void relu_aligned_sse_checked(rkt::KernelCall& call) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (!aligned(call.input(0).data) || !aligned(call.output(0).data)) {
    throw std::invalid_argument("relu/aligned_sse_declared needs 16-byte aligned buffers");
  }
  relu_aligned_sse(call);
}

// The honest control with scratch memory of its own, written past what the output holds.
void relu_own_scratch(rkt::KernelCall& call) {
  const std::int64_t n = call.input(0).numel();
  std::vector<float> scratch(static_cast<std::size_t>(n) + 64, -1.0f);
  relu_into(call.input(0).data_as<const float>(), scratch.data(), n);
  for (std::size_t i = static_cast<std::size_t>(n); i < scratch.size(); ++i) scratch[i] = 0.0f;
  float* out = call.output(0).data_as<float>();
  for (std::int64_t i = 0; i < n; ++i) out[i] = scratch[static_cast<std::size_t>(i)];
}

}  // namespace

ROBUST_KERNEL_TEST(relu, oob_writes_past_end, relu_writes_past_end)
    .describe("writes one element past the end of its output");
ROBUST_KERNEL_TEST(relu, oob_writes_before_start, relu_writes_before_start)
    .describe("writes one element before the start of its output");
ROBUST_KERNEL_TEST(relu, oob_reads_past_end, relu_reads_past_end)
    .describe("reads one element past the end of its input");
ROBUST_KERNEL_TEST(relu, aligned_sse_undeclared, relu_aligned_sse_undeclared)
    .describe("16-byte aligned SSE loads, alignment not declared");
ROBUST_KERNEL_TEST(relu, aligned_sse_declared, relu_aligned_sse_checked)
    .requires_alignment(16)
    .describe("16-byte aligned SSE loads, declared and checked (honest)");
ROBUST_KERNEL_TEST(relu, own_scratch, relu_own_scratch).describe("scratch memory of its own (honest)");
