// robust-kbench's 11 hand-made tasks (SakanaAI/robust-kbench, tasks/<name>/func_*.py), ported to
// C++ as rkb_<name>, and the backward tasks of the 8 that have one. Computations, default shapes
// and weight initialisations follow robust-kbench; docs/robust_kbench_tasks.md records what was
// read there, what was inferred and what we chose where its files were not available.
//
// Configs: robust-kbench runs each task under the cartesian product of its init, input and shared
// settings; here each setting is a config axis. Where robust-kbench's own inits make part of the
// computation invisible (all-ones LayerNorm weights, zero conv biases, identity BatchNorm
// statistics), a second choice of the same axis draws them at random: a kernel must pass every
// config, so it cannot drop the parameters robust-kbench happened to initialise trivially.
#include <ATen/ATen.h>

#include <initializer_list>

#include "rkt/task.h"
#include "tasks/relation_draws.h"
#include "rkt/value_families.h"

namespace {

using rkt::ConfigChoice;
using rkt::Dims;
using Family = rkt::ValueFamily;
using rkt::relation_draws::homogeneous_in;
using rkt::relation_draws::invariant_under_affine;
namespace values = rkt::values;
using Tensors = std::vector<at::Tensor>;

constexpr double kFloatBytes = 4;           // [bytes per float32 element]
constexpr double kLayerNormEps = 1e-5;      // robust-kbench's layernorm default
constexpr double kRmsNormEps = 1e-5;        // robust-kbench takes it from a config we could not read
constexpr double kBatchNormEps = 1e-5;      // robust-kbench's resnet_block, fixed
constexpr int kPool = 2;                    // max-pool window and stride of the mnist tasks

// The product of the named dims, as a double (for byte and flop counts).
double count(const Dims& dims, std::initializer_list<const char*> names) {
  double product = 1;
  for (const char* name : names) product *= static_cast<double>(dims.at(name));
  return product;
}

// robust-kbench's init_method choices for a weight of the given fans: PyTorch's default
// ("kaiming", kaiming_uniform_ with a = sqrt(5)), xavier_normal_, and normal_ (N(0, 1)).
ConfigChoice kaiming(const char* weight, const char* fan_in) {
  return {"kaiming", {}, {{weight, values::fan_in_uniform(fan_in)}}};
}
ConfigChoice xavier(const char* weight, const char* fan_in, const char* fan_out) {
  return {"xavier", {}, {{weight, values::xavier_normal(fan_in, fan_out)}}};
}
ConfigChoice standard_normal(const char* weight) {
  return {"normal", {}, {{weight, values::normal()}}};
}

at::Tensor max_pool(const at::Tensor& x) { return at::max_pool2d(x, {kPool, kPool}); }

}  // namespace

// ---- Normalisations ----------------------------------------------------------------------------

RKT_TASK(rkb_layernorm)
    .describe("y = layer_norm(x) over its last three dims (F, D1, D2), elementwise weight and "
              "bias of shape (F, D1, D2), eps 1e-5")
    .input("x", {"B", "F", "D1", "D2"}, values::normal())
    .weight("weight", {"F", "D1", "D2"}, values::constant(1))
    .weight("bias", {"F", "D1", "D2"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"F", 64}, {"D1", 256}, {"D2", 256}})
    .small_dims({{"B", 3}, {"F", 4}, {"D1", 5}, {"D2", 7}})
    .domain("B", 1, 32)
    .domain("F", 1, 128)
    .domain("D1", 1, 256)
    .domain("D2", 1, 256)
    // "standard" is robust-kbench's ones and zeros; "random" its init_method="random" (randn).
    .config_axis("init", {{"standard", {}, {}},
                          {"random", {}, {{"weight", values::normal()}, {"bias", values::normal()}}}})
    .reference([](const Tensors& in) {
      return Tensors{at::layer_norm(in[0], in[1].sizes(), in[1], in[2], kLayerNormEps)};
    })
    .bytes([](const Dims& s) {
      return (2 * count(s, {"B", "F", "D1", "D2"}) + 2 * count(s, {"F", "D1", "D2"})) * kFloatBytes;
    })
    .flops([](const Dims& s) { return 8 * count(s, {"B", "F", "D1", "D2"}); });
RKT_BACKWARD_TASK(rkb_layernorm_backward, rkb_layernorm);
RKT_RELATION(rkb_layernorm, "affine", "layer_norm(a x + c) = layer_norm(x), a = 2^k > 0, c per sample",
             invariant_under_affine(-2, 2, 4, 1));
RKT_RELATION(rkb_layernorm_backward, "linear_in_cotangent", "the gradients scale with grad_y",
             homogeneous_in({3}));
// Offset: rows far from zero next to their spread, where E[x^2] - E[x]^2 cancels.
RKT_VALUE_FAMILIES(rkb_layernorm, {Family::offset, Family::mixed_magnitudes});

RKT_TASK(rkb_llama_rmsnorm)
    .describe("y = x * rsqrt(mean(x^2 over H) + 1e-5) * w (LLaMA's RMSNorm, w ~ N(1, 0.1))")
    .input("x", {"B", "T", "H"}, values::normal())
    .weight("w", {"H"}, values::normal(1, 0.1))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"T", 1024}, {"H", 4096}})
    .small_dims({{"B", 2}, {"T", 5}, {"H", 48}})
    .domain("B", 1, 32)
    .domain("T", 1, 2048)
    .domain("H", 1, 8192)
    .reference([](const Tensors& in) {
      const at::Tensor& x = in[0];
      return Tensors{x * at::rsqrt(x.square().mean(-1, /*keepdim=*/true) + kRmsNormEps) * in[1]};
    })
    .bytes([](const Dims& s) { return (2 * count(s, {"B", "T", "H"}) + count(s, {"H"})) * kFloatBytes; })
    .flops([](const Dims& s) { return 4 * count(s, {"B", "T", "H"}); });
RKT_BACKWARD_TASK(rkb_llama_rmsnorm_backward, rkb_llama_rmsnorm);
RKT_RELATION(rkb_llama_rmsnorm, "scale", "rmsnorm(a x) = rmsnorm(x), a = 2^k > 0",
             invariant_under_affine(-2, 2, 0));
RKT_RELATION(rkb_llama_rmsnorm_backward, "linear_in_cotangent", "the gradients scale with grad_y",
             homogeneous_in({2}));
RKT_VALUE_FAMILIES(rkb_llama_rmsnorm, {Family::mixed_magnitudes});

// ---- Linear layers -----------------------------------------------------------------------------

// robust-kbench's mnist_linear: batch 64/4 x out 10/4096 x in 128/4096, PyTorch's default init.
RKT_TASK(rkb_mnist_linear)
    .describe("y = x @ weights^T + biases")
    .input("x", {"B", "K"}, values::normal())
    .weight("weights", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("biases", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"K", 128}, {"N", 10}})
    .small_dims({{"B", 64}, {"K", 200}, {"N", 48}})
    .domain("B", 1, 256)
    .domain("K", 1, 4096)
    .domain("N", 1, 4096)
    .config_axis("batch", {{"64", {{"B", 64}}, {}}, {"4", {{"B", 4}}, {}}})
    .config_axis("out", {{"10", {{"N", 10}}, {}}, {"4096", {{"N", 4096}}, {}}})
    .config_axis("in", {{"128", {{"K", 128}}, {}}, {"4096", {{"K", 4096}}, {}}})
    .reference([](const Tensors& in) { return Tensors{at::linear(in[0], in[1], in[2])}; })
    .bytes([](const Dims& s) {
      return (count(s, {"B", "K"}) + count(s, {"N", "K"}) + count(s, {"N"}) + count(s, {"B", "N"})) *
             kFloatBytes;
    })
    .flops([](const Dims& s) { return 2 * count(s, {"B", "K", "N"}); });
RKT_BACKWARD_TASK(rkb_mnist_linear_backward, rkb_mnist_linear);
RKT_RELATION(rkb_mnist_linear, "linear", "linear(a x, W, a b) = a linear(x, W, b), a = 2^k",
             homogeneous_in({0, 2}));
RKT_RELATION(rkb_mnist_linear_backward, "linear_in_cotangent", "the gradients scale with grad_y",
             homogeneous_in({3}));

// robust-kbench's recorded run of mnist_linear_relu used one config: batch 64, in 128, out 10,
// init kaiming; the init axis adds its other two init methods.
RKT_TASK(rkb_mnist_linear_relu)
    .describe("y = relu(x @ weights^T + biases)")
    .input("x", {"B", "K"}, values::normal())
    .weight("weights", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("biases", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"K", 128}, {"N", 10}})
    .small_dims({{"B", 64}, {"K", 128}, {"N", 10}})
    .domain("B", 1, 256)
    .domain("K", 1, 4096)
    .domain("N", 1, 4096)
    .config_axis("init", {kaiming("weights", "K"), xavier("weights", "K", "N"),
                          standard_normal("weights")})
    .reference([](const Tensors& in) { return Tensors{at::relu(at::linear(in[0], in[1], in[2]))}; })
    .bytes([](const Dims& s) {
      return (count(s, {"B", "K"}) + count(s, {"N", "K"}) + count(s, {"N"}) + count(s, {"B", "N"})) *
             kFloatBytes;
    })
    .flops([](const Dims& s) { return 2 * count(s, {"B", "K", "N"}) + count(s, {"B", "N"}); });
RKT_BACKWARD_TASK(rkb_mnist_linear_relu_backward, rkb_mnist_linear_relu);
RKT_RELATION(rkb_mnist_linear_relu, "scale", "relu(linear(a x, W, a b)) = a relu(linear(x, W, b)), a = 2^k > 0",
             homogeneous_in({0, 2}));
RKT_RELATION(rkb_mnist_linear_relu_backward, "linear_in_cotangent", "the gradients scale with grad_y",
             homogeneous_in({3}));

// robust-kbench's unet_linear files were not available: a linear layer on a 3-D (batch, tokens,
// features) input, as the task is described, with PyTorch's default init.
RKT_TASK(rkb_unet_linear)
    .describe("y = x @ weights^T + biases on a (B, T, Fin) input")
    .input("x", {"B", "T", "Fin"}, values::normal())
    .weight("weights", {"Fout", "Fin"}, values::fan_in_uniform("Fin"))
    .weight("biases", {"Fout"}, values::fan_in_uniform("Fin"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"T", 1024}, {"Fin", 1024}, {"Fout", 1024}})
    .small_dims({{"B", 2}, {"T", 9}, {"Fin", 24}, {"Fout", 20}})
    .domain("B", 1, 32)
    .domain("T", 1, 2048)
    .domain("Fin", 1, 4096)
    .domain("Fout", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::linear(in[0], in[1], in[2])}; })
    .bytes([](const Dims& s) {
      return (count(s, {"B", "T", "Fin"}) + count(s, {"Fout", "Fin"}) + count(s, {"Fout"}) +
              count(s, {"B", "T", "Fout"})) *
             kFloatBytes;
    })
    .flops([](const Dims& s) { return 2 * count(s, {"B", "T", "Fin", "Fout"}); });
RKT_BACKWARD_TASK(rkb_unet_linear_backward, rkb_unet_linear);
RKT_RELATION(rkb_unet_linear, "linear", "linear(a x, W, a b) = a linear(x, W, b), a = 2^k",
             homogeneous_in({0, 2}));
RKT_RELATION(rkb_unet_linear_backward, "linear_in_cotangent", "the gradients scale with grad_y",
             homogeneous_in({3}));

RKT_TASK(rkb_llama_ffw)
    .describe("y = (silu(x @ gate_proj^T) * (x @ up_proj^T)) @ down_proj^T (LLaMA's SwiGLU MLP, "
              "no biases)")
    .input("x", {"B", "T", "H"}, values::normal())
    .weight("gate_proj", {"U", "H"}, values::fan_in_uniform("H"))
    .weight("up_proj", {"U", "H"}, values::fan_in_uniform("H"))
    .weight("down_proj", {"H", "U"}, values::fan_in_uniform("U"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"T", 1024}, {"H", 4096}, {"U", 14336}})
    .small_dims({{"B", 2}, {"T", 3}, {"H", 16}, {"U", 40}})
    .domain("B", 1, 16)
    .domain("T", 1, 1024)
    .domain("H", 1, 4096)
    .domain("U", 1, 14336)
    .reference([](const Tensors& in) {
      const at::Tensor& x = in[0];
      return Tensors{at::linear(at::silu(at::linear(x, in[1])) * at::linear(x, in[2]), in[3])};
    })
    .bytes([](const Dims& s) {
      return (2 * count(s, {"B", "T", "H"}) + 3 * count(s, {"H", "U"})) * kFloatBytes;
    })
    .flops([](const Dims& s) { return 6 * count(s, {"B", "T", "H", "U"}); });

// ---- Convolutions and pooling ------------------------------------------------------------------

RKT_TASK(rkb_mnist_conv_relu_pool)
    .describe("y = max_pool2d(relu(conv2d(x, weights, biases)), 2): 3x3 kernel, stride 1, no "
              "padding, biases ~ N(0, 0.1)")
    .input("x", {"B", "Cin", "H", "W"}, values::normal())
    .weight("weights", {"Cout", "Cin", "3", "3"}, values::normal())
    .weight("biases", {"Cout"}, values::normal(0, 0.1))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 1}, {"Cout", 32}, {"H", 28}, {"W", 28}})
    .small_dims({{"B", 3}, {"Cin", 1}, {"Cout", 6}, {"H", 12}, {"W", 10}})
    .domain("B", 1, 256)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 4, 64)
    .domain("W", 4, 64)
    .config_axis("init", {standard_normal("weights"), kaiming("weights", "Cin,3,3"),
                          xavier("weights", "Cin,3,3", "Cout,3,3")})
    .reference([](const Tensors& in) {
      return Tensors{max_pool(at::relu(at::conv2d(in[0], in[1], in[2])))};
    })
    .bytes([](const Dims& s) {
      return (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) + count(s, {"Cout"}) +
              count(s, {"B", "Cout"}) * (s.at("H") - 2) / kPool * (s.at("W") - 2) / kPool) *
             kFloatBytes;
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * (s.at("H") - 2) * (s.at("W") - 2);
    });
RKT_BACKWARD_TASK(rkb_mnist_conv_relu_pool_backward, rkb_mnist_conv_relu_pool);
RKT_RELATION(rkb_mnist_conv_relu_pool, "scale", "pool(relu(conv(a x, w, a b))) = a pool(relu(conv(x, w, b))), a = 2^k > 0",
             homogeneous_in({0, 2}));
RKT_RELATION(rkb_mnist_conv_relu_pool_backward, "linear_in_cotangent", "the gradients scale with grad_y",
             homogeneous_in({3}));

RKT_TASK(rkb_mnist_pool)
    .describe("y = max_pool2d(x, 2): window 2, stride 2, no padding")
    .input("x", {"B", "C", "H", "W"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 64}, {"C", 64}, {"H", 28}, {"W", 28}})
    .small_dims({{"B", 2}, {"C", 3}, {"H", 8}, {"W", 10}})
    .domain("B", 1, 256)
    .domain("C", 1, 256)
    .domain("H", 2, 128)
    .domain("W", 2, 128)
    .reference([](const Tensors& in) { return Tensors{max_pool(in[0])}; })
    .bytes([](const Dims& s) {
      return count(s, {"B", "C"}) * (s.at("H") * s.at("W") + (s.at("H") / kPool) * (s.at("W") / kPool)) *
             kFloatBytes;
    })
    .flops([](const Dims& s) { return count(s, {"B", "C", "H", "W"}); });
RKT_BACKWARD_TASK(rkb_mnist_pool_backward, rkb_mnist_pool);
RKT_RELATION(rkb_mnist_pool, "scale", "max_pool(a x) = a max_pool(x), a = 2^k > 0", homogeneous_in({0}));
RKT_RELATION(rkb_mnist_pool_backward, "linear_in_cotangent", "the gradient scales with grad_y",
             homogeneous_in({1}));
// Ties: equal values in a window (which one is the max must not matter to the value).
RKT_VALUE_FAMILIES(rkb_mnist_pool, {Family::ties, Family::signed_zeros_denormals});

// robust-kbench's unet_conv2d: xavier init by default, zero biases; the bias axis adds random
// biases so that a kernel must add them.
RKT_TASK(rkb_unet_conv2d)
    .describe("y = conv2d(x, weights, biases): 3x3 kernel, stride 1, zero padding 1")
    .input("x", {"B", "Cin", "H", "W"}, values::normal())
    .weight("weights", {"Cout", "Cin", "3", "3"}, values::xavier_normal("Cin,3,3", "Cout,3,3"))
    .weight("biases", {"Cout"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 64}, {"Cout", 64}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 64)
    .domain("Cin", 1, 128)
    .domain("Cout", 1, 128)
    .domain("H", 1, 128)
    .domain("W", 1, 128)
    .config_axis("init", {xavier("weights", "Cin,3,3", "Cout,3,3"), kaiming("weights", "Cin,3,3"),
                          standard_normal("weights")})
    .config_axis("bias", {{"zeros", {}, {}}, {"random", {}, {{"biases", values::normal(0, 0.1)}}}})
    .reference([](const Tensors& in) {
      return Tensors{at::conv2d(in[0], in[1], in[2], /*stride=*/{1, 1}, /*padding=*/{1, 1})};
    })
    .bytes([](const Dims& s) {
      return (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) + count(s, {"Cout"}) +
              count(s, {"B", "Cout", "H", "W"})) *
             kFloatBytes;
    })
    .flops([](const Dims& s) { return 2 * 9 * count(s, {"B", "Cout", "Cin", "H", "W"}); });

// robust-kbench's resnet_block with its Model defaults (64 channels, stride 1, no downsample),
// BatchNorm in inference mode. Its BatchNorm statistics are the identity (ones and zeros); the
// "random" choice draws them so that a kernel must apply them. Running statistics are buffers:
// the distributions scale x and the conv weights, never a variance.
RKT_TASK(rkb_resnet_block)
    .describe("y = relu(bn2(conv3x3(relu(bn1(conv3x3(x))))) + x), BatchNorm in inference mode, "
              "eps 1e-5, no conv biases")
    .input("x", {"B", "C", "H", "W"}, values::normal())
    .weight("conv1_weight", {"C", "C", "3", "3"}, values::fan_in_uniform("C,3,3"))
    .weight("bn1_weight", {"C"}, values::constant(1))
    .weight("bn1_bias", {"C"}, values::constant(0))
    .buffer("bn1_mean", {"C"}, values::constant(0))
    .buffer("bn1_var", {"C"}, values::constant(1))
    .weight("conv2_weight", {"C", "C", "3", "3"}, values::fan_in_uniform("C,3,3"))
    .weight("bn2_weight", {"C"}, values::constant(1))
    .weight("bn2_bias", {"C"}, values::constant(0))
    .buffer("bn2_mean", {"C"}, values::constant(0))
    .buffer("bn2_var", {"C"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 10}, {"C", 64}, {"H", 224}, {"W", 224}})
    .small_dims({{"B", 2}, {"C", 4}, {"H", 9}, {"W", 8}})
    .domain("B", 1, 16)
    .domain("C", 1, 64)
    .domain("H", 1, 64)
    .domain("W", 1, 64)
    .config_axis("batchnorm",
                 {{"identity", {}, {}},
                  {"random",
                   {},
                   {{"bn1_weight", values::normal(1, 0.1)}, {"bn1_bias", values::normal(0, 0.1)},
                    {"bn1_mean", values::normal(0, 0.1)}, {"bn1_var", values::uniform(0.5, 1.5)},
                    {"bn2_weight", values::normal(1, 0.1)}, {"bn2_bias", values::normal(0, 0.1)},
                    {"bn2_mean", values::normal(0, 0.1)}, {"bn2_var", values::uniform(0.5, 1.5)}}}})
    .reference([](const Tensors& in) {
      const auto batch_norm = [](const at::Tensor& y, const at::Tensor& weight, const at::Tensor& bias,
                                 const at::Tensor& mean, const at::Tensor& var) {
        return at::batch_norm(y, weight, bias, mean, var, /*training=*/false, /*momentum=*/0.1,
                              kBatchNormEps, /*cudnn_enabled=*/true);
      };
      const at::Tensor& x = in[0];
      at::Tensor out = at::conv2d(x, in[1], {}, /*stride=*/{1, 1}, /*padding=*/{1, 1});
      out = at::relu(batch_norm(out, in[2], in[3], in[4], in[5]));
      out = at::conv2d(out, in[6], {}, /*stride=*/{1, 1}, /*padding=*/{1, 1});
      out = batch_norm(out, in[7], in[8], in[9], in[10]);
      return Tensors{at::relu(out + x)};
    })
    .bytes([](const Dims& s) {
      return (2 * count(s, {"B", "C", "H", "W"}) + 18 * count(s, {"C", "C"}) + 8 * count(s, {"C"})) *
             kFloatBytes;
    })
    .flops([](const Dims& s) { return 2 * 2 * 9 * count(s, {"B", "C", "C", "H", "W"}); });

// ---- Loss --------------------------------------------------------------------------------------

// Like the core cross_entropy task, the forward task is flagged by the task filter: its output is
// a mean over the batch, which the reference computed in bf16 matches within fp32 tolerance at
// x0.01. Its backward task (per-element gradients) is not.
RKT_TASK(rkb_mnist_cross_entropy)
    .describe("loss = mean over b of -log_softmax(predictions)[b, targets[b]] (a rank-0 tensor)")
    .input("predictions", {"B", "C"}, values::normal())
    .input("targets", {"B"}, values::class_index("C"))
    .outputs({"loss"})
    .default_dims({{"B", 4096}, {"C", 10}})
    .small_dims({{"B", 64}, {"C", 10}})
    .domain("B", 1, 16384)
    .domain("C", 1, 1024)
    .reference([](const Tensors& in) { return Tensors{at::cross_entropy_loss(in[0], in[1])}; })
    .bytes([](const Dims& s) { return count(s, {"B", "C"}) * kFloatBytes + count(s, {"B"}) * 8 + 4; })
    .flops([](const Dims& s) { return 4 * count(s, {"B", "C"}); });
// The loss is a mean over B: its gradients are of order 1/B, the scale the filter judges by.
RKT_BACKWARD_TASK(rkb_mnist_cross_entropy_backward, rkb_mnist_cross_entropy)
    .output_scale([](const Dims& s) { return 1 / count(s, {"B"}); });

// Metamorphic relations of the tasks above without a backward pair next to them.
RKT_RELATION(rkb_unet_conv2d, "linear", "conv(a x, w, a b) = a conv(x, w, b), a = 2^k",
             homogeneous_in({0, 2}));
// With the primary config's identity BatchNorm statistics (mean 0, bias 0) the block is
// positively homogeneous.
RKT_RELATION(rkb_resnet_block, "scale", "block(a x) = a block(x), a = 2^k > 0 (identity BatchNorm)",
             homogeneous_in({0}));
RKT_RELATION(rkb_mnist_cross_entropy, "shift", "loss(logits + c) = loss(logits), c per row in [-8, 8]",
             invariant_under_affine(0, 0, 8));
RKT_RELATION(rkb_mnist_cross_entropy_backward, "linear_in_cotangent",
             "the gradient scales with grad_loss", homogeneous_in({2}));
