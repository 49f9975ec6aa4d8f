// KernelBench level 1, problems 26-50: the remaining activations, normalisations, pooling,
// reductions over a dim, and the first convolution.
//
// Each task is KernelBench's problem at commit 423217d (docs/kernelbench_tasks.md): the same
// computation, its module-level shapes as default_dims, its input laws (torch.rand -> U[0, 1);
// module parameters at PyTorch's default init), a small CPU size for CI. KernelBench calls its
// modules in training mode, so BatchNorm normalises with the batch's statistics. Python twins:
// tasks/twins/kb_level1.py.
#include <ATen/ATen.h>

#include <cmath>

#include "level1_support.h"
#include "rkt/task.h"

namespace {

using rkt::ConfigChoice;
using rkt::Dims;
namespace values = rkt::values;
using rkt::kernelbench::Convolution;
using rkt::kernelbench::count;
using rkt::kernelbench::float_bytes;
using rkt::kernelbench::size_of;
using rkt::kernelbench::Tensors;
using rkt::kernelbench::Window;
using rkt::kernelbench::window_output;

const Dims kActivationDims = {{"B", 4096}, {"N", 393216}};
const Dims kActivationSmallDims = {{"B", 37}, {"N", 300}};
double activation_bytes(const Dims& s) { return float_bytes(count(s, {"B", "N"}), count(s, {"B", "N"})); }
// [flops per element] a rough count for the roofline: a transcendental counts as a few.
rkt::CostFunction per_element_flops(double flops) {
  return [flops](const Dims& s) { return flops * count(s, {"B", "N"}); };
}

constexpr double kNormEps = 1e-5;          // nn.BatchNorm2d / InstanceNorm2d / GroupNorm / LayerNorm
constexpr double kBatchNormMomentum = 0.1;  // nn.BatchNorm2d's default (it does not change y)
constexpr double kRmsNormEps = 1e-5;       // problem 36's default eps

// The affine parameters of KernelBench's norm layers start at PyTorch's init (weight 1, bias 0),
// where a kernel could drop them unnoticed; the second choice draws them so that it must apply
// them (as tasks/rkb_tasks.cpp does for robust-kbench's layernorm).
std::vector<ConfigChoice> affine_init_choices() {
  return {{"pytorch", {}, {}},
          {"random", {}, {{"weight", values::normal(1, 0.1)}, {"bias", values::normal(0, 0.1)}}}};
}

double image_elements(const Dims& s) { return count(s, {"B", "C", "H", "W"}); }

// The reductions over dim 1 (47-53) take x (128, 4096, 4095).
const Dims kReductionDims = {{"B", 128}, {"D1", 4096}, {"D2", 4095}};
const Dims kReductionSmallDims = {{"B", 4}, {"D1", 48}, {"D2", 33}};
double reduction_bytes(const Dims& s) {
  return float_bytes(count(s, {"B", "D1", "D2"}), count(s, {"B", "D2"}));
}
double reduction_flops(const Dims& s) { return count(s, {"B", "D1", "D2"}); }

}  // namespace

// ---- Activations (x from U[0, 1); see level1_001_025.cpp for why 32 is flagged) -------------------

RKT_TASK(kb_l1_026)
    .describe("26_GELU_: y = x * Phi(x), the exact (erf) GELU")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::gelu(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(8));

RKT_TASK(kb_l1_027)
    .describe("27_SELU_: y = scale * (x if x > 0 else alpha (exp(x) - 1)), PyTorch's SELU constants")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::selu(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(5));

RKT_TASK(kb_l1_028)
    .describe("28_HardSigmoid: y = clamp(x / 6 + 1 / 2, 0, 1)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::hardsigmoid(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(3));

RKT_TASK(kb_l1_029)
    .describe("29_Softplus: y = log(1 + exp(x)) (beta 1, linear above x = 20)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::softplus(in[0], 1, 20)}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(5));

RKT_TASK(kb_l1_030)
    .describe("30_Softsign: y = x / (1 + abs(x))")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{in[0] / (1 + at::abs(in[0]))}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(3));

constexpr double kEluAlpha = 1.0;  // problem 31's get_init_inputs
RKT_TASK(kb_l1_031)
    .describe("31_ELU: y = x if x > 0 else exp(x) - 1 (alpha 1)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::elu(in[0], kEluAlpha)}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(4));

RKT_TASK(kb_l1_032)
    .describe("32_HardTanh: y = clamp(x, -1, 1)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::hardtanh(in[0], -1.0, 1.0)}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(2));

// ---- Normalisations ------------------------------------------------------------------------------

// Training mode: the batch's mean and biased variance per channel. The running statistics are
// only updated (a side effect KernelBench does not compare), never read, so they are not inputs.
RKT_TASK(kb_l1_033)
    .describe("33_BatchNorm: y = (x - mean) / sqrt(var + 1e-5) * weight + bias per channel, "
              "batch statistics over (B, H, W) (training mode)")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"C"}, values::constant(1))
    .weight("bias", {"C"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"C", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 3}, {"C", 4}, {"H", 9}, {"W", 10}})
    .domain("B", 1, 64)
    .domain("C", 1, 64)
    .domain("H", 2, 512)  // at least two values per channel, as training-mode BatchNorm needs
    .domain("W", 1, 512)
    .config_axis("affine", affine_init_choices())
    .reference([](const Tensors& in) {
      return Tensors{at::batch_norm(in[0], in[1], in[2], /*running_mean=*/{}, /*running_var=*/{},
                                    /*training=*/true, kBatchNormMomentum, kNormEps,
                                    /*cudnn_enabled=*/true)};
    })
    .bytes([](const Dims& s) { return float_bytes(image_elements(s) + 2 * size_of(s, "C"), image_elements(s)); })
    .flops([](const Dims& s) { return 7 * image_elements(s); });

// nn.InstanceNorm2d's defaults: no affine parameters, no running statistics.
RKT_TASK(kb_l1_034)
    .describe("34_InstanceNorm: y = (x - mean) / sqrt(var + 1e-5), statistics per (batch, "
              "channel) over (H, W), no affine parameters")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 112}, {"C", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 3}, {"C", 4}, {"H", 9}, {"W", 10}})
    .domain("B", 1, 112)
    .domain("C", 1, 64)
    .domain("H", 2, 512)  // at least two values per instance
    .domain("W", 1, 512)
    .reference([](const Tensors& in) {
      return Tensors{at::instance_norm(in[0], /*weight=*/{}, /*bias=*/{}, /*running_mean=*/{},
                                       /*running_var=*/{}, /*use_input_stats=*/true,
                                       kBatchNormMomentum, kNormEps, /*cudnn_enabled=*/true)};
    })
    .bytes([](const Dims& s) { return float_bytes(image_elements(s), image_elements(s)); })
    .flops([](const Dims& s) { return 7 * image_elements(s); });

constexpr std::int64_t kGroupNormGroups = 8;  // problem 35's num_groups
RKT_TASK(kb_l1_035)
    .describe("35_GroupNorm_: 8 groups of channels, y = (x - mean) / sqrt(var + 1e-5) * weight + "
              "bias, statistics per (batch, group)")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"C"}, values::constant(1))
    .weight("bias", {"C"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 112}, {"C", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 3}, {"C", 16}, {"H", 9}, {"W", 10}})
    .domain("B", 1, 112)  // C stays a multiple of the 8 groups: no domain
    .domain("H", 1, 512)
    .domain("W", 1, 512)
    .config_axis("affine", affine_init_choices())
    .reference([](const Tensors& in) {
      return Tensors{at::group_norm(in[0], kGroupNormGroups, in[1], in[2], kNormEps)};
    })
    .bytes([](const Dims& s) { return float_bytes(image_elements(s) + 2 * size_of(s, "C"), image_elements(s)); })
    .flops([](const Dims& s) { return 7 * image_elements(s); });

RKT_TASK(kb_l1_036)
    .describe("36_RMSNorm_: y = x / sqrt(mean(x^2 over dim 1) + 1e-5), over the channels of a "
              "(B, C, H, W) tensor, no weight")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 112}, {"C", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 3}, {"C", 5}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 112)
    .domain("C", 1, 64)
    .domain("H", 1, 512)
    .domain("W", 1, 512)
    .reference([](const Tensors& in) {
      const at::Tensor& x = in[0];
      return Tensors{x / at::sqrt(at::mean(x.pow(2), {1}, /*keepdim=*/true) + kRmsNormEps)};
    })
    .bytes([](const Dims& s) { return float_bytes(image_elements(s), image_elements(s)); })
    .flops([](const Dims& s) { return 4 * image_elements(s); });

// Every element is divided by the norm of all of them: outputs are of order 1/sqrt(numel).
RKT_TASK(kb_l1_037)
    .describe("37_FrobeniusNorm_: y = x / sqrt(sum of x^2 over the whole tensor)")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 112}, {"C", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 3}, {"C", 5}, {"H", 6}, {"W", 7}})
    .domain("B", 1, 112)
    .domain("C", 1, 64)
    .domain("H", 1, 512)
    .domain("W", 1, 512)
    .reference([](const Tensors& in) { return Tensors{in[0] / at::norm(in[0])}; })
    .bytes([](const Dims& s) { return float_bytes(image_elements(s), image_elements(s)); })
    .flops([](const Dims& s) { return 3 * image_elements(s); })
    .output_scale([](const Dims& s) { return std::sqrt(3 / image_elements(s)); });  // E[x^2] = 1/3

RKT_TASK(kb_l1_038)
    .describe("38_L1Norm_: y = x / mean(abs(x) over dim 1)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 32768}, {"N", 65535}})
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 32768)
    .domain("N", 1, 65535)
    .reference([](const Tensors& in) {
      return Tensors{in[0] / at::mean(at::abs(in[0]), {1}, /*keepdim=*/true)};
    })
    .bytes(activation_bytes)
    .flops(per_element_flops(3));

RKT_TASK(kb_l1_039)
    .describe("39_L2Norm_: y = x / sqrt(sum of x^2 over dim 1)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 32768}, {"N", 65535}})
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 32768)
    .domain("N", 1, 65535)
    .reference([](const Tensors& in) {
      return Tensors{in[0] / at::norm(in[0], 2, {1}, /*keepdim=*/true)};
    })
    .bytes(activation_bytes)
    .flops(per_element_flops(3))
    .output_scale([](const Dims& s) { return std::sqrt(3 / size_of(s, "N")); });

RKT_TASK(kb_l1_040)
    .describe("40_LayerNorm: y = layer_norm(x) over its last three dims (F, D1, D2), elementwise "
              "weight and bias of that shape, eps 1e-5")
    .input("x", {"B", "F", "D1", "D2"}, values::uniform(0, 1))
    .weight("weight", {"F", "D1", "D2"}, values::constant(1))
    .weight("bias", {"F", "D1", "D2"}, values::constant(0))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"F", 64}, {"D1", 256}, {"D2", 256}})
    .small_dims({{"B", 3}, {"F", 4}, {"D1", 5}, {"D2", 7}})
    .domain("B", 1, 16)
    .domain("F", 1, 64)
    .domain("D1", 1, 256)
    .domain("D2", 1, 256)
    .config_axis("affine", affine_init_choices())
    .reference([](const Tensors& in) {
      return Tensors{at::layer_norm(in[0], in[1].sizes(), in[1], in[2], kNormEps)};
    })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"B", "F", "D1", "D2"}) + 2 * count(s, {"F", "D1", "D2"}),
                         count(s, {"B", "F", "D1", "D2"}));
    })
    .flops([](const Dims& s) { return 8 * count(s, {"B", "F", "D1", "D2"}); });

// ---- Pooling -------------------------------------------------------------------------------------

constexpr Window kMaxPool1d{/*kernel=*/8, /*stride=*/1, /*padding=*/4, /*dilation=*/3};
RKT_TASK(kb_l1_041)
    .describe("41_Max_Pooling_1D: max over windows of 8, stride 1, padding 4, dilation 3")
    .input("x", {"B", "C", "L"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"C", 192}, {"L", 65536}})
    .small_dims({{"B", 2}, {"C", 3}, {"L", 40}})
    .domain("B", 1, 64)
    .domain("C", 1, 192)
    .domain("L", 14, 65536)  // the dilated window spans 22 of the padded L + 8
    .reference([](const Tensors& in) {
      return Tensors{at::max_pool1d(in[0], {kMaxPool1d.kernel}, {kMaxPool1d.stride},
                                    {kMaxPool1d.padding}, {kMaxPool1d.dilation})};
    })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"B", "C", "L"}),
                         count(s, {"B", "C"}) * window_output(size_of(s, "L"), kMaxPool1d));
    })
    .flops([](const Dims& s) {
      return count(s, {"B", "C"}) * window_output(size_of(s, "L"), kMaxPool1d) * kMaxPool1d.kernel;
    });

constexpr Window kMaxPool2d{/*kernel=*/4, /*stride=*/1, /*padding=*/1, /*dilation=*/1};
RKT_TASK(kb_l1_042)
    .describe("42_Max_Pooling_2D: max over 4x4 windows, stride 1, padding 1")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 32}, {"C", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 2}, {"C", 3}, {"H", 12}, {"W", 10}})
    .domain("B", 1, 32)
    .domain("C", 1, 64)
    .domain("H", 2, 512)
    .domain("W", 2, 512)
    .reference([](const Tensors& in) {
      const std::int64_t k = kMaxPool2d.kernel, st = kMaxPool2d.stride, p = kMaxPool2d.padding,
                         dl = kMaxPool2d.dilation;
      return Tensors{at::max_pool2d(in[0], {k, k}, {st, st}, {p, p}, {dl, dl})};
    })
    .bytes([](const Dims& s) {
      return float_bytes(image_elements(s), count(s, {"B", "C"}) *
                                                window_output(size_of(s, "H"), kMaxPool2d) *
                                                window_output(size_of(s, "W"), kMaxPool2d));
    })
    .flops([](const Dims& s) {
      return count(s, {"B", "C"}) * window_output(size_of(s, "H"), kMaxPool2d) *
             window_output(size_of(s, "W"), kMaxPool2d) * 16;
    });

constexpr Window kMaxPool3d{/*kernel=*/3, /*stride=*/2, /*padding=*/1, /*dilation=*/3};
namespace {
double max_pool3d_output(const Dims& s) {
  return count(s, {"B", "C"}) * window_output(size_of(s, "D"), kMaxPool3d) *
         window_output(size_of(s, "H"), kMaxPool3d) * window_output(size_of(s, "W"), kMaxPool3d);
}
}  // namespace
RKT_TASK(kb_l1_043)
    .describe("43_Max_Pooling_3D: max over 3x3x3 windows, stride 2, padding 1, dilation 3")
    .input("x", {"B", "C", "D", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"C", 32}, {"D", 128}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 2}, {"C", 2}, {"D", 9}, {"H", 10}, {"W", 11}})
    .domain("B", 1, 16)
    .domain("C", 1, 32)
    .domain("D", 5, 128)  // the dilated window spans 7 of the padded size + 2
    .domain("H", 5, 128)
    .domain("W", 5, 128)
    .reference([](const Tensors& in) {
      const std::int64_t k = kMaxPool3d.kernel, st = kMaxPool3d.stride, p = kMaxPool3d.padding,
                         dl = kMaxPool3d.dilation;
      return Tensors{at::max_pool3d(in[0], {k, k, k}, {st, st, st}, {p, p, p}, {dl, dl, dl})};
    })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"B", "C", "D", "H", "W"}), max_pool3d_output(s));
    })
    .flops([](const Dims& s) { return 27 * max_pool3d_output(s); });

// nn.AvgPool*d's defaults: zero padding counts in the average (count_include_pad), floor mode.
constexpr Window kAvgPool1d{/*kernel=*/8, /*stride=*/1, /*padding=*/4};
RKT_TASK(kb_l1_044)
    .describe("44_Average_Pooling_1D: mean over windows of 8, stride 1, zero padding 4 counted in "
              "the mean")
    .input("x", {"B", "C", "L"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"C", 128}, {"L", 65536}})
    .small_dims({{"B", 2}, {"C", 3}, {"L", 40}})
    .domain("B", 1, 64)
    .domain("C", 1, 128)
    .domain("L", 1, 65536)
    .reference([](const Tensors& in) {
      return Tensors{at::avg_pool1d(in[0], {kAvgPool1d.kernel}, {kAvgPool1d.stride},
                                    {kAvgPool1d.padding}, /*ceil_mode=*/false,
                                    /*count_include_pad=*/true)};
    })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"B", "C", "L"}),
                         count(s, {"B", "C"}) * window_output(size_of(s, "L"), kAvgPool1d));
    })
    .flops([](const Dims& s) {
      return count(s, {"B", "C"}) * window_output(size_of(s, "L"), kAvgPool1d) * kAvgPool1d.kernel;
    });

constexpr Window kAvgPool2d{/*kernel=*/11, /*stride=*/11};  // stride defaults to the kernel size
RKT_TASK(kb_l1_045)
    .describe("45_Average_Pooling_2D: mean over 11x11 windows, stride 11, no padding")
    .input("x", {"B", "C", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"C", 64}, {"H", 2048}, {"W", 2048}})
    .small_dims({{"B", 2}, {"C", 3}, {"H", 35}, {"W", 46}})
    .domain("B", 1, 16)
    .domain("C", 1, 64)
    .domain("H", 11, 2048)
    .domain("W", 11, 2048)
    .reference([](const Tensors& in) {
      const std::int64_t k = kAvgPool2d.kernel, st = kAvgPool2d.stride;
      return Tensors{at::avg_pool2d(in[0], {k, k}, {st, st}, {0, 0}, /*ceil_mode=*/false,
                                    /*count_include_pad=*/true)};
    })
    .bytes([](const Dims& s) {
      return float_bytes(image_elements(s), count(s, {"B", "C"}) *
                                                window_output(size_of(s, "H"), kAvgPool2d) *
                                                window_output(size_of(s, "W"), kAvgPool2d));
    })
    .flops([](const Dims& s) { return image_elements(s); });

constexpr Window kAvgPool3d{/*kernel=*/3, /*stride=*/2, /*padding=*/1};
namespace {
double avg_pool3d_output(const Dims& s) {
  return count(s, {"B", "C"}) * window_output(size_of(s, "D"), kAvgPool3d) *
         window_output(size_of(s, "H"), kAvgPool3d) * window_output(size_of(s, "W"), kAvgPool3d);
}
}  // namespace
RKT_TASK(kb_l1_046)
    .describe("46_Average_Pooling_3D: mean over 3x3x3 windows, stride 2, zero padding 1 counted "
              "in the mean")
    .input("x", {"B", "C", "D", "H", "W"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"C", 32}, {"D", 128}, {"H", 128}, {"W", 256}})
    .small_dims({{"B", 2}, {"C", 2}, {"D", 7}, {"H", 8}, {"W", 9}})
    .domain("B", 1, 16)
    .domain("C", 1, 32)
    .domain("D", 1, 128)
    .domain("H", 1, 128)
    .domain("W", 1, 256)
    .reference([](const Tensors& in) {
      const std::int64_t k = kAvgPool3d.kernel, st = kAvgPool3d.stride, p = kAvgPool3d.padding;
      return Tensors{at::avg_pool3d(in[0], {k, k, k}, {st, st, st}, {p, p, p},
                                    /*ceil_mode=*/false, /*count_include_pad=*/true)};
    })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"B", "C", "D", "H", "W"}), avg_pool3d_output(s));
    })
    .flops([](const Dims& s) { return 27 * avg_pool3d_output(s); });

// ---- Reductions over dim 1 -----------------------------------------------------------------------

RKT_TASK(kb_l1_047)
    .describe("47_Sum_reduction_over_a_dimension: y = sum of x over dim 1, kept as size 1")
    .input("x", {"B", "D1", "D2"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kReductionDims)
    .small_dims(kReductionSmallDims)
    .domain("B", 1, 128)
    .domain("D1", 1, 4096)
    .domain("D2", 1, 4095)
    .reference([](const Tensors& in) { return Tensors{at::sum(in[0], {1}, /*keepdim=*/true)}; })
    .bytes(reduction_bytes)
    .flops(reduction_flops)
    .output_scale([](const Dims& s) { return size_of(s, "D1") / 2; });  // D1 terms of mean 1/2

RKT_TASK(kb_l1_048)
    .describe("48_Mean_reduction_over_a_dimension: y = mean of x over dim 1")
    .input("x", {"B", "D1", "D2"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kReductionDims)
    .small_dims(kReductionSmallDims)
    .domain("B", 1, 128)
    .domain("D1", 1, 4096)
    .domain("D2", 1, 4095)
    .reference([](const Tensors& in) { return Tensors{at::mean(in[0], {1})}; })
    .bytes(reduction_bytes)
    .flops(reduction_flops);

RKT_TASK(kb_l1_049)
    .describe("49_Max_reduction_over_a_dimension: y = max of x over dim 1 (values only)")
    .input("x", {"B", "D1", "D2"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kReductionDims)
    .small_dims(kReductionSmallDims)
    .domain("B", 1, 128)
    .domain("D1", 1, 4096)
    .domain("D2", 1, 4095)
    .reference([](const Tensors& in) { return Tensors{std::get<0>(at::max(in[0], 1))}; })
    .bytes(reduction_bytes)
    .flops(reduction_flops);

// ---- Convolution ---------------------------------------------------------------------------------

// AlexNet's first layer: nn.Conv2d(3, 96, 11, stride 4, padding 2) with its default bias.
const Convolution kConv050 =
    Convolution::standard({{"H", {11, 4, 2}}, {"W", {11, 4, 2}}}).with_bias();
RKT_TASK(kb_l1_050)
    .describe("50_conv_standard_2D__square_input__square_kernel: conv2d 3 -> 96 channels, 11x11 "
              "kernel, stride 4, padding 2, with bias")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "11", "11"}, values::fan_in_uniform("Cin,11,11"))
    .weight("bias", {"Cout"}, values::fan_in_uniform("Cin,11,11"))
    .outputs({"y"})
    .default_dims({{"B", 256}, {"Cin", 3}, {"Cout", 96}, {"H", 224}, {"W", 224}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 8}, {"H", 27}, {"W", 31}})
    .domain("B", 1, 256)
    .domain("Cout", 1, 96)
    .domain("H", 7, 224)  // the padded size H + 4 must hold one 11-wide window
    .domain("W", 7, 224)
    .reference(kConv050.reference())
    .bytes(kConv050.bytes())
    .flops(kConv050.flops());
