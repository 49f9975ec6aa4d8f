// How often the default shape property catches each edge bug class, over many seeds.
//
//   build/bin/rkt_property_detection [--seeds N] [--skip-sweep]   (Markdown on standard output)
//
// Three measurements, each over seeds 1..N (rapidcheck seeds of the property):
//   1. CPU, real runs: the edge adversaries (tests/adversaries/edge_kernels.cpp, softmax kernels
//      wrong only at one edge of the row length N) and their honest control, each through the
//      shape property exactly as `rkt test` runs it (trials, shrinking, reference, comparison).
//   2. CUDA settings, generator only: the same six classes on softmax's N at its benchmark size,
//      through the same property with the CUDA phases (small-shape trials, then full-size ones);
//      each trial is judged by the class's predicate instead of a kernel (no GPU needed: the
//      generator's choices are what decide detection).
//   3. Every task, every domain dim, both devices, generator only: the worst detection rate of
//      each class over all (task, dim) pairs where the class can occur at all.
// tools/property_detection.sh builds this and records the output in docs/property_detection.md.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "framework/cases/correctness_case.h"
#include "framework/cases/property_cases.h"
#include "framework/registry/registry_validation.h"
#include "rkt/defaults.h"
#include "tests/adversaries/edge_bug_classes.h"

namespace rkt {
namespace {

using testing::EdgeBugClass;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Whether the shape property of `task` on `device` with `seed` fails when trials whose `dim`
// triggers `bug` fail (and all others pass).
bool generator_catches(const TaskSpec& task, Device device, const std::string& dim,
                       EdgeBugClass bug, std::uint64_t seed) {
  PropertyOptions options;
  options.id = task.id() + "/generator/" + dim + "/" + testing::to_string(bug);
  options.device = device;
  options.seed = seed;
  const CaseOutcome outcome = run_property_trials(
      task, PropertyKind::shapes, options, [&](const TaskSpec& trial_task, const CaseInputs& inputs) {
        const std::int64_t test_size = trial_task.test_dims(device).at(dim);
        return testing::triggers(bug, inputs.dims.at(dim), test_size)
                   ? CaseOutcome{CaseStatus::failed, "triggered"}
                   : CaseOutcome{CaseStatus::passed, ""};
      });
  return outcome.status == CaseStatus::failed;
}

// Whether `bug` can occur at all for a dim drawn from `range`.
bool can_occur(EdgeBugClass bug, const DimRange& range) {
  for (std::int64_t v = range.min; v <= range.max; ++v) {
    if (testing::triggers(bug, v, range.test_size)) return true;
  }
  return false;
}

std::string rate(int caught, int seeds) {
  std::ostringstream text;
  text << caught << "/" << seeds;
  return text.str();
}

int run(int seeds, bool sweep) {
  const TaskSpec* softmax = find_task("softmax");
  if (softmax == nullptr ||
      softmax->small_dims().at("N") != testing::kCpuSoftmaxRowLength) {
    std::cerr << "softmax's CPU test size is no longer N=" << testing::kCpuSoftmaxRowLength
              << "; update tests/adversaries/edge_bug_classes.h\n";
    return 2;
  }
  std::cout << "## 1. CPU, real runs of the edge adversaries (softmax, " << seeds << " seeds)\n\n"
            << "Each seed runs the kernel's `property_shapes` case as `rkt test` does ("
            << property_phases(PropertyKind::shapes, Device::cpu)[0].trials << " edge trials, then "
            << defaults::kPropertyWholeDomainTrialsPerDim * softmax->domains().size()
            << " across the whole domain, shrinking on failure). Shrunk N: the row length of the smallest failing "
               "case, per seed (min / median / max).\n\n"
            << "| kernel | caught | shrunk N (min / median / max) | property time per seed, mean [s] |\n"
            << "|---|---|---|---|\n";
  for (const KernelSpec* kernel : registered_kernels()) {
    if (kernel->task_id() != "softmax" || kernel->kernel_id().rfind("edge_", 0) != 0) continue;
    int caught = 0;
    std::vector<std::int64_t> shrunk;
    const auto start = std::chrono::steady_clock::now();
    for (int seed = 1; seed <= seeds; ++seed) {
      PropertyOptions options;
      options.id = kernel->full_id() + "/property_shapes";
      options.device = Device::cpu;
      options.seed = static_cast<std::uint64_t>(seed);
      const CaseOutcome outcome = run_property_trials(
          *softmax, PropertyKind::shapes, options,
          [kernel](const TaskSpec& trial_task, const CaseInputs& inputs) {
            return run_correctness_case(*kernel, trial_task, inputs);
          });
      if (outcome.status == CaseStatus::failed) {
        ++caught;
        if (outcome.details.known) shrunk.push_back(outcome.details.dims.at("N"));
      }
    }
    const double per_seed = seconds_since(start) / seeds;
    std::sort(shrunk.begin(), shrunk.end());
    std::ostringstream shrunk_text;
    if (shrunk.empty()) {
      shrunk_text << "-";
    } else {
      shrunk_text << shrunk.front() << " / " << shrunk[shrunk.size() / 2] << " / " << shrunk.back();
    }
    std::cout << "| " << kernel->kernel_id() << " | " << rate(caught, seeds) << " | "
              << shrunk_text.str() << " | " << std::fixed << std::setprecision(3) << per_seed
              << std::defaultfloat << " |\n";
  }

  const Dims& cuda_dims = softmax->default_dims();
  std::cout << "\n## 2. CUDA settings, generator only (softmax N, test size " << cuda_dims.at("N")
            << ", " << seeds << " seeds)\n\nPhases: ";
  for (const PropertyPhase& phase : property_phases(PropertyKind::shapes, Device::cuda)) {
    std::cout << (phase.name.empty() ? "small shapes" : phase.name) << " (" << phase.trials
              << " trials, inputs up to " << (phase.input_budget >> 20) << " MiB"
              << (phase.time_budget_seconds > 0
                      ? ", at most " + std::to_string(static_cast<int>(phase.time_budget_seconds)) + " s"
                      : std::string())
              << ") ";
  }
  std::cout << "\n\n| class | caught |\n|---|---|\n";
  for (EdgeBugClass bug : testing::all_edge_bug_classes()) {
    int caught = 0;
    for (int seed = 1; seed <= seeds; ++seed) {
      caught += generator_catches(*softmax, Device::cuda, "N", bug, static_cast<std::uint64_t>(seed));
    }
    std::cout << "| " << testing::to_string(bug) << " | " << rate(caught, seeds) << " |\n";
  }
  if (!sweep) return 0;

  std::cout << "\n## 3. Every task and domain dim, generator only (" << seeds << " seeds)\n\n"
            << "The worst detection rate of each class over every (task, dim) pair where the "
               "class can occur within the dim's property range; pairs under 99% are listed.\n\n"
            << "| device | class | pairs | worst | under 99% |\n|---|---|---|---|---|\n";
  for (Device device : {Device::cpu, Device::cuda}) {
    const auto start = std::chrono::steady_clock::now();
    for (EdgeBugClass bug : testing::all_edge_bug_classes()) {
      int pairs = 0, worst = seeds;
      std::string worst_pair, under;
      for (const TaskSpec* task : registered_tasks()) {
        // The whole domain: the last phase's trials reach it.
        for (const auto& [dim, range] :
             property_dim_ranges(task->configured(0), device, {}, DimTier::whole_domain)) {
          if (!can_occur(bug, range)) continue;
          ++pairs;
          int caught = 0;
          for (int seed = 1; seed <= seeds; ++seed) {
            caught += generator_catches(*task, device, dim, bug, static_cast<std::uint64_t>(seed));
          }
          if (worst_pair.empty() || caught < worst) {
            worst = caught;
            worst_pair = task->id() + "." + dim;
          }
          if (100 * caught < 99 * seeds) {
            under += (under.empty() ? "" : ", ") + task->id() + "." + dim + " " + rate(caught, seeds);
          }
        }
      }
      std::cout << "| " << to_string(device) << " | " << testing::to_string(bug) << " | " << pairs
                << " | " << rate(worst, seeds) << " (" << worst_pair << ") | "
                << (under.empty() ? "none" : under) << " |\n";
    }
    std::cerr << "sweep on " << to_string(device) << ": " << seconds_since(start) << " s\n";
  }
  return 0;
}

}  // namespace
}  // namespace rkt

int main(int argc, char** argv) {
  int seeds = 100;
  bool sweep = true;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--seeds" && i + 1 < argc) {
      seeds = std::atoi(argv[++i]);
    } else if (arg == "--skip-sweep") {
      sweep = false;
    } else {
      std::cerr << "usage: rkt_property_detection [--seeds N] [--skip-sweep]\n";
      return 2;
    }
  }
  for (const std::string& error : rkt::registry_errors()) {
    std::cerr << "error: " << error << "\n";
    return 2;
  }
  return rkt::run(seeds, sweep);
}
