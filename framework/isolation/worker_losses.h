// The kernels that lost their worker in cases of this process. A worker that dies, or whose CUDA
// context a kernel corrupted, is replaced before the next request; a kernel that does it at every
// large size would replace one in each of its cases, each start a second or more on a GPU. Once
// defaults::kWorkerLossCasesBeforeSkipping of its cases failed losing workers, it fails whatever
// the rest say, so its later cases are skipped, naming those cases (as a hang skips them after
// one case: worker_hangs.h). The cases beside (the sanitizer's, with workers of their own) still
// run: their finding explains such a kernel.
#pragma once

#include <string>
#include <vector>

namespace rkt {

/// Records that case `case_name` of kernel `kernel_id` failed and lost its worker at least once.
void note_case_lost_worker(const std::string& kernel_id, const std::string& case_name);

/// The cases of `kernel_id` that lost their worker, in the order they ran.
std::vector<std::string> cases_that_lost_workers(const std::string& kernel_id);

/// Why a later case of `kernel_id` is not run ("not run: ..."), or "" while it still runs.
std::string not_run_after_worker_losses(const std::string& kernel_id);

}  // namespace rkt
