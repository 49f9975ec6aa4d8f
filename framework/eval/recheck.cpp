#include "framework/eval/recheck.h"

#include <algorithm>
#include <random>

#include "framework/eval/library_judge.h"
#include "framework/inputs/hidden_inputs.h"
#include "framework/runs/run_comparison.h"

namespace rkt {
namespace {

// A secret seed no earlier judgement used: from the operating system's entropy.
std::string fresh_secret_seed() {
  std::random_device entropy;
  const std::uint64_t seed = (static_cast<std::uint64_t>(entropy()) << 32) ^ entropy();
  return std::to_string(seed >> 1);
}

RunReport one_kernel_run(const KernelReport& kernel) {
  RunReport run;
  run.finished = true;
  run.kernels.push_back(kernel);
  return run;
}

}  // namespace

std::string recheck_disagreement(const KernelReport& first, const KernelReport& second) {
  if (second.verdict() != "pass") {
    return "the second judgement's verdict is " + second.verdict() + " (the first: " + first.verdict() + ")";
  }
  if (!second.benchmark.measured) {
    return "its timing could not be taken again: " + second.benchmark.problem;
  }
  const RunComparison comparison =
      compare_runs(one_kernel_run(first), one_kernel_run(second), kCompareSlowdownTolerance);
  for (const KernelComparison& row : comparison.kernels) {
    if (row.regression) {
      return "timed again " + row.result + " (median " + std::to_string(first.benchmark.time.median) +
             " ms the first time, " + std::to_string(second.benchmark.time.median) + " ms the second)";
    }
  }
  return "";
}

int recheck_fastest(const EvalOptions& options, const std::vector<JudgedFile>& files,
                    const std::string& directory, std::ostream& progress) {
  struct Candidate {
    const JudgedFile* file;
    EvalRecord* record;
  };
  std::vector<Candidate> candidates;
  for (const JudgedFile& file : files) {
    for (EvalRecord& record : *file.records) {
      if (record.verdict() == "pass" && record.has_kernel && record.kernel.benchmark.measured) {
        candidates.push_back({&file, &record});
      }
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.record->kernel.benchmark.time.median < b.record->kernel.benchmark.time.median;
  });
  if (candidates.size() > static_cast<std::size_t>(options.recheck)) candidates.resize(options.recheck);
  int rechecked = 0;
  for (const Candidate& candidate : candidates) {
    EvalRecord& record = *candidate.record;
    const std::string id = record.kernel.full_id();
    progress << "rkt eval: recheck " << ++rechecked << "/" << candidates.size() << ": " << id << " of "
             << record.file << " (median " << record.kernel.benchmark.time.median
             << " ms), fresh processes and a fresh secret seed\n"
             << std::flush;
    JudgeTarget target;
    target.folder = directory + "/libraries/" + candidate.file->source->key + "/recheck";
    target.kernel = id;
    target.environment[kSecretSeedVariable] = fresh_secret_seed();
    const std::vector<EvalRecord> second = judge_library(options, *candidate.file->source, target);
    record.rechecked = true;
    const auto same = std::find_if(second.begin(), second.end(), [&](const EvalRecord& r) {
      return r.has_kernel && r.kernel.full_id() == id;
    });
    if (same == second.end()) {
      const std::string why = second.empty() ? "no record" : second.front().status + ": " + second.front().message;
      record.recheck_disagreement = "the second judgement gave no verdict for " + id + " (" + why + ")";
    } else {
      record.recheck = same->kernel;
      record.recheck_disagreement = recheck_disagreement(record.kernel, same->kernel);
    }
    progress << "rkt eval: recheck of " << id << ": "
             << (record.recheck_disagreement.empty() ? "agrees" : "DISAGREES: " + record.recheck_disagreement)
             << "\n"
             << std::flush;
  }
  return rechecked;
}

}  // namespace rkt
