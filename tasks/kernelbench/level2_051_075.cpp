// KernelBench level 2 (fusions), problems 51-75, ported from ScalingIntelligence/KernelBench at
// commit 423217d as kb_l2_NNN. The porting rules and every deviation: docs/kernelbench_level2.md
// (and the header of level2_001_025.cpp).
#include "level2_support.h"

using namespace kb_level2;  // NOLINT: this file only declares tasks

// After the mean over features, the logsumexp acts on a dim of size 1 (an identity); the
// reference applies it as KernelBench does. The residual adds x itself, broadcast per row.
RKT_TASK(kb_l2_051)
    .describe("51_Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd: y = gelu(logsumexp(mean over n "
              "of (x @ W^T + b - subtract))) + x, shape (B, K)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("subtract", {"N"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 2048}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 2048)
    .domain("K", 1, 8192)
    .domain("N", 1, 8192)
    .reference([](const Tensors& in) {
      at::Tensor y = (at::linear(in[0], in[1], in[2]) - in[3]).mean(1, /*keepdim=*/true);
      y = at::gelu(at::logsumexp(y, 1, /*keepdim=*/true));
      return Tensors{y + in[0]};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (2 * count(s, {"B", "K"}) + count(s, {"N", "K"}) + 2 * size(s, "N"));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_052)
    .describe("52_Conv2d_Activation_BatchNorm: z = conv2d(x, 3x3, no padding); y = batch_norm(tanh("
              "softplus(z)) * z), batch statistics")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .weight("bn_weight", {"Cout"}, values::constant(1))
    .weight("bn_bias", {"Cout"}, values::constant(0))
    .buffer("bn_running_mean", {"Cout"}, values::constant(0))
    .buffer("bn_running_var", {"Cout"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 64)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 4, 128)
    .domain("W", 4, 128)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::conv2d(in[0], in[1], in[2]);
      return Tensors{batch_norm_training(at::tanh(at::softplus(z)) * z, in[3], in[4])};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            5 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_053)
    .describe("53_Gemm_Scaling_Hardtanh_GELU: y = gelu(hardtanh((x @ W^T + b) * 0.5, -2, 2))")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 2048}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 2048)
    .domain("K", 1, 8192)
    .domain("N", 1, 8192)
    .reference([](const Tensors& in) {
      return Tensors{at::gelu(at::hardtanh(at::linear(in[0], in[1], in[2]) * 0.5, -2.0, 2.0))};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_054)
    .describe("54_Conv2d_Multiply_LeakyReLU_GELU: y = gelu(leaky_relu(conv2d(x, 3x3, no padding) * "
              "multiplier[c], 0.01))")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .weight("multiplier", {"Cout", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 64}, {"Cout", 64}, {"H", 256}, {"W", 256}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 64)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 64)
    .domain("H", 3, 256)
    .domain("W", 3, 256)
    .reference([](const Tensors& in) {
      return Tensors{at::gelu(at::leaky_relu(at::conv2d(in[0], in[1], in[2]) * in[3], 0.01))};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            2 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_055)
    .describe("55_Matmul_MaxPool_Sum_Scale: y[b] = 0.5 * sum of max_pool1d(x @ W^T + b, 2) over the "
              "features, shape (B)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"K", 32768}, {"N", 32768}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 128)
    .domain("K", 1, 32768)
    .domain("N", 2, 32768)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::max_pool1d(at::linear(in[0], in[1], in[2]).unsqueeze(1), {2}).squeeze(1);
      return Tensors{y.sum(1) * 0.5};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + size(s, "B"));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_056)
    .describe("56_Matmul_Sigmoid_Sum: y[b] = sum over n of sigmoid(x @ W^T + b), shape (B, 1)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"K", 32768}, {"N", 32768}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 128)
    .domain("K", 1, 32768)
    .domain("N", 1, 32768)
    .reference([](const Tensors& in) {
      return Tensors{at::sigmoid(at::linear(in[0], in[1], in[2])).sum(1, /*keepdim=*/true)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + size(s, "B"));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_057)
    .describe("57_Conv2d_ReLU_HardSwish: z = relu(conv2d(x, 3x3, no padding)); y = z * clamp((z + 3) / 6, "
              "0, 1)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 8}, {"Cout", 64}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 3, 128)
    .domain("W", 3, 128)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::relu(at::conv2d(in[0], in[1], in[2]));
      return Tensors{z * at::clamp((z + 3) / 6, 0.0, 1.0)};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

// bias_shape is passed to the constructor and unused: the bias is randn(1, 1, 1, 1).
RKT_TASK(kb_l2_058)
    .describe("58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp: z = logsumexp over c of "
              "conv_transpose3d(x, 3, stride 2, padding 1), keepdim; y = clamp(z * sigmoid(z + 3) / 6 - "
              "bias, -1, 1)")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("bias", {"1", "1", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 3}, {"Cout", 16}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 128)
    .domain("Cout", 1, 16)
    .domain("D", 1, 16)
    .domain("H", 1, 32)
    .domain("W", 1, 32)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1);
      const at::Tensor z = at::logsumexp(y, 1, /*keepdim=*/true);
      return Tensors{at::clamp(z * at::sigmoid(z + 3) / 6 - in[3], -1.0, 1.0)};
    })
    .bytes([](const Dims& s) {
      const double out = size(s, "B") * (2 * size(s, "D") - 1) * (2 * size(s, "H") - 1) * (2 * size(s, "W") - 1);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            size(s, "Cout") + 1 + out);
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

RKT_TASK(kb_l2_059)
    .describe("59_Matmul_Swish_Scaling: z = x @ W^T + b; y = z * sigmoid(z) * 2")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"K", 32768}, {"N", 32768}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 128)
    .domain("K", 1, 32768)
    .domain("N", 1, 32768)
    .reference([](const Tensors& in) {
      return Tensors{swish(at::linear(in[0], in[1], in[2])) * 2.0};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_060)
    .describe("60_ConvTranspose3d_Swish_GroupNorm_HardSwish: y = hardswish(group_norm(swish("
              "conv_transpose3d(x, 3, stride 2, padding 1)), 4 groups, eps 1e-5))")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("gn_weight", {"Cout"}, values::constant(1))
    .weight("gn_bias", {"Cout"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 3}, {"Cout", 16}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 8}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 128)
    .domain("D", 1, 16)
    .domain("H", 1, 32)
    .domain("W", 1, 32)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1);
      return Tensors{at::hardswish(group_norm(at::sigmoid(y) * y, 4, in[3], in[4]))};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * (2 * size(s, "D") - 1) * (2 * size(s, "H") - 1) *
                         (2 * size(s, "W") - 1);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            3 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

// KernelBench's get_init_inputs passes bias = False: the transposed conv has no bias.
RKT_TASK(kb_l2_061)
    .describe("61_ConvTranspose3d_ReLU_GroupNorm: y = group_norm(relu(conv_transpose3d(x, 3, stride 1, no "
              "bias)), 8 groups)")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("gn_weight", {"Cout"}, values::constant(1))
    .weight("gn_bias", {"Cout"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 64}, {"Cout", 128}, {"D", 32}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 16}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 64)
    .domain("D", 1, 32)
    .domain("H", 1, 32)
    .domain("W", 1, 32)
    .reference([](const Tensors& in) {
      return Tensors{group_norm(at::relu(at::conv_transpose3d(in[0], in[1])), 8, in[2], in[3])};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * (size(s, "D") + 2) * (size(s, "H") + 2) * (size(s, "W") + 2);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            2 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

// 512 groups: the CPU size keeps N a multiple of 512.
RKT_TASK(kb_l2_062)
    .describe("62_Matmul_GroupNorm_LeakyReLU_Sum: z = leaky_relu(group_norm(x @ W^T + b, 512 groups), "
              "0.01); y = z + z")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("gn_weight", {"N"}, values::constant(1))
    .weight("gn_bias", {"N"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 4}, {"K", 32}, {"N", 1024}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::leaky_relu(group_norm(at::linear(in[0], in[1], in[2]), 512, in[3], in[4]), 0.01);
      return Tensors{z + z};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 3 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_063)
    .describe("63_Gemm_ReLU_Divide: y = relu(x @ W^T + b) / 2")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .domain("N", 1, 8192)
    .reference([](const Tensors& in) { return Tensors{at::relu(at::linear(in[0], in[1], in[2])) / 2.0}; })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_064)
    .describe("64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU: y = gelu(gelu(leaky_relu(leaky_relu("
              "logsumexp over n of (x @ W^T + b), 0.01), 0.01))), shape (B, 1)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .domain("N", 1, 8192)
    .reference([](const Tensors& in) {
      at::Tensor y = at::logsumexp(at::linear(in[0], in[1], in[2]), 1, /*keepdim=*/true);
      y = at::leaky_relu(at::leaky_relu(y, 0.01), 0.01);
      return Tensors{at::gelu(at::gelu(y))};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + size(s, "B"));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_065)
    .describe("65_Conv2d_AvgPool_Sigmoid_Sum: y[b] = sum over (c, h, w) of sigmoid(avg_pool2d(conv2d(x, "
              "3x3, no padding), 4)), shape (B)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 8}, {"Cout", 64}, {"H", 384}, {"W", 384}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 14}, {"W", 15}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 6, 384)
    .domain("W", 6, 384)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::sigmoid(at::avg_pool2d(at::conv2d(in[0], in[1], in[2]), {4, 4}));
      return Tensors{y.sum({1, 2, 3})};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + size(s, "B"));
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

// Dropout is random: its keep mask (Bernoulli(0.8), p = 0.2) is an input, as in the core dropout
// task, and kept elements are scaled by 1 / 0.8 (nn.Dropout in training mode).
constexpr double kDropout66Keep = 0.8;  // [probability] of keeping an element
RKT_TASK(kb_l2_066)
    .describe("66_Matmul_Dropout_Softmax: y = softmax((x @ W^T + b) * keep / 0.8, over features), keep a "
              "given Bernoulli(0.8) mask")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .input("keep", {"B", "N"}, values::bernoulli(kDropout66Keep), rkt::DType::int32)
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"K", 16384}, {"N", 16384}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 128)
    .domain("K", 1, 16384)
    .domain("N", 1, 16384)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::linear(in[0], in[2], in[3]);
      return Tensors{at::softmax(y * in[1].to(y.scalar_type()) / kDropout66Keep, 1)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + 2 * count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); })
    .output_scale([](const Dims& s) { return 1 / size(s, "N"); });  // Each row sums to 1.

RKT_TASK(kb_l2_067)
    .describe("67_Conv2d_GELU_GlobalAvgPool: y = mean over (h, w) of gelu(conv2d(x, 3x3, no padding)), "
              "shape (B, Cout)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 8}, {"Cout", 64}, {"H", 256}, {"W", 256}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 3, 256)
    .domain("W", 3, 256)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::adaptive_avg_pool2d(at::gelu(at::conv2d(in[0], in[1], in[2])), {1, 1});
      return Tensors{y.squeeze(-1).squeeze(-1)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + count(s, {"B", "Cout"}));
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

// The constant is a rank-0 parameter (nn.Parameter(torch.tensor(2.0))).
RKT_TASK(kb_l2_068)
    .describe("68_Matmul_Min_Subtract: z = x @ W^T + b; y = min(z, constant) - constant")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("constant", {}, values::constant(2.0))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"K", 16384}, {"N", 16384}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 128)
    .domain("K", 1, 16384)
    .domain("N", 1, 16384)
    .reference([](const Tensors& in) {
      return Tensors{at::minimum(at::linear(in[0], in[1], in[2]), in[3]) - in[3]};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + 1 + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_069)
    .describe("69_Conv2d_HardSwish_ReLU: y = relu(hardswish(conv2d(x, 3x3, no padding)))")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 8}, {"Cout", 64}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 3, 128)
    .domain("W", 3, 128)
    .reference([](const Tensors& in) {
      return Tensors{at::relu(at::hardswish(at::conv2d(in[0], in[1], in[2])))};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_070)
    .describe("70_Gemm_Sigmoid_Scaling_ResidualAdd: z = x @ W^T + b; y = sigmoid(z) * 2 + z")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .domain("N", 1, 8192)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::linear(in[0], in[1], in[2]);
      return Tensors{at::sigmoid(z) * 2.0 + z};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_071)
    .describe("71_Conv2d_Divide_LeakyReLU: y = leaky_relu(conv2d(x, 3x3, no padding) / 2, 0.01)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 8}, {"Cout", 64}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 3, 128)
    .domain("W", 3, 128)
    .reference([](const Tensors& in) {
      return Tensors{at::leaky_relu(at::conv2d(in[0], in[1], in[2]) / 2.0, 0.01)};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

// bias_shape is passed to the constructor and unused.
RKT_TASK(kb_l2_072)
    .describe("72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool: y = avg_pool3d(avg_pool3d(batch_norm("
              "conv_transpose3d(x, 3, stride 2, padding 1)), 2), 2), batch statistics")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("bn_weight", {"Cout"}, values::constant(1))
    .weight("bn_bias", {"Cout"}, values::constant(0))
    .buffer("bn_running_mean", {"Cout"}, values::constant(0))
    .buffer("bn_running_var", {"Cout"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 3}, {"Cout", 16}, {"D", 32}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 5}, {"H", 5}, {"W", 6}})
    .domain("B", 1, 64)
    .domain("Cout", 1, 16)
    .domain("D", 3, 32)
    .domain("H", 3, 32)
    .domain("W", 3, 32)
    .reference([](const Tensors& in) {
      at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1);
      y = batch_norm_training(y, in[3], in[4]);
      return Tensors{at::avg_pool3d(at::avg_pool3d(y, {2, 2, 2}), {2, 2, 2})};
    })
    .bytes([](const Dims& s) {
      // Each side: 2n - 1 after the transposed conv, then halved (floor) twice.
      const auto side = [&](const char* dim) { return pool_out(pool_out(2 * size(s, dim) - 1, 2), 2); };
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            5 * size(s, "Cout") + count(s, {"B", "Cout"}) * side("D") * side("H") * side("W"));
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

RKT_TASK(kb_l2_073)
    .describe("73_Conv2d_BatchNorm_Scaling: y = batch_norm(conv2d(x, 3x3, no padding)) * 2, batch statistics")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .weight("bn_weight", {"Cout"}, values::constant(1))
    .weight("bn_bias", {"Cout"}, values::constant(0))
    .buffer("bn_running_mean", {"Cout"}, values::constant(0))
    .buffer("bn_running_var", {"Cout"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 8}, {"Cout", 64}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 8)
    .domain("Cout", 1, 64)
    .domain("H", 4, 128)
    .domain("W", 4, 128)
    .reference([](const Tensors& in) {
      return Tensors{batch_norm_training(at::conv2d(in[0], in[1], in[2]), in[3], in[4]) * 2.0};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            5 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_074)
    .describe("74_ConvTranspose3d_LeakyReLU_Multiply_LeakyReLU_Max: y = max_pool3d(leaky_relu(leaky_relu("
              "conv_transpose3d(x, 3, stride 2, padding 1, output padding 1), 0.2) * multiplier[c], 0.2), 2)")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("multiplier", {"Cout", "1", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 16}, {"Cout", 32}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 16)
    .domain("Cout", 1, 32)
    .domain("D", 1, 16)
    .domain("H", 1, 32)
    .domain("W", 1, 32)
    .reference([](const Tensors& in) {
      at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1,
                                          /*output_padding=*/1);
      y = at::leaky_relu(at::leaky_relu(y, 0.2) * in[3], 0.2);
      return Tensors{at::max_pool3d(y, {2, 2, 2})};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            2 * size(s, "Cout") + count(s, {"B", "Cout", "D", "H", "W"}));
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

// The bias has shape (1, N, 1, 1) and the row minimum (B, 1): broadcasting gives an output of
// shape (1, N, B, 1), as in KernelBench. 512 groups: the CPU size keeps N a multiple of 512.
RKT_TASK(kb_l2_075)
    .describe("75_Gemm_GroupNorm_Min_BiasAdd: y = min over n of group_norm(x @ W^T + b, 512 groups), "
              "keepdim, + bias (1, N, 1, 1), broadcast to shape (1, N, B, 1)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("gn_weight", {"N"}, values::constant(1))
    .weight("gn_bias", {"N"}, values::constant(0))
    .weight("bias", {"1", "N", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 4}, {"K", 32}, {"N", 1024}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .reference([](const Tensors& in) {
      const at::Tensor y = group_norm(at::linear(in[0], in[1], in[2]), 512, in[3], in[4]);
      return Tensors{std::get<0>(y.min(1, /*keepdim=*/true)) + in[5]};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 4 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });
