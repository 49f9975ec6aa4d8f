// A feature that is on by default and turned off by setting its environment variable to "0"
// (RKT_START_AHEAD, RKT_SHARED_BUFFER_POOL, RKT_GPU_WORKER_LENDING, RKT_GPU_DRAW_KERNEL,
// RKT_GPU_COMPARISON_KERNEL): one reading of the rule for all of them.
#pragma once

namespace rkt {

/// True unless the environment variable `variable` is set to exactly "0".
bool on_unless_set_to_zero(const char* variable);

}  // namespace rkt
