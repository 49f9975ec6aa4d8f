// A task of your own: y = x / max(||x||_2, 1e-12) over the last dim (PyTorch's
// torch.nn.functional.normalize). Compiled into the judge (rkt_add_suite's TASKS), so it sees
// ATen and the task API; kernels never include this file.
//
// Beyond the reference, the task declares what every kernel for it must also respect:
//   a metamorphic relation (RKT_RELATION): normalising a x gives the same rows for a = 2^k > 0,
//     checked on the kernel alone at the benchmark size (a kernel that clamps or caches by
//     magnitude breaks it);
//   value families (RKT_VALUE_FAMILIES): rows spanning many decades (a float32 sum of squares
//     loses the small ones) and signed zeros with denormals.
// TODO(properties): a custom shape/scale property (ROBUST_PROPERTY) once it lands in main.
#include <ATen/ATen.h>

#include <cmath>
#include <string>
#include <vector>

#include "rkt/metamorphic_relations.h"
#include "rkt/task.h"
#include "rkt/value_families.h"

namespace {

double dim(const rkt::Dims& dims, const char* name) { return static_cast<double>(dims.at(name)); }
constexpr double kFloatBytes = 4;  // [bytes per float32 element]

}  // namespace

RKT_TASK(l2_normalize)
    .describe("y = x / max(||x||_2, 1e-12) over the last dim (F.normalize)")
    .input("x", {"B", "N"}, rkt::values::normal())
    .outputs({"y"})
    .default_dims({{"B", 4096}, {"N", 4096}})
    .small_dims({{"B", 33}, {"N", 257}})
    .domain("B", 1, 16384)
    .domain("N", 1, 16384)
    .reference([](const std::vector<at::Tensor>& in) {
      const at::Tensor norm = in[0].square().sum(-1, /*keepdim=*/true).sqrt().clamp_min(1e-12);
      return std::vector{in[0] / norm};
    })
    .bytes([](const rkt::Dims& s) { return 2 * dim(s, "B") * dim(s, "N") * kFloatBytes; })
    .flops([](const rkt::Dims& s) { return 3 * dim(s, "B") * dim(s, "N"); })
    .output_scale([](const rkt::Dims& s) { return 1 / std::sqrt(dim(s, "N")); });  // unit rows

RKT_RELATION(l2_normalize, "scale", "normalize(a x) = normalize(x), a = 2^k > 0",
             [](const rkt::Tensors& in, at::Generator& generator) {
               const double a = rkt::relations::power_of_two(generator, -3, 3);
               return rkt::RelationInstance{{rkt::relations::scaled(in[0], a)},
                                            [](const rkt::Tensors& y) { return y; },
                                            "a = " + std::to_string(a)};
             });

RKT_VALUE_FAMILIES(l2_normalize, {rkt::ValueFamily::mixed_magnitudes,
                                  rkt::ValueFamily::signed_zeros_denormals});
