// KernelBench level 1, problems 1-25: matrix products and the first activations.
//
// Each task is KernelBench's problem at commit 423217d (docs/kernelbench_tasks.md): the same
// computation, its module-level shapes as default_dims, its input laws (torch.rand -> U[0, 1)),
// a small CPU size for CI. Python twins: tasks/twins/kb_level1.py.
#include <ATen/ATen.h>

#include <cmath>

#include "rkt/task.h"
#include "level1_support.h"

namespace {

using rkt::Dims;
namespace values = rkt::values;
using rkt::kernelbench::count;
using rkt::kernelbench::float_bytes;
using rkt::kernelbench::size_of;
using rkt::kernelbench::Tensors;

// C = A @ B with A (M, K) and B (K, N), read once, C written once.
double matmul_bytes(const Dims& s) {
  return float_bytes(count(s, {"M", "K"}) + count(s, {"K", "N"}), count(s, {"M", "N"}));
}
double matmul_flops(const Dims& s) { return 2 * count(s, {"M", "K", "N"}); }
// Each element of a product of U[0, 1) matrices is a sum of K terms of mean 1/4.
double matmul_scale(const Dims& s) { return size_of(s, "K") / 4; }

// The square problems (1, 13, 14, 15) name their one size N.
double square_bytes(const Dims& s) { return float_bytes(2 * count(s, {"N", "N"}), count(s, {"N", "N"})); }
double square_flops(const Dims& s) { return 2 * count(s, {"N", "N", "N"}); }
double square_scale(const Dims& s) { return size_of(s, "N") / 4; }

// The activations (19-32) all take x (4096, 393216) from torch.rand.
const Dims kActivationDims = {{"B", 4096}, {"N", 393216}};
const Dims kActivationSmallDims = {{"B", 37}, {"N", 300}};
double activation_bytes(const Dims& s) { return float_bytes(count(s, {"B", "N"}), count(s, {"B", "N"})); }
// [flops per element] a rough count for the roofline: the transcendental counts as a few.
rkt::CostFunction per_element_flops(double flops) {
  return [flops](const Dims& s) { return flops * count(s, {"B", "N"}); };
}

}  // namespace

// ---- Matrix products -----------------------------------------------------------------------------

RKT_TASK(kb_l1_001)
    .describe("1_Square_matrix_multiplication_: C = A @ B, both N x N")
    .input("A", {"N", "N"}, values::uniform(0, 1))
    .input("B", {"N", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"N", 4096}})
    .small_dims({{"N", 67}})
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes(square_bytes)
    .flops(square_flops)
    .output_scale(square_scale);

RKT_TASK(kb_l1_002)
    .describe("2_Standard_matrix_multiplication_: C = A @ B, A (M, K), B (K, N)")
    .input("A", {"M", "K"}, values::uniform(0, 1))
    .input("B", {"K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 2048}, {"K", 8192}, {"N", 4096}})
    .small_dims({{"M", 37}, {"K", 90}, {"N", 53}})
    .domain("M", 1, 2048)
    .domain("K", 1, 8192)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_003)
    .describe("3_Batched_matrix_multiplication: C[b] = A[b] @ B[b] (torch.bmm)")
    .input("A", {"Bt", "M", "K"}, values::uniform(0, 1))
    .input("B", {"Bt", "K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"Bt", 128}, {"M", 512}, {"K", 1024}, {"N", 2048}})
    .small_dims({{"Bt", 3}, {"M", 21}, {"K", 40}, {"N", 27}})
    .domain("Bt", 1, 128)
    .domain("M", 1, 512)
    .domain("K", 1, 1024)
    .domain("N", 1, 2048)
    .reference([](const Tensors& in) { return Tensors{at::bmm(in[0], in[1])}; })
    .bytes([](const Dims& s) { return size_of(s, "Bt") * matmul_bytes(s); })
    .flops([](const Dims& s) { return size_of(s, "Bt") * matmul_flops(s); })
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_004)
    .describe("4_Matrix_vector_multiplication_: C = A @ B, A (M, K), B (K, 1)")
    .input("A", {"M", "K"}, values::uniform(0, 1))
    .input("B", {"K", "1"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 2048}, {"K", 1048576}})
    .small_dims({{"M", 45}, {"K", 1000}})
    .domain("M", 1, 2048)
    .domain("K", 1, 1048576)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes([](const Dims& s) { return float_bytes(count(s, {"M", "K"}) + size_of(s, "K"), size_of(s, "M")); })
    .flops([](const Dims& s) { return 2 * count(s, {"M", "K"}); })
    .output_scale(matmul_scale);

// KernelBench passes the scalar as a Python float (3.14); it is a constant of the task here.
constexpr double kMatrixScalar = 3.14;
RKT_TASK(kb_l1_005)
    .describe("5_Matrix_scalar_multiplication: C = A * 3.14")
    .input("A", {"M", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 65536}, {"N", 16384}})
    .small_dims({{"M", 37}, {"N", 300}})
    .domain("M", 1, 65536)
    .domain("N", 1, 16384)
    .reference([](const Tensors& in) { return Tensors{in[0] * kMatrixScalar}; })
    .bytes([](const Dims& s) { return float_bytes(count(s, {"M", "N"}), count(s, {"M", "N"})); })
    .flops([](const Dims& s) { return count(s, {"M", "N"}); });

RKT_TASK(kb_l1_006)
    .describe("6_Matmul_with_large_K_dimension_: C = A @ B, K much larger than M and N")
    .input("A", {"M", "K"}, values::uniform(0, 1))
    .input("B", {"K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 256}, {"K", 524288}, {"N", 256}})
    .small_dims({{"M", 13}, {"K", 3000}, {"N", 11}})
    .domain("M", 1, 256)
    .domain("K", 1, 524288)
    .domain("N", 1, 256)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_007)
    .describe("7_Matmul_with_small_K_dimension_: C = A @ B, K = 64, M and N large")
    .input("A", {"M", "K"}, values::uniform(0, 1))
    .input("B", {"K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 32768}, {"K", 64}, {"N", 32768}})
    .small_dims({{"M", 150}, {"K", 64}, {"N", 130}})
    .domain("M", 1, 32768)
    .domain("K", 1, 64)
    .domain("N", 1, 32768)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_008)
    .describe("8_Matmul_with_irregular_shapes_: C = A @ B, M 8205, K 2949, N 5921")
    .input("A", {"M", "K"}, values::uniform(0, 1))
    .input("B", {"K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 8205}, {"K", 2949}, {"N", 5921}})
    .small_dims({{"M", 67}, {"K", 29}, {"N", 59}})
    .domain("M", 1, 8205)
    .domain("K", 1, 2949)
    .domain("N", 1, 5921)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

// A (M, N) @ B (N, M): an M x M output from a rank-N product.
RKT_TASK(kb_l1_009)
    .describe("9_Tall_skinny_matrix_multiplication_: C = A @ B, A (M, N), B (N, M), N = 32")
    .input("A", {"M", "N"}, values::uniform(0, 1))
    .input("B", {"N", "M"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 32768}, {"N", 32}})
    .small_dims({{"M", 200}, {"N", 32}})
    .domain("M", 1, 32768)
    .domain("N", 1, 32)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes([](const Dims& s) { return float_bytes(2 * count(s, {"M", "N"}), count(s, {"M", "M"})); })
    .flops([](const Dims& s) { return 2 * count(s, {"M", "M", "N"}); })
    .output_scale([](const Dims& s) { return size_of(s, "N") / 4; });

RKT_TASK(kb_l1_010)
    .describe("10_3D_tensor_matrix_multiplication: C = A @ B, A (Bt, M, K), B (K, N)")
    .input("A", {"Bt", "M", "K"}, values::uniform(0, 1))
    .input("B", {"K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"Bt", 16}, {"M", 1024}, {"K", 2048}, {"N", 768}})
    .small_dims({{"Bt", 3}, {"M", 20}, {"K", 40}, {"N", 24}})
    .domain("Bt", 1, 16)
    .domain("M", 1, 1024)
    .domain("K", 1, 2048)
    .domain("N", 1, 768)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"Bt", "M", "K"}) + count(s, {"K", "N"}), count(s, {"Bt", "M", "N"}));
    })
    .flops([](const Dims& s) { return 2 * count(s, {"Bt", "M", "K", "N"}); })
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_011)
    .describe("11_4D_tensor_matrix_multiplication: C[b,i,j,k] = sum over l of A[b,i,j,l] B[l,k]")
    .input("A", {"Bt", "I", "J", "L"}, values::uniform(0, 1))
    .input("B", {"L", "K"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"Bt", 8}, {"I", 256}, {"J", 512}, {"L", 256}, {"K", 768}})
    .small_dims({{"Bt", 2}, {"I", 5}, {"J", 6}, {"L", 32}, {"K", 24}})
    .domain("Bt", 1, 8)
    .domain("I", 1, 256)
    .domain("J", 1, 512)
    .domain("L", 1, 256)
    .domain("K", 1, 768)
    .reference([](const Tensors& in) { return Tensors{at::einsum("bijl,lk->bijk", {in[0], in[1]})}; })
    .bytes([](const Dims& s) {
      return float_bytes(count(s, {"Bt", "I", "J", "L"}) + count(s, {"L", "K"}),
                         count(s, {"Bt", "I", "J", "K"}));
    })
    .flops([](const Dims& s) { return 2 * count(s, {"Bt", "I", "J", "L", "K"}); })
    .output_scale([](const Dims& s) { return size_of(s, "L") / 4; });

RKT_TASK(kb_l1_012)
    .describe("12_Matmul_with_diagonal_matrices_: C = diag(A) @ B, computed as A[:, None] * B")
    .input("A", {"N"}, values::uniform(0, 1))
    .input("B", {"N", "M"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"N", 4096}, {"M", 4096}})
    .small_dims({{"N", 64}, {"M", 70}})
    .domain("N", 1, 4096)
    .domain("M", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{in[0].unsqueeze(1) * in[1]}; })
    .bytes([](const Dims& s) { return float_bytes(size_of(s, "N") + count(s, {"N", "M"}), count(s, {"N", "M"})); })
    .flops([](const Dims& s) { return count(s, {"N", "M"}); });

// KernelBench draws symmetric and triangular operands in get_inputs and its forward is a plain
// matmul (then triu/tril for 14 and 15): the structure is part of the input law here, so the
// reference times exactly the forward (an earlier port built the operands inside the reference,
// which the H200 baselines showed as +87%, +22%, +20% over KernelBench's medians). A kernel may
// rely on the structure; every input drawn for these tasks has it (the replay gate keeps it).
RKT_TASK(kb_l1_013)
    .describe("13_Matmul_for_symmetric_matrices: C = A @ B, A and B symmetric ((X + X^T) / 2 of "
              "U[0, 1) matrices)")
    .input("A", {"N", "N"}, values::symmetric(values::uniform(0, 1)))
    .input("B", {"N", "N"}, values::symmetric(values::uniform(0, 1)))
    .outputs({"C"})
    .default_dims({{"N", 4096}})
    .small_dims({{"N", 67}})
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1])}; })
    .bytes(square_bytes)
    .flops(square_flops)
    .output_scale(square_scale);

RKT_TASK(kb_l1_014)
    .describe("14_Matmul_for_upper_triangular_matrices: C = triu(A @ B), A and B upper triangular "
              "(triu of U[0, 1) matrices)")
    .input("A", {"N", "N"}, values::upper_triangular(values::uniform(0, 1)))
    .input("B", {"N", "N"}, values::upper_triangular(values::uniform(0, 1)))
    .outputs({"C"})
    .default_dims({{"N", 4096}})
    .small_dims({{"N", 67}})
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::triu(at::matmul(in[0], in[1]))}; })
    .bytes(square_bytes)
    .flops([](const Dims& s) { return square_flops(s) / 6; })  // a triangular product: ~N^3/3 MACs
    .output_scale(square_scale);

RKT_TASK(kb_l1_015)
    .describe("15_Matmul_for_lower_triangular_matrices: C = tril(A @ B), A and B lower triangular "
              "(tril of U[0, 1) matrices)")
    .input("A", {"N", "N"}, values::lower_triangular(values::uniform(0, 1)))
    .input("B", {"N", "N"}, values::lower_triangular(values::uniform(0, 1)))
    .outputs({"C"})
    .default_dims({{"N", 4096}})
    .small_dims({{"N", 67}})
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::tril(at::matmul(in[0], in[1]))}; })
    .bytes(square_bytes)
    .flops([](const Dims& s) { return square_flops(s) / 6; })
    .output_scale(square_scale);

RKT_TASK(kb_l1_016)
    .describe("16_Matmul_with_transposed_A: C = A^T @ B, A (K, M), B (K, N)")
    .input("A", {"K", "M"}, values::uniform(0, 1))
    .input("B", {"K", "N"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 2048}, {"K", 8192}, {"N", 4096}})
    .small_dims({{"M", 37}, {"K", 90}, {"N", 53}})
    .domain("M", 1, 2048)
    .domain("K", 1, 8192)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0].t(), in[1])}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_017)
    .describe("17_Matmul_with_transposed_B: C = A @ B^T, A (M, K), B (N, K)")
    .input("A", {"M", "K"}, values::uniform(0, 1))
    .input("B", {"N", "K"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 2048}, {"K", 8192}, {"N", 4096}})
    .small_dims({{"M", 37}, {"K", 90}, {"N", 53}})
    .domain("M", 1, 2048)
    .domain("K", 1, 8192)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0], in[1].t())}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

RKT_TASK(kb_l1_018)
    .describe("18_Matmul_with_transposed_both: C = A^T @ B^T, A (K, M), B (N, K)")
    .input("A", {"K", "M"}, values::uniform(0, 1))
    .input("B", {"N", "K"}, values::uniform(0, 1))
    .outputs({"C"})
    .default_dims({{"M", 2048}, {"K", 8192}, {"N", 4096}})
    .small_dims({{"M", 37}, {"K", 90}, {"N", 53}})
    .domain("M", 1, 2048)
    .domain("K", 1, 8192)
    .domain("N", 1, 4096)
    .reference([](const Tensors& in) { return Tensors{at::matmul(in[0].t(), in[1].t())}; })
    .bytes(matmul_bytes)
    .flops(matmul_flops)
    .output_scale(matmul_scale);

// ---- Activations ---------------------------------------------------------------------------------
// KernelBench draws x from U[0, 1). For ReLU (19) and HardTanh (32) the output then equals the
// input, which the task filter flags; the negated distribution still tells a real kernel apart.

RKT_TASK(kb_l1_019)
    .describe("19_ReLU: y = max(x, 0) elementwise")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::relu(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(1));

constexpr double kLeakyReluSlope = 0.01;  // KernelBench's default negative_slope
RKT_TASK(kb_l1_020)
    .describe("20_LeakyReLU: y = x if x > 0 else 0.01 x")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::leaky_relu(in[0], kLeakyReluSlope)}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(2));

RKT_TASK(kb_l1_021)
    .describe("21_Sigmoid: y = 1 / (1 + exp(-x))")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::sigmoid(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(4));

RKT_TASK(kb_l1_022)
    .describe("22_Tanh: y = tanh(x)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::tanh(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(4));

RKT_TASK(kb_l1_023)
    .describe("23_Softmax: y = softmax(x) over dim 1")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::softmax(in[0], 1)}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(5))
    .output_scale([](const Dims& s) { return 1 / size_of(s, "N"); });  // each row sums to 1

RKT_TASK(kb_l1_024)
    .describe("24_LogSoftmax: y = log_softmax(x) over dim 1")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{at::log_softmax(in[0], 1)}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(5))
    .output_scale([](const Dims& s) { return std::log(size_of(s, "N")); });  // y ~ x - log N

RKT_TASK(kb_l1_025)
    .describe("25_Swish: y = x * sigmoid(x)")
    .input("x", {"B", "N"}, values::uniform(0, 1))
    .outputs({"y"})
    .default_dims(kActivationDims)
    .small_dims(kActivationSmallDims)
    .domain("B", 1, 4096)
    .domain("N", 1, 393216)
    .reference([](const Tensors& in) { return Tensors{in[0] * at::sigmoid(in[0])}; })
    .bytes(activation_bytes)
    .flops(per_element_flops(5));
