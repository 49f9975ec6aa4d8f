// Users' own properties (ROBUST_PROPERTY) for the kernels of user_property_kernels.cpp. Judge
// side: added to the rkt_adversaries tool with target_sources, never to its kernel library.
#include <ATen/ATen.h>

#include "rkt/user_property.h"

// The kernels tile rows by 96: draw N one element either side of every tile boundary, and
// judge against the float64 reference (no check given).
ROBUST_PROPERTY(softmax, tile_edges)
    .statement("correct one element either side of each multiple of 96")
    .kernels({"tile96_tail_bug", "tile96_honest"})
    .dims(rc::gen::map(rc::gen::pair(rc::gen::inRange(1, 7), rc::gen::inRange(-1, 2)),
                       [](std::pair<int, int> drawn) {
                         return rkt::Dims{{"N", 96 * drawn.first + drawn.second}};
                       }))
    .trials(30);

// A few short rows of small integers (many ties at the maximum; every element shrinks on its
// own, so rows stay short); the check needs no reference: every row of a softmax sums to 1.
ROBUST_PROPERTY(softmax, rows_sum_to_one)
    .statement("every row of y sums to 1 on rows of small integers (ties)")
    .kernels({"ties_counted_once", "tile96_honest"})
    .dims(rc::gen::map(rc::gen::pair(rc::gen::inRange(1, 5), rc::gen::inRange(2, 17)),
                       [](std::pair<int, int> drawn) {
                         return rkt::Dims{{"B", drawn.first}, {"N", drawn.second}};
                       }))
    .inputs([](const rkt::Dims& dims) {
      const std::int64_t count = dims.at("B") * dims.at("N");
      return rc::gen::map(rc::gen::container<std::vector<int>>(count, rc::gen::inRange(-2, 3)),
                          [dims](const std::vector<int>& values) {
                            at::Tensor x = at::tensor(values, at::kInt).to(at::kFloat);
                            return rkt::Tensors{x.reshape({dims.at("B"), dims.at("N")})};
                          });
    })
    .check([](const rkt::UserPropertyTrial& trial) -> std::string {
      const at::Tensor sums = trial.outputs[0].sum(-1);
      const double worst = (sums - 1).abs().max().item<double>();
      if (worst > 1e-5) return "a row sums to 1 + " + std::to_string(worst) + " (bound 1e-5)";
      return "";
    })
    .trials(30);
