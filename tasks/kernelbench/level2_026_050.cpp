// KernelBench level 2 (fusions), problems 26-50, ported from ScalingIntelligence/KernelBench at
// commit 423217d as kb_l2_NNN. The porting rules and every deviation: docs/kernelbench_level2.md
// (and the header of level2_001_025.cpp).
#include "level2_support.h"

using namespace kb_level2;  // NOLINT: this file only declares tasks

// KernelBench's module also holds bias = randn(Cout, 1, 1, 1, 1), which forward never uses; the
// task leaves it out. add_input has the transposed conv's output shape (2D, 2H, 2W): its dims are
// named apart (D2, H2, W2), so D, H and W stay fixed in property tests.
RKT_TASK(kb_l2_026)
    .describe("26_ConvTranspose3d_Add_HardSwish: z = conv_transpose3d(x, 3, stride 2, padding 1, output "
              "padding 1) + add_input; y = z * hardswish(z)")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .input("add_input", {"B", "Cout", "D2", "H2", "W2"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 32}, {"Cout", 64}, {"D", 16}, {"H", 16}, {"W", 16},
                   {"D2", 32}, {"H2", 32}, {"W2", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 3}, {"H", 4}, {"W", 5},
                 {"D2", 6}, {"H2", 8}, {"W2", 10}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::conv_transpose3d(in[0], in[2], in[3], /*stride=*/2, /*padding=*/1,
                                                /*output_padding=*/1) +
                           in[1];
      return Tensors{z * at::hardswish(z)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            size(s, "Cout") + 2 * count(s, {"B", "Cout", "D2", "H2", "W2"}));
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

// num_groups keeps the module's default, 4 (get_init_inputs does not pass it).
RKT_TASK(kb_l2_027)
    .describe("27_Conv3d_HardSwish_GroupNorm_Mean: y = mean over (d, h, w) of group_norm(hardswish("
              "conv3d(x, 4, no padding)), 4 groups), shape (B, Cout)")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "4", "4", "4"}, values::fan_in_uniform("Cin,4,4,4"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,4,4,4"))
    .weight("gn_weight", {"Cout"}, values::constant(1))
    .weight("gn_bias", {"Cout"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"Cin", 3}, {"Cout", 16}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 8}, {"D", 5}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 1024)
    .domain("D", 4, 16)
    .domain("H", 4, 32)
    .domain("W", 4, 32)
    .reference([](const Tensors& in) {
      const at::Tensor y = group_norm(at::hardswish(at::conv3d(in[0], in[1], in[2])), 4, in[3], in[4]);
      return Tensors{y.mean({2, 3, 4})};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 64 * count(s, {"Cout", "Cin"}) +
                            3 * size(s, "Cout") + count(s, {"B", "Cout"}));
    })
    .flops([](const Dims& s) {
      return 2 * 64 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "D"), 4) *
             conv_out(size(s, "H"), 4) * conv_out(size(s, "W"), 4);
    });

// InstanceNorm2d on (B, 1, 1, N): each row of the linear output normalised over its N features
// (no affine parameters).
RKT_TASK(kb_l2_028)
    .describe("28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply: y = (instance_norm(x @ W^T + b, over each "
              "row) + y_in) * y_in")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .input("y", {"B", "N"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"out"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .domain("N", 2, 8192)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::linear(in[0], in[2], in[3]).unsqueeze(1).unsqueeze(1);
      const at::Tensor normed = instance_norm(z).squeeze(1).squeeze(1);
      return Tensors{(normed + in[1]) * in[1]};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + 2 * count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_029)
    .describe("29_Matmul_Mish_Mish: y = mish(mish(x @ W^T + b))")
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
      return Tensors{at::mish(at::mish(at::linear(in[0], in[1], in[2])))};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_030)
    .describe("30_Gemm_GroupNorm_Hardtanh: y = hardtanh(group_norm(x @ W^T + b, 16 groups), -2, 2)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("gn_weight", {"N"}, values::constant(1))
    .weight("gn_bias", {"N"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 64}})
    .domain("B", 1, 1024)
    .domain("K", 1, 8192)
    .reference([](const Tensors& in) {
      const at::Tensor y = group_norm(at::linear(in[0], in[1], in[2]), 16, in[3], in[4]);
      return Tensors{at::hardtanh(y, -2.0, 2.0)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 3 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_031)
    .describe("31_Conv2d_Min_Add_Multiply: y = (min(conv2d(x, 3x3, no padding), 0.5) + bias[c]) * 2")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .weight("bias", {"Cout", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 3, 128)
    .domain("W", 3, 128)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::clamp_max(at::conv2d(in[0], in[1], in[2]), 0.5);
      return Tensors{(y + in[3]) * 2.0};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            2 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_032)
    .describe("32_Conv2d_Scaling_Min: y = min over c of (conv2d(x, 3x3, no padding) * 2), keepdim")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 64}, {"Cout", 128}, {"H", 256}, {"W", 256}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 6}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 64)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 3, 256)
    .domain("W", 3, 256)
    .reference([](const Tensors& in) {
      return Tensors{std::get<0>((at::conv2d(in[0], in[1], in[2]) * 2.0).min(1, /*keepdim=*/true))};
    })
    .bytes([](const Dims& s) {
      const double out = size(s, "B") * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_033)
    .describe("33_Gemm_Scale_BatchNorm: y = batch_norm((x @ W^T + b) * scale), batch statistics")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("scale", {"N"}, values::normal())
    .weight("bn_weight", {"N"}, values::constant(1))
    .weight("bn_bias", {"N"}, values::constant(0))
    .buffer("bn_running_mean", {"N"}, values::constant(0))
    .buffer("bn_running_var", {"N"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"K", 8192}, {"N", 8192}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 2, 1024)
    .domain("K", 1, 8192)
    .domain("N", 1, 8192)
    .reference([](const Tensors& in) {
      return Tensors{batch_norm_training(at::linear(in[0], in[1], in[2]) * in[3], in[4], in[5])};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 6 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

// As in problem 3, the LayerNorm over (Cout,) acts on the last dim W' = 2W, equal to Cout (64) at
// KernelBench's shape; small_dims keep 2W = Cout and W has no domain.
RKT_TASK(kb_l2_034)
    .describe("34_ConvTranspose3d_LayerNorm_GELU_Scaling: y = gelu(layer_norm(conv_transpose3d(x, 4, "
              "stride 2, padding 1) over the last dim, eps 1e-5)) * 1.0")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "4", "4", "4"}, values::fan_in_uniform("Cout,4,4,4"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,4,4,4"))
    .weight("norm_weight", {"Cout"}, values::constant(1))
    .weight("norm_bias", {"Cout"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 32}, {"Cin", 32}, {"Cout", 64}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 8}, {"D", 3}, {"H", 4}, {"W", 4}})
    .domain("B", 1, 32)
    .domain("Cin", 1, 32)
    .domain("D", 1, 16)
    .domain("H", 1, 32)
    .reference([](const Tensors& in) {
      constexpr double kScale = 1.0;
      const at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1);
      return Tensors{at::gelu(at::layer_norm(y, {in[3].size(0)}, in[3], in[4], kNormEps)) * kScale};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 64 * count(s, {"Cin", "Cout"}) +
                            3 * size(s, "Cout") + 8 * count(s, {"B", "Cout", "D", "H", "W"}));
    })
    .flops([](const Dims& s) { return 2 * 64 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

RKT_TASK(kb_l2_035)
    .describe("35_Conv2d_Subtract_HardSwish_MaxPool_Mish: y = mish(max_pool2d(hardswish(conv2d(x, 3x3, "
              "no padding) - 0.5), 2))")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 4, 128)
    .domain("W", 4, 128)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::hardswish(at::conv2d(in[0], in[1], in[2]) - 0.5);
      return Tensors{at::mish(at::max_pool2d(y, {2, 2}))};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * pool_out(conv_out(size(s, "H"), 3), 2) *
                         pool_out(conv_out(size(s, "W"), 3), 2);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_036)
    .describe("36_ConvTranspose2d_Min_Sum_GELU_Add: y = gelu(sum over h of min over c of "
              "conv_transpose2d(x, 3x3, stride 2, padding 1, output padding 1)) + bias, shape (B, 1, 1, W')")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3"}, values::fan_in_uniform("Cout,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3"))
    .weight("bias", {"1", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 6}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 1, 128)
    .domain("W", 1, 128)
    .reference([](const Tensors& in) {
      at::Tensor y = at::conv_transpose2d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1,
                                          /*output_padding=*/1);
      y = std::get<0>(y.min(1, /*keepdim=*/true)).sum(2, /*keepdim=*/true);
      return Tensors{at::gelu(y) + in[3]};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cin", "Cout"}) +
                            size(s, "Cout") + 1 + 2 * count(s, {"B", "W"}));
    })
    .flops([](const Dims& s) { return 2 * 9 * count(s, {"B", "Cin", "H", "W", "Cout"}); });

RKT_TASK(kb_l2_037)
    .describe("37_Matmul_Swish_Sum_GroupNorm: y = group_norm(swish(x @ W^T + b) + bias, 64 groups)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("bias", {"N"}, values::normal())
    .weight("gn_weight", {"N"}, values::constant(1))
    .weight("gn_bias", {"N"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 32768}, {"K", 1024}, {"N", 4096}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 128}})
    .domain("B", 1, 32768)
    .domain("K", 1, 1024)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::linear(in[0], in[1], in[2]);
      return Tensors{group_norm(at::sigmoid(y) * y + in[3], 64, in[4], in[5])};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 4 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

// The softmax runs over all D'H'W' positions of each (b, c): outputs are of order 1/(D'H'W').
RKT_TASK(kb_l2_038)
    .describe("38_ConvTranspose3d_AvgPool_Clamp_Softmax_Multiply: y = softmax over (d, h, w) of clamp("
              "conv_transpose3d(avg_pool3d(x, 2), 3, stride 2, padding 1, output padding 1), 0, 1) * "
              "scale[c]")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("scale", {"1", "Cout", "1", "1", "1"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 32}, {"Cin", 32}, {"Cout", 64}, {"D", 32}, {"H", 64}, {"W", 64}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 4}, {"H", 6}, {"W", 8}})
    .domain("B", 1, 32)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("D", 2, 32)
    .domain("H", 2, 64)
    .domain("W", 2, 64)
    .reference([](const Tensors& in) {
      at::Tensor y = at::avg_pool3d(in[0], {2, 2, 2});
      y = at::conv_transpose3d(y, in[1], in[2], /*stride=*/2, /*padding=*/1, /*output_padding=*/1);
      y = at::clamp(y, 0.0, 1.0);
      const at::Tensor flat = at::softmax(y.flatten(2), 2);
      return Tensors{flat.view(y.sizes()) * in[3]};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * 2 * pool_out(size(s, "D"), 2) * 2 * pool_out(size(s, "H"), 2) *
                         2 * pool_out(size(s, "W"), 2);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            2 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 27 * count(s, {"B", "Cin", "Cout"}) * pool_out(size(s, "D"), 2) *
             pool_out(size(s, "H"), 2) * pool_out(size(s, "W"), 2);
    })
    .output_scale([](const Dims& s) {
      return 1 / (8 * pool_out(size(s, "D"), 2) * pool_out(size(s, "H"), 2) * pool_out(size(s, "W"), 2));
    });

RKT_TASK(kb_l2_039)
    .describe("39_Gemm_Scale_BatchNorm: y = batch_norm((x @ W^T + b) * scale), batch statistics")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("scale", {"N"}, values::normal())
    .weight("bn_weight", {"N"}, values::constant(1))
    .weight("bn_bias", {"N"}, values::constant(0))
    .buffer("bn_running_mean", {"N"}, values::constant(0))
    .buffer("bn_running_var", {"N"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 16384}, {"K", 4096}, {"N", 4096}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 2, 16384)
    .domain("K", 1, 4096)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) {
      return Tensors{batch_norm_training(at::linear(in[0], in[1], in[2]) * in[3], in[4], in[5])};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 6 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_040)
    .describe("40_Matmul_Scaling_ResidualAdd: z = x @ W^T + b; y = z * 0.5 + z")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .outputs({"y"})
    .default_dims({{"B", 16384}, {"K", 4096}, {"N", 4096}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 1, 16384)
    .domain("K", 1, 4096)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) {
      const at::Tensor z = at::linear(in[0], in[1], in[2]);
      return Tensors{z * 0.5 + z};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

// Flagged by robust-kbench's filter. Ported as it is.
RKT_TASK(kb_l2_041)
    .describe("41_Gemm_BatchNorm_GELU_ReLU: y = relu(gelu(batch_norm(x @ W^T + b))), batch statistics")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear_weight", {"N", "K"}, values::fan_in_uniform("K"))
    .weight("linear_bias", {"N"}, values::fan_in_uniform("K"))
    .weight("bn_weight", {"N"}, values::constant(1))
    .weight("bn_bias", {"N"}, values::constant(0))
    .buffer("bn_running_mean", {"N"}, values::constant(0))
    .buffer("bn_running_var", {"N"}, values::constant(1))
    .outputs({"y"})
    .default_dims({{"B", 16384}, {"K", 4096}, {"N", 4096}})
    .small_dims({{"B", 8}, {"K", 64}, {"N", 48}})
    .domain("B", 2, 16384)
    .domain("K", 1, 4096)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) {
      const at::Tensor y = batch_norm_training(at::linear(in[0], in[1], in[2]), in[3], in[4]);
      return Tensors{at::relu(at::gelu(y))};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"N", "K"}) + 5 * size(s, "N") + count(s, {"B", "N"}));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "N"); });

RKT_TASK(kb_l2_042)
    .describe("42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply: y = 10 * logsumexp over c "
              "of (mean over (h, w) of conv_transpose2d(x, 3x3) + bias[c]), shape (B, 1)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3"}, values::fan_in_uniform("Cout,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3"))
    .weight("bias", {"Cout", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 64}, {"Cout", 128}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 6}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 1, 512)
    .domain("W", 1, 512)
    .reference([](const Tensors& in) {
      at::Tensor y = at::conv_transpose2d(in[0], in[1], in[2]).mean({2, 3}, /*keepdim=*/true) + in[3];
      y = at::logsumexp(y, 1, /*keepdim=*/true).sum({2, 3});
      return Tensors{y * 10.0};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cin", "Cout"}) +
                            2 * size(s, "Cout") + size(s, "B"));
    })
    .flops([](const Dims& s) { return 2 * 9 * count(s, {"B", "Cin", "H", "W", "Cout"}); });

RKT_TASK(kb_l2_043)
    .describe("43_Conv3d_Max_LogSumExp_ReLU: y = relu(logsumexp over c of max_pool3d(conv3d(x, 3, stride 1, "
              "padding 1), 2, 2)), keepdim")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3", "3"}, values::fan_in_uniform("Cin,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 4}, {"Cin", 32}, {"Cout", 64}, {"D", 32}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 4}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 4)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("D", 2, 32)
    .domain("H", 2, 128)
    .domain("W", 2, 128)
    .reference([](const Tensors& in) {
      at::Tensor y = at::conv3d(in[0], in[1], in[2], /*stride=*/1, /*padding=*/1);
      y = at::max_pool3d(y, {2, 2, 2}, {2, 2, 2});
      return Tensors{at::relu(at::logsumexp(y, 1, /*keepdim=*/true))};
    })
    .bytes([](const Dims& s) {
      const double out = size(s, "B") * pool_out(size(s, "D"), 2) * pool_out(size(s, "H"), 2) *
                         pool_out(size(s, "W"), 2);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cout", "Cin", "D", "H", "W"}); });

// Flagged by robust-kbench's filter (the output is a per-channel mean). Ported as it is.
RKT_TASK(kb_l2_044)
    .describe("44_ConvTranspose2d_Multiply_GlobalAvgPool_GlobalAvgPool_Mean: y = mean over (h, w) of "
              "mean over (h, w) of (conv_transpose2d(x, 3x3, stride 2, padding 1, output padding 1) * 0.5), "
              "shape (B, Cout, 1, 1)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3"}, values::fan_in_uniform("Cout,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 1, 128)
    .domain("W", 1, 128)
    .reference([](const Tensors& in) {
      at::Tensor y = at::conv_transpose2d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1,
                                          /*output_padding=*/1) *
                     0.5;
      y = y.mean({2, 3}, /*keepdim=*/true);
      return Tensors{y.mean({2, 3}, /*keepdim=*/true)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cin", "Cout"}) +
                            size(s, "Cout") + count(s, {"B", "Cout"}));
    })
    .flops([](const Dims& s) { return 2 * 9 * count(s, {"B", "Cin", "H", "W", "Cout"}); });

RKT_TASK(kb_l2_045)
    .describe("45_Gemm_Sigmoid_LogSumExp: y = logsumexp over n of (sigmoid(x @ W1^T + b1) @ W2^T + b2), "
              "shape (B)")
    .input("x", {"B", "K"}, values::uniform(0, 1))
    .weight("linear1_weight", {"Hid", "K"}, values::fan_in_uniform("K"))
    .weight("linear1_bias", {"Hid"}, values::fan_in_uniform("K"))
    .weight("linear2_weight", {"N", "Hid"}, values::fan_in_uniform("Hid"))
    .weight("linear2_bias", {"N"}, values::fan_in_uniform("Hid"))
    .outputs({"y"})
    .default_dims({{"B", 16384}, {"K", 2048}, {"Hid", 4096}, {"N", 1024}})
    .small_dims({{"B", 8}, {"K", 32}, {"Hid", 64}, {"N", 16}})
    .domain("B", 1, 16384)
    .domain("K", 1, 2048)
    .domain("Hid", 1, 4096)
    .domain("N", 1, 1024)
    .reference([](const Tensors& in) {
      const at::Tensor h = at::sigmoid(at::linear(in[0], in[1], in[2]));
      return Tensors{at::logsumexp(at::linear(h, in[3], in[4]), 1)};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "K"}) + count(s, {"Hid", "K"}) + size(s, "Hid") +
                            count(s, {"N", "Hid"}) + size(s, "N") + size(s, "B"));
    })
    .flops([](const Dims& s) { return linear_flops(s, "B", "K", "Hid") + linear_flops(s, "B", "Hid", "N"); });

RKT_TASK(kb_l2_046)
    .describe("46_Conv2d_Subtract_Tanh_Subtract_AvgPool: y = avg_pool2d(tanh(conv2d(x, 3x3, no padding) - "
              "0.5) - 0.2, 2)")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 128)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 4, 128)
    .domain("W", 4, 128)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::tanh(at::conv2d(in[0], in[1], in[2]) - 0.5) - 0.2;
      return Tensors{at::avg_pool2d(y, {2, 2})};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * pool_out(conv_out(size(s, "H"), 3), 2) *
                         pool_out(conv_out(size(s, "W"), 3), 2);
      return kFloatBytes * (count(s, {"B", "Cin", "H", "W"}) + 9 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 9 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_047)
    .describe("47_Conv3d_Mish_Tanh: y = tanh(mish(conv3d(x, 3, stride 1, no padding)))")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3", "3"}, values::fan_in_uniform("Cin,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 32}, {"Cout", 64}, {"D", 32}, {"H", 64}, {"W", 64}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 5}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("D", 3, 32)
    .domain("H", 3, 64)
    .domain("W", 3, 64)
    .reference([](const Tensors& in) {
      return Tensors{at::tanh(at::mish(at::conv3d(in[0], in[1], in[2])))};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "D"), 3) *
                         conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cout", "Cin"}) +
                            size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 27 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "D"), 3) *
             conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

// KernelBench passes scaling_factor = 2 to the constructor, which does not use it: the scaling
// is a parameter randn(Cout, 1, 1, 1), like the bias.
RKT_TASK(kb_l2_048)
    .describe("48_Conv3d_Scaling_Tanh_Multiply_Sigmoid: y = sigmoid(tanh(conv3d(x, 3, no padding) * "
              "scaling[c]) * bias[c])")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cout", "Cin", "3", "3", "3"}, values::fan_in_uniform("Cin,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cin,3,3,3"))
    .weight("scaling_factor", {"Cout", "1", "1", "1"}, values::normal())
    .weight("bias", {"Cout", "1", "1", "1"}, values::normal())
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 3}, {"Cout", 16}, {"D", 16}, {"H", 64}, {"W", 64}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 5}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 128)
    .domain("Cout", 1, 16)
    .domain("D", 3, 16)
    .domain("H", 3, 64)
    .domain("W", 3, 64)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::tanh(at::conv3d(in[0], in[1], in[2]) * in[3]);
      return Tensors{at::sigmoid(y * in[4])};
    })
    .bytes([](const Dims& s) {
      const double out = count(s, {"B", "Cout"}) * conv_out(size(s, "D"), 3) *
                         conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cout", "Cin"}) +
                            3 * size(s, "Cout") + out);
    })
    .flops([](const Dims& s) {
      return 2 * 27 * count(s, {"B", "Cout", "Cin"}) * conv_out(size(s, "D"), 3) *
             conv_out(size(s, "H"), 3) * conv_out(size(s, "W"), 3);
    });

RKT_TASK(kb_l2_049)
    .describe("49_ConvTranspose3d_Softmax_Sigmoid: y = sigmoid(softmax(conv_transpose3d(x, 3, stride 2, "
              "padding 1, output padding 1), over channels))")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 32}, {"Cout", 64}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("D", 1, 16)
    .domain("H", 1, 32)
    .domain("W", 1, 32)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1,
                                                /*output_padding=*/1);
      return Tensors{at::sigmoid(at::softmax(y, 1))};
    })
    .bytes([](const Dims& s) {
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            size(s, "Cout") + 8 * count(s, {"B", "Cout", "D", "H", "W"}));
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });

// scale1 and scale2 are rank-0 parameters (nn.Parameter(torch.tensor(0.5)) and (1.0)).
RKT_TASK(kb_l2_050)
    .describe("50_ConvTranspose3d_Scaling_AvgPool_BiasAdd_Scaling: y = (avg_pool3d(conv_transpose3d(x, 3, "
              "stride 2, padding 1) * scale1, 2) + bias[c]) * scale2")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("conv_weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("conv_bias", {"Cout"}, values::fan_in_uniform("Cout,3,3,3"))
    .weight("scale1", {}, values::constant(0.5))
    .weight("bias", {"Cout", "1", "1", "1"}, values::normal())
    .weight("scale2", {}, values::constant(1.0))
    .outputs({"y"})
    .default_dims({{"B", 128}, {"Cin", 3}, {"Cout", 16}, {"D", 16}, {"H", 32}, {"W", 32}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 128)
    .domain("Cout", 1, 16)
    .domain("D", 2, 16)
    .domain("H", 2, 32)
    .domain("W", 2, 32)
    .reference([](const Tensors& in) {
      const at::Tensor y = at::conv_transpose3d(in[0], in[1], in[2], /*stride=*/2, /*padding=*/1) * in[3];
      return Tensors{(at::avg_pool3d(y, {2, 2, 2}) + in[4]) * in[5]};
    })
    .bytes([](const Dims& s) {
      // The transposed conv's output is 2n - 1 long; the pool halves it (floor): n - 1.
      const double out = count(s, {"B", "Cout"}) * (size(s, "D") - 1) * (size(s, "H") - 1) * (size(s, "W") - 1);
      return kFloatBytes * (count(s, {"B", "Cin", "D", "H", "W"}) + 27 * count(s, {"Cin", "Cout"}) +
                            2 * size(s, "Cout") + 2 + out);
    })
    .flops([](const Dims& s) { return 2 * 27 * count(s, {"B", "Cin", "D", "H", "W", "Cout"}); });
