// Supervised runs whose child judges share this judge's worker instead of each starting one
// (docs/threat_model.md, "One worker serves the main job's children").
#pragma once

#include "framework/supervision/supervisor.h"

namespace rkt {

/// Whether every child of a supervised run ended its cases normally (passed, failed on its
/// outputs, skipped): a worker lent to them is then idle and can serve the next run. A crash, a
/// hang or a process that died outside a case may have left it mid-request.
bool ended_normally(const SupervisedRun& run);

/// run_supervised with this judge's worker lent to the children (lend_worker): a child that dies
/// in a case gets the worker replaced before the next child starts, and a run that did not end
/// normally returns it for replacement.
SupervisedRun run_supervised_with_lent_worker(SupervisionOptions options);

}  // namespace rkt
