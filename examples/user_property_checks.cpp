// Example: properties for your own kernel (ROBUST_PROPERTY, include/rkt/user_property.h).
// This file is judge code: the suite's `rkt` tool compiles it (target_sources in CMakeLists.txt),
// the kernel library never does. Each property becomes the test case `user_<name>` of the kernels
// it names, with the seeds, shrinking, RC_PARAMS replay string, supervision, ctest entry and
// `rkt test --json` record of every generated case.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "rkt/user_property.h"

// Dims only: N one element either side of each multiple of 128 (the kernel's tile), judged
// against the float64 reference like a correctness case.
ROBUST_PROPERTY(softmax, tile_edges)
    .statement("correct one element either side of each 128-wide tile")
    .kernels({"cpu_tiled_example"})
    .dims(rc::gen::map(rc::gen::pair(rc::gen::inRange(1, 9), rc::gen::inRange(-1, 2)),
                       [](std::pair<int, int> drawn) {
                         return rkt::Dims{{"B", 3}, {"N", 128 * drawn.first + drawn.second}};
                       }));

// Inputs and a check of your own: rows with one huge element must come out one-hot, with no
// NaN, whatever the rest of the row holds (the check needs no reference). Every random choice
// comes from rapidcheck (the column, and the seed of the noise), so RC_PARAMS replays a failure.
ROBUST_PROPERTY(softmax, one_huge_element_is_one_hot)
    .statement("a row with one element 1000 above the rest is one-hot")
    .kernels({"cpu_tiled_example"})
    .inputs([](const rkt::Dims& dims) {
      const auto column_and_seed = rc::gen::pair(rc::gen::inRange<std::int64_t>(0, dims.at("N")),
                                                 rc::gen::inRange<std::uint64_t>(0, 1u << 31));
      return rc::gen::map(column_and_seed, [dims](std::pair<std::int64_t, std::uint64_t> drawn) {
        at::Generator noise = at::make_generator<at::CPUGeneratorImpl>(drawn.second);
        at::Tensor x = at::randn({dims.at("B"), dims.at("N")}, noise);
        x.select(1, drawn.first).fill_(1000);
        return rkt::Tensors{x};
      });
    })
    .check([](const rkt::UserPropertyTrial& trial) -> std::string {
      const at::Tensor y = trial.outputs[0];
      const at::Tensor one_hot = (trial.inputs[0] == 1000).to(at::kDouble);
      const double worst = (y - one_hot).abs().max().item<double>();
      return worst <= 1e-6 ? "" : "off a one-hot row by " + std::to_string(worst);
    });
