// A task whose benchmark inputs fit in an H200's L2 (16 MiB of x, 50 MB of L2): the ground on
// which L2 persistence pays (tests/adversaries/l2_persistence_cheats.cu). Judge code: compiled
// into the adversaries' judge beside the shipped tasks.
#include <ATen/ATen.h>

#include "rkt/task.h"
#include "rkt/value_families.h"

namespace {

constexpr double kFloatBytes = 4;  // [bytes per float32 element]

}  // namespace

RKT_TASK(relu_l2_resident)
    .describe("y = max(x, 0) elementwise, at a benchmark size whose input fits in the L2")
    .input("x", {"B", "N"}, rkt::values::normal())
    .outputs({"y"})
    .default_dims({{"B", 1024}, {"N", 4096}})
    .small_dims({{"B", 37}, {"N", 300}})
    .domain("B", 1, 4096)
    .domain("N", 1, 4096)
    .reference([](const std::vector<at::Tensor>& in) { return std::vector{at::relu(in[0])}; })
    .bytes([](const rkt::Dims& s) {
      return 2 * static_cast<double>(s.at("B")) * static_cast<double>(s.at("N")) * kFloatBytes;
    })
    .flops([](const rkt::Dims& s) { return static_cast<double>(s.at("B")) * static_cast<double>(s.at("N")); });
