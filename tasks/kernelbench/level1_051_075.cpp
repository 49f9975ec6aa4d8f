// KernelBench level 1, problems 51-75: arg/min reductions, then convolutions and transposed
// convolutions in 1, 2 and 3 dims.
//
// Each task is KernelBench's problem at commit 423217d (docs/kernelbench_tasks.md): the same
// computation, its module-level shapes as default_dims, x from torch.rand (U[0, 1)), weights at
// PyTorch's default init (U[-1/sqrt(fan_in), 1/sqrt(fan_in)], fan_in = weight.size(1) times
// the kernel volume: Cin/groups * k for nn.Conv*d, Cout/groups * k for nn.ConvTranspose*d), no
// bias (bias=False in every module here). The CPU sizes keep each problem's kernel, stride,
// padding, dilation, groups and rank and shrink batch, channels and extent. One Convolution value
// per task (level1_support.h) gives its reference, bytes and flops. Python twins:
// tasks/twins/kb_level1.py.
#include <ATen/ATen.h>

#include "level1_support.h"
#include "rkt/task.h"

namespace {

using rkt::Dims;
namespace values = rkt::values;
using rkt::kernelbench::Convolution;
using rkt::kernelbench::count;
using rkt::kernelbench::float_bytes;
using rkt::kernelbench::kFloatBytes;
using rkt::kernelbench::kIndexBytes;
using rkt::kernelbench::Tensors;

const Dims kReductionDims = {{"B", 128}, {"D1", 4096}, {"D2", 4095}};
const Dims kReductionSmallDims = {{"B", 4}, {"D1", 48}, {"D2", 33}};

}  // namespace

// ---- Reductions over dim 1 -----------------------------------------------------------------------
// U[0, 1) draws have no ties, so the index of the extreme is unique; the index outputs are int64.

RKT_TASK(kb_l1_051)
    .describe("51_Argmax_over_a_dimension: y = argmax of x over dim 1 (int64)")
    .input("x", {"B", "D1", "D2"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kReductionDims)
    .small_dims(kReductionSmallDims)
    .domain("B", 1, 128)
    .domain("D1", 1, 4096)
    .domain("D2", 1, 4095)
    .reference([](const Tensors& in) { return Tensors{at::argmax(in[0], 1)}; })
    .bytes([](const Dims& s) { return count(s, {"B", "D1", "D2"}) * kFloatBytes + count(s, {"B", "D2"}) * kIndexBytes; })
    .flops([](const Dims& s) { return count(s, {"B", "D1", "D2"}); });

RKT_TASK(kb_l1_052)
    .describe("52_Argmin_over_a_dimension: y = argmin of x over dim 1 (int64)")
    .input("x", {"B", "D1", "D2"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kReductionDims)
    .small_dims(kReductionSmallDims)
    .domain("B", 1, 128)
    .domain("D1", 1, 4096)
    .domain("D2", 1, 4095)
    .reference([](const Tensors& in) { return Tensors{at::argmin(in[0], 1)}; })
    .bytes([](const Dims& s) { return count(s, {"B", "D1", "D2"}) * kFloatBytes + count(s, {"B", "D2"}) * kIndexBytes; })
    .flops([](const Dims& s) { return count(s, {"B", "D1", "D2"}); });

RKT_TASK(kb_l1_053)
    .describe("53_Min_reduction_over_a_dimension: y = min of x over dim 1 (values only)")
    .input("x", {"B", "D1", "D2"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kReductionDims)
    .small_dims(kReductionSmallDims)
    .domain("B", 1, 128)
    .domain("D1", 1, 4096)
    .domain("D2", 1, 4095)
    .reference([](const Tensors& in) { return Tensors{std::get<0>(at::min(in[0], 1))}; })
    .bytes([](const Dims& s) { return float_bytes(count(s, {"B", "D1", "D2"}), count(s, {"B", "D2"})); })
    .flops([](const Dims& s) { return count(s, {"B", "D1", "D2"}); });

// ---- Convolutions --------------------------------------------------------------------------------

const Convolution kConv054 = Convolution::standard({{"D", {3}}, {"W", {3}}, {"H", {3}}});
RKT_TASK(kb_l1_054)
    .describe("54_conv_standard_3D__square_input__square_kernel: conv3d 3 -> 64 channels, 3x3x3 "
              "kernel, stride 1, no padding")
    .input("x", {"B", "Cin", "D", "W", "H"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3", "3", "3"}, values::fan_in_uniform("Cin,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 3}, {"Cout", 64}, {"D", 64}, {"W", 64}, {"H", 64}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"D", 6}, {"W", 7}, {"H", 8}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 3)
    .domain("Cout", 1, 64)
    .domain("D", 3, 64)
    .domain("W", 3, 64)
    .domain("H", 3, 64)
    .reference(kConv054.reference())
    .bytes(kConv054.bytes())
    .flops(kConv054.flops());

const Convolution kConv055 = Convolution::standard({{"H", {3}}, {"W", {3}}});
RKT_TASK(kb_l1_055)
    .describe("55_conv_standard_2D__asymmetric_input__square_kernel: conv2d 64 -> 128 channels, "
              "3x3 kernel, on 512 x 1024 images")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 64}, {"Cout", 128}, {"H", 512}, {"W", 1024}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 6}, {"H", 10}, {"W", 14}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 3, 512)
    .domain("W", 3, 1024)
    .reference(kConv055.reference())
    .bytes(kConv055.bytes())
    .flops(kConv055.flops());

const Convolution kConv056 = Convolution::standard({{"H", {5}}, {"W", {7}}});
RKT_TASK(kb_l1_056)
    .describe("56_conv_standard_2D__asymmetric_input__asymmetric_kernel: conv2d 64 -> 128 "
              "channels, 5x7 kernel, on 512 x 256 images")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "5", "7"}, values::fan_in_uniform("Cin,5,7"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 64}, {"Cout", 128}, {"H", 512}, {"W", 256}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 5}, {"H", 12}, {"W", 11}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 5, 512)
    .domain("W", 7, 256)
    .reference(kConv056.reference())
    .bytes(kConv056.bytes())
    .flops(kConv056.flops());

const Convolution kConv057 = Convolution::transposed_over({{"H", {3}}, {"W", {3}}});
RKT_TASK(kb_l1_057)
    .describe("57_conv_transposed_2D__square_input__square_kernel: conv_transpose2d 64 -> 64 "
              "channels, 3x3 kernel, stride 1")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "3"}, values::fan_in_uniform("Cout,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 64}, {"Cout", 64}, {"H", 1024}, {"W", 1024}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 5}, {"H", 9}, {"W", 10}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 64)
    .domain("H", 1, 1024)
    .domain("W", 1, 1024)
    .reference(kConv057.reference())
    .bytes(kConv057.bytes())
    .flops(kConv057.flops());

const Convolution kConv058 = Convolution::transposed_over({{"D", {3}}, {"H", {5}}, {"W", {7}}});
RKT_TASK(kb_l1_058)
    .describe("58_conv_transposed_3D__asymmetric_input__asymmetric_kernel: conv_transpose3d 32 "
              "-> 16 channels, 3x5x7 kernel, stride 1")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "5", "7"}, values::fan_in_uniform("Cout,3,5,7"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 32}, {"Cout", 16}, {"D", 16}, {"H", 32}, {"W", 64}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 2}, {"D", 4}, {"H", 5}, {"W", 6}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 16)
    .domain("D", 1, 16)
    .domain("H", 1, 32)
    .domain("W", 1, 64)
    .reference(kConv058.reference())
    .bytes(kConv058.bytes())
    .flops(kConv058.flops());

// KernelBench's x is (batch, in, height, width, depth) and its kernel (3, 3, 1).
const Convolution kConv059 = Convolution::standard({{"H", {3}}, {"W", {3}}, {"D", {1}}});
RKT_TASK(kb_l1_059)
    .describe("59_conv_standard_3D__asymmetric_input__square_kernel: conv3d 3 -> 64 channels, "
              "3x3x1 kernel, on 256 x 256 x 10 volumes")
    .input("x", {"B", "Cin", "H", "W", "D"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3", "3", "1"}, values::fan_in_uniform("Cin,3,3,1"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 3}, {"Cout", 64}, {"H", 256}, {"W", 256}, {"D", 10}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 9}, {"W", 10}, {"D", 4}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 3)
    .domain("Cout", 1, 64)
    .domain("H", 3, 256)
    .domain("W", 3, 256)
    .domain("D", 1, 10)
    .reference(kConv059.reference())
    .bytes(kConv059.bytes())
    .flops(kConv059.flops());

// KernelBench's x is (batch, in, width, height, depth); the kernel (3, 5, 7) follows that order.
const Convolution kConv060 = Convolution::standard({{"W", {3}}, {"H", {5}}, {"D", {7}}});
RKT_TASK(kb_l1_060)
    .describe("60_conv_standard_3D__square_input__asymmetric_kernel: conv3d 3 -> 64 channels, "
              "3x5x7 kernel, on 64^3 volumes")
    .input("x", {"B", "Cin", "W", "H", "D"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3", "5", "7"}, values::fan_in_uniform("Cin,3,5,7"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 3}, {"Cout", 64}, {"W", 64}, {"H", 64}, {"D", 64}})
    .small_dims({{"B", 1}, {"Cin", 3}, {"Cout", 4}, {"W", 6}, {"H", 8}, {"D", 10}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 3)
    .domain("Cout", 1, 64)
    .domain("W", 3, 64)
    .domain("H", 5, 64)
    .domain("D", 7, 64)
    .reference(kConv060.reference())
    .bytes(kConv060.bytes())
    .flops(kConv060.flops());

const Convolution kConv061 = Convolution::transposed_over({{"D", {3}}, {"H", {3}}, {"W", {3}}});
RKT_TASK(kb_l1_061)
    .describe("61_conv_transposed_3D__square_input__square_kernel: conv_transpose3d 48 -> 48 "
              "channels, 3x3x3 kernel, stride 1")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 48}, {"Cout", 48}, {"D", 64}, {"H", 64}, {"W", 64}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 3}, {"D", 4}, {"H", 5}, {"W", 6}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 48)
    .domain("Cout", 1, 48)
    .domain("D", 1, 64)
    .domain("H", 1, 64)
    .domain("W", 1, 64)
    .reference(kConv061.reference())
    .bytes(kConv061.bytes())
    .flops(kConv061.flops());

const Convolution kConv062 = Convolution::standard({{"H", {5}}, {"W", {9}}});
RKT_TASK(kb_l1_062)
    .describe("62_conv_standard_2D__square_input__asymmetric_kernel: conv2d 32 -> 64 channels, "
              "5x9 kernel, on 512 x 512 images")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "5", "9"}, values::fan_in_uniform("Cin,5,9"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 32}, {"Cout", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 12}, {"W", 14}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("H", 5, 512)
    .domain("W", 9, 512)
    .reference(kConv062.reference())
    .bytes(kConv062.bytes())
    .flops(kConv062.flops());

const Convolution kConv063 = Convolution::standard({{"H", {3}}, {"W", {3}}});
RKT_TASK(kb_l1_063)
    .describe("63_conv_standard_2D__square_input__square_kernel: conv2d 16 -> 128 channels, 3x3 "
              "kernel, on 1024 x 1024 images")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3", "3"}, values::fan_in_uniform("Cin,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 16}, {"Cout", 128}, {"H", 1024}, {"W", 1024}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 5}, {"H", 11}, {"W", 12}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 16)
    .domain("Cout", 1, 128)
    .domain("H", 3, 1024)
    .domain("W", 3, 1024)
    .reference(kConv063.reference())
    .bytes(kConv063.bytes())
    .flops(kConv063.flops());

const Convolution kConv064 = Convolution::transposed_over({{"L", {3}}});
RKT_TASK(kb_l1_064)
    .describe("64_conv_transposed_1D: conv_transpose1d 128 -> 128 channels, kernel 3, stride 1")
    .input("x", {"B", "Cin", "L"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3"}, values::fan_in_uniform("Cout,3"))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 128}, {"Cout", 128}, {"L", 65536}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 5}, {"L", 30}})
    .domain("B", 1, 64)
    .domain("Cin", 1, 128)
    .domain("Cout", 1, 128)
    .domain("L", 1, 65536)
    .reference(kConv064.reference())
    .bytes(kConv064.bytes())
    .flops(kConv064.flops());

const Convolution kConv065 = Convolution::transposed_over({{"H", {3}}, {"W", {7}}});
RKT_TASK(kb_l1_065)
    .describe("65_conv_transposed_2D__square_input__asymmetric_kernel: conv_transpose2d 64 -> 64 "
              "channels, 3x7 kernel, stride 1")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "7"}, values::fan_in_uniform("Cout,3,7"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 64}, {"Cout", 64}, {"H", 512}, {"W", 512}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 3}, {"H", 9}, {"W", 8}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 64)
    .domain("H", 1, 512)
    .domain("W", 1, 512)
    .reference(kConv065.reference())
    .bytes(kConv065.bytes())
    .flops(kConv065.flops());

const Convolution kConv066 = Convolution::standard({{"D", {3}}, {"H", {5}}, {"W", {7}}});
RKT_TASK(kb_l1_066)
    .describe("66_conv_standard_3D__asymmetric_input__asymmetric_kernel: conv3d 3 -> 64 channels, "
              "3x5x7 kernel, on 16 x 128 x 128 volumes")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3", "5", "7"}, values::fan_in_uniform("Cin,3,5,7"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 3}, {"Cout", 64}, {"D", 16}, {"H", 128}, {"W", 128}})
    .small_dims({{"B", 1}, {"Cin", 3}, {"Cout", 4}, {"D", 5}, {"H", 8}, {"W", 10}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 3)
    .domain("Cout", 1, 64)
    .domain("D", 3, 16)
    .domain("H", 5, 128)
    .domain("W", 7, 128)
    .reference(kConv066.reference())
    .bytes(kConv066.bytes())
    .flops(kConv066.flops());

const Convolution kConv067 = Convolution::standard({{"L", {3}}});
RKT_TASK(kb_l1_067)
    .describe("67_conv_standard_1D: conv1d 64 -> 128 channels, kernel 3, stride 1")
    .input("x", {"B", "Cin", "L"}, values::uniform(0, 1))
    .weight("weight", {"Cout", "Cin", "3"}, values::fan_in_uniform("Cin,3"))
    .outputs({"y"})
    .default_dims({{"B", 32}, {"Cin", 64}, {"Cout", 128}, {"L", 131072}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 6}, {"L", 40}})
    .domain("B", 1, 32)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("L", 3, 131072)
    .reference(kConv067.reference())
    .bytes(kConv067.bytes())
    .flops(kConv067.flops());

// KernelBench's x is (batch, in, depth, width, height), its kernel (depth 3, width 5, height 5).
const Convolution kConv068 = Convolution::transposed_over({{"D", {3}}, {"W", {5}}, {"H", {5}}});
RKT_TASK(kb_l1_068)
    .describe("68_conv_transposed_3D__square_input__asymmetric_kernel: conv_transpose3d 32 -> 64 "
              "channels, 3x5x5 kernel, stride 1")
    .input("x", {"B", "Cin", "D", "W", "H"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "5", "5"}, values::fan_in_uniform("Cout,3,5,5"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 32}, {"Cout", 64}, {"D", 64}, {"W", 64}, {"H", 64}})
    .small_dims({{"B", 1}, {"Cin", 3}, {"Cout", 4}, {"D", 4}, {"W", 5}, {"H", 6}})
    .domain("B", 1, 16)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("D", 1, 64)
    .domain("W", 1, 64)
    .domain("H", 1, 64)
    .reference(kConv068.reference())
    .bytes(kConv068.bytes())
    .flops(kConv068.flops());

const Convolution kConv069 = Convolution::transposed_over({{"H", {3}}, {"W", {5}}});
RKT_TASK(kb_l1_069)
    .describe("69_conv_transposed_2D__asymmetric_input__asymmetric_kernel: conv_transpose2d 64 -> "
              "128 channels, 3x5 kernel, stride 1")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "5"}, values::fan_in_uniform("Cout,3,5"))
    .outputs({"y"})
    .default_dims({{"B", 64}, {"Cin", 64}, {"Cout", 128}, {"H", 128}, {"W", 256}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 5}, {"H", 7}, {"W", 9}})
    .domain("B", 1, 64)
    .domain("Cin", 1, 64)
    .domain("Cout", 1, 128)
    .domain("H", 1, 128)
    .domain("W", 1, 256)
    .reference(kConv069.reference())
    .bytes(kConv069.bytes())
    .flops(kConv069.flops());

const Convolution kConv070 = Convolution::transposed_over({{"D", {3}}, {"H", {3}}, {"W", {3}}});
RKT_TASK(kb_l1_070)
    .describe("70_conv_transposed_3D__asymmetric_input__square_kernel: conv_transpose3d 48 -> 24 "
              "channels, 3x3x3 kernel, stride 1")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 48}, {"Cout", 24}, {"D", 96}, {"H", 96}, {"W", 96}})
    .small_dims({{"B", 1}, {"Cin", 4}, {"Cout", 2}, {"D", 5}, {"H", 4}, {"W", 6}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 48)
    .domain("Cout", 1, 24)
    .domain("D", 1, 96)
    .domain("H", 1, 96)
    .domain("W", 1, 96)
    .reference(kConv070.reference())
    .bytes(kConv070.bytes())
    .flops(kConv070.flops());

const Convolution kConv071 = Convolution::transposed_over({{"H", {3}}, {"W", {3}}});
RKT_TASK(kb_l1_071)
    .describe("71_conv_transposed_2D__asymmetric_input__square_kernel: conv_transpose2d 32 -> 32 "
              "channels, 3x3 kernel, stride 1, on 512 x 1024 images")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "3"}, values::fan_in_uniform("Cout,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 32}, {"Cout", 32}, {"H", 512}, {"W", 1024}})
    .small_dims({{"B", 2}, {"Cin", 3}, {"Cout", 4}, {"H", 7}, {"W", 12}})
    .domain("B", 1, 8)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 32)
    .domain("H", 1, 512)
    .domain("W", 1, 1024)
    .reference(kConv071.reference())
    .bytes(kConv071.bytes())
    .flops(kConv071.flops());

// 4 groups: the weight is (Cin, Cout/4, k...), CoutG = Cout/4. Cin stays a multiple of 4 (no
// domain). Output sizes: (D-1)*2 - 2p + (k-1) + 1 + 1 per dim, i.e. 2D, 2H, 2W.
const Convolution kConv072 =
    Convolution::transposed_over(
        {{"D", {3, 2, 1, 1, 1}}, {"H", {5, 2, 2, 1, 1}}, {"W", {7, 2, 3, 1, 1}}})
        .grouped(4);
RKT_TASK(kb_l1_072)
    .describe("72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_: "
              "conv_transpose3d 32 -> 32 channels, 3x5x7 kernel, stride 2, padding (1, 2, 3), "
              "output padding 1, 4 groups")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "CoutG", "3", "5", "7"}, values::fan_in_uniform("CoutG,3,5,7"))
    .outputs({"y"})
    .default_dims({{"B", 8}, {"Cin", 32}, {"CoutG", 8}, {"D", 12}, {"H", 24}, {"W", 48}})
    .small_dims({{"B", 1}, {"Cin", 8}, {"CoutG", 2}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 8)
    .domain("CoutG", 1, 8)
    .domain("D", 1, 12)
    .domain("H", 1, 24)
    .domain("W", 1, 48)
    .reference(kConv072.reference())
    .bytes(kConv072.bytes())
    .flops(kConv072.flops());

// KernelBench's get_init_inputs passes (in, out, k, stride, padding, groups=4) positionally to an
// __init__ whose sixth parameter is output_padding, and the module does not forward
// output_padding: the layer KernelBench builds and times has groups = 1. We port what it runs.
const Convolution kConv073 =
    Convolution::transposed_over({{"D", {3, 2, 1}}, {"H", {3, 2, 1}}, {"W", {3, 2, 1}}});
RKT_TASK(kb_l1_073)
    .describe("73_conv_transposed_3D_asymmetric_input_square_kernel__strided_padded__grouped: "
              "conv_transpose3d 32 -> 32 channels, 3x3x3 kernel, stride 2, padding 1, 1 group "
              "(as KernelBench's module is built)")
    .input("x", {"B", "Cin", "D", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "3", "3", "3"}, values::fan_in_uniform("Cout,3,3,3"))
    .outputs({"y"})
    .default_dims({{"B", 4}, {"Cin", 32}, {"Cout", 32}, {"D", 32}, {"H", 64}, {"W", 128}})
    .small_dims({{"B", 1}, {"Cin", 3}, {"Cout", 4}, {"D", 3}, {"H", 4}, {"W", 5}})
    .domain("B", 1, 4)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 32)
    .domain("D", 1, 32)
    .domain("H", 1, 64)
    .domain("W", 1, 128)
    .reference(kConv073.reference())
    .bytes(kConv073.bytes())
    .flops(kConv073.flops());

const Convolution kConv074 = Convolution::transposed_over({{"L", {5, 1, 0, 3}}});
RKT_TASK(kb_l1_074)
    .describe("74_conv_transposed_1D_dilated: conv_transpose1d 32 -> 64 channels, kernel 5, "
              "stride 1, dilation 3")
    .input("x", {"B", "Cin", "L"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "Cout", "5"}, values::fan_in_uniform("Cout,5"))
    .outputs({"y"})
    .default_dims({{"B", 32}, {"Cin", 32}, {"Cout", 64}, {"L", 131072}})
    .small_dims({{"B", 2}, {"Cin", 4}, {"Cout", 5}, {"L", 30}})
    .domain("B", 1, 32)
    .domain("Cin", 1, 32)
    .domain("Cout", 1, 64)
    .domain("L", 1, 131072)
    .reference(kConv074.reference())
    .bytes(kConv074.bytes())
    .flops(kConv074.flops());

// 4 groups, weight (Cin, Cout/4, 3, 5). Output sizes: 2H + 1 and 3W - 2.
const Convolution kConv075 =
    Convolution::transposed_over({{"H", {3, 2, 1, 2}}, {"W", {5, 3, 2, 1}}}).grouped(4);
RKT_TASK(kb_l1_075)
    .describe("75_conv_transposed_2D_asymmetric_input_asymmetric_kernel_strided__grouped____padded"
              "____dilated__: conv_transpose2d 32 -> 64 channels, 3x5 kernel, stride (2, 3), "
              "padding (1, 2), dilation (2, 1), 4 groups")
    .input("x", {"B", "Cin", "H", "W"}, values::uniform(0, 1))
    .weight("weight", {"Cin", "CoutG", "3", "5"}, values::fan_in_uniform("CoutG,3,5"))
    .outputs({"y"})
    .default_dims({{"B", 16}, {"Cin", 32}, {"CoutG", 16}, {"H", 128}, {"W", 256}})
    .small_dims({{"B", 2}, {"Cin", 8}, {"CoutG", 2}, {"H", 5}, {"W", 6}})
    .domain("B", 1, 16)
    .domain("CoutG", 1, 16)
    .domain("H", 1, 128)
    .domain("W", 1, 256)
    .reference(kConv075.reference())
    .bytes(kConv075.bytes())
    .flops(kConv075.flops());
