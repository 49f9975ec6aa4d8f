// The kernels whose worker was killed as hung in this process. A hung worker costs the reply
// timeout (kWorkerReplyTimeoutSeconds, 120 s); a kernel that never returns would cost it again
// in each of its other cases (17 cases of relu/cheat_hangs: 34 min). So once a kernel's worker
// hung, its later cases in this process are not run: each is skipped naming the case that hung,
// as the supervisor does for a case whose process it killed as hung (supervisor.h).
#pragma once

#include <optional>
#include <string>

namespace rkt {

struct WorkerHang {
  std::string case_name;  ///< the case that was running; "" until the case runner names it
  int seconds = 0;        ///< [s] how long the worker went unanswered before it was killed
};

/// Records that `kernel_id`'s worker did not answer for `seconds` and was killed (the first
/// hang is kept).
void note_worker_hung(const std::string& kernel_id, int seconds);

/// The kernel's first worker hang in this process, if any.
std::optional<WorkerHang> worker_hang_of(const std::string& kernel_id);

/// Names the case during which the kernel's worker hung, if it hung and no case is named yet.
void name_case_that_hung(const std::string& kernel_id, const std::string& case_name);

/// "not run: <case> hung after N s (...)": why a later case of a kernel whose worker hung is
/// skipped.
std::string not_run_after_hang(const WorkerHang& hang);

}  // namespace rkt
