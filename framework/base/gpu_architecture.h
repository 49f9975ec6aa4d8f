#pragma once
// The compute capability of the GPU a process would use, as nvidia-smi reports it: what compiled
// artefacts are keyed by (eval's kernel libraries, the compiled baseline's packages), since code
// built for one architecture is not what another runs.

#include <string>

namespace rkt {

/// "90" for the first visible GPU's compute capability 9.0; "" when there is none (no driver,
/// no GPU, or CUDA_VISIBLE_DEVICES hides them all).
std::string visible_gpu_architecture();

}  // namespace rkt
