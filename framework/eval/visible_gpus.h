// The GPUs `rkt eval` and `rkt serve` spread their CUDA files over, and how many child judges
// share each one at a time (their benchmarks take turns: framework/timing/device_lease.h).
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// The visible GPUs, each as the CUDA_VISIBLE_DEVICES value that shows a child that GPU alone:
/// the entries of CUDA_VISIBLE_DEVICES when it is set (none when it is empty), else one index per
/// GPU nvidia-smi lists; none without a driver. The judge process itself starts no CUDA context.
std::vector<std::string> visible_gpus();

/// eval_defaults::kMaxJudgesPerGpu, or fewer on a machine with under kCoresPerJudge cores a judge.
int judges_per_gpu_by_default();

/// One entry per judge to start: each GPU of `gpus` repeated `judges_per_gpu` times, the GPUs
/// interleaved (0, 1, 0, 1, ...) so that the first judges spread over every GPU. With no GPU
/// visible, `judges_per_gpu` entries "" (their CUDA kernels are skipped).
std::vector<std::string> judge_slots(const std::vector<std::string>& gpus, int judges_per_gpu);

}  // namespace rkt
