// The GPUs `rkt eval` spreads its CUDA files over: one child judge per GPU at a time.
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// The visible GPUs, each as the CUDA_VISIBLE_DEVICES value that shows a child that GPU alone:
/// the entries of CUDA_VISIBLE_DEVICES when it is set (none when it is empty), else one index per
/// GPU nvidia-smi lists; none without a driver. The judge process itself starts no CUDA context.
std::vector<std::string> visible_gpus();

}  // namespace rkt
