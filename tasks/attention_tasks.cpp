// Scaled dot-product attention in bf16 and fp16: forward, causal and not, and the causal
// forward's backward task. q [B,H,S,D], k and v [B,G,S,D] -> o [B,H,S,D]; query head h reads kv
// head h / (H / G) (grouped-query attention; G == H is multi-head attention); scale 1/sqrt(D);
// causal: query i sees key j iff j <= i.
//
// The reference is at::scaled_dot_product_attention in the inputs' dtype: the judge runs it in
// float64 (ATen's math path: the softmax of the scores in float64), the eager baseline in bf16 or
// fp16 with whichever backend ATen picks for the device (flash attention on the H200). Configs:
// head dim 64 and 128, kv heads H and H/4 (H/2 on the CPU), and two sequence lengths, one not a
// multiple of 64 (the tail of a 64-wide tile). A kernel keeps its sums (scores, the softmax's running sum, P V)
// in fp32 unless it declares otherwise; the reduction the bound grows with is over the S keys.
#include <ATen/ATen.h>

#include <cmath>

#include "rkt/task.h"
#include "tasks/low_precision_formats.h"

namespace {

using rkt::ConfigChoice;
using rkt::Dims;
using rkt::TaskSpec;
using rkt::low_precision::kStorageBytes;
using rkt::low_precision::kStorageFormats;
using rkt::low_precision::StorageFormat;
using rkt::low_precision::task_id;
namespace values = rkt::values;

double d(const Dims& dims, const char* name) { return static_cast<double>(dims.at(name)); }

// q and k ~ N(0, 1.6^2): a score q.k / sqrt(D) has a standard deviation of 1.6^2 = 2.56 at every D
// (peaked rows, as trained attention has). Scaled x3 (q and k both) it is 23, and the largest of
// a case's scores lies beyond 88.7, where float32's exp overflows: a kernel that exponentiates
// without subtracting the (running) max returns Inf or NaN there. x0.01 makes every row nearly
// uniform: the output is the mean of the values, decided by the sum's rounding.
constexpr double kQueryKeyStd = 1.6;

// The sequence lengths: 2048 (a whole number of 64-wide tiles) and 80 (one tile and a partial
// one). On the CPU a config's dims are capped by the small size (S = 96, H = G = 8, D = 128:
// every config stays distinct there, at a cost CI can pay: attention's work grows with H S^2 D),
// so the CPU runs S = 96 and 80, both past a whole tile, and kv heads 8 and 4.
std::vector<ConfigChoice> sequence_lengths() {
  return {{"2048", {{"S", 2048}}, {}}, {"80", {{"S", 80}}, {}}};
}

std::vector<at::Tensor> attention(const std::vector<at::Tensor>& in, bool causal) {
  const at::Tensor &q = in[0], &k = in[1], &v = in[2];
  const bool grouped = q.size(1) != k.size(1);
  return {at::scaled_dot_product_attention(q, k, v, /*attn_mask=*/{}, /*dropout_p=*/0.0, causal,
                                           /*scale=*/std::nullopt, grouped)};
}

TaskSpec& declare_attention(const StorageFormat& f, bool causal) {
  const std::string stem = causal ? "attention_causal" : "attention";
  return rkt::register_task(task_id(stem, f), __FILE__, __LINE__)
      .describe(std::string(causal ? "causal " : "") +
                "attention o = softmax(q k^T / sqrt(D)" + (causal ? " + causal mask" : "") +
                ") v, grouped-query heads (G kv heads), " + f.suffix + " in and out")
      .input("q", {"B", "H", "S", "D"}, values::normal(0, kQueryKeyStd), f.dtype)
      .input("k", {"B", "G", "S", "D"}, values::normal(0, kQueryKeyStd), f.dtype)
      .input("v", {"B", "G", "S", "D"}, values::normal(), f.dtype)
      .outputs({"o"})
      .default_dims({{"B", 4}, {"H", 16}, {"G", 16}, {"S", 2048}, {"D", 64}})
      .small_dims({{"B", 1}, {"H", 8}, {"G", 8}, {"S", 96}, {"D", 128}})
      .domain("B", 1, 8)
      .domain("S", 1, 4096)
      .config_axis("head_dim", {{"64", {{"D", 64}}, {}}, {"128", {{"D", 128}}, {}}})
      .config_axis("kv_heads", {{"mha", {{"G", 16}}, {}}, {"gqa", {{"G", 4}}, {}}})
      .config_axis("seq", sequence_lengths())
      .reduction({"S"})
      .reference([causal](const std::vector<at::Tensor>& in) { return attention(in, causal); })
      .bytes([](const Dims& s) {
        return (2 * d(s, "B") * d(s, "H") * d(s, "S") * d(s, "D") +
                2 * d(s, "B") * d(s, "G") * d(s, "S") * d(s, "D")) *
               kStorageBytes;
      })
      .flops([causal](const Dims& s) {
        // Two products of 2 S^2 D flops per head (q k^T and p v); a causal mask halves them.
        const double full = 4 * d(s, "B") * d(s, "H") * d(s, "S") * d(s, "S") * d(s, "D");
        return causal ? full / 2 : full;
      });
}

[[maybe_unused]] const bool registered = [] {
  for (const StorageFormat& format : kStorageFormats) {
    declare_attention(format, /*causal=*/false);
    declare_attention(format, /*causal=*/true);
    // The gradients of q, k and v given grad_o (drawn N(0, 1) and stored in the format), by
    // autograd through the forward reference in float64.
    rkt::register_backward_task(task_id("attention_causal", format) + "_backward",
                                task_id("attention_causal", format), __FILE__, __LINE__);
  }
  return true;
}();

}  // namespace
