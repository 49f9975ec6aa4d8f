// One GPU per ctest test on a host with several: ctest's resource allocation (a resource spec
// with one `gpus` slot per device, tools/gpu/ctest_resources.sh; CUDA tests ask for `gpus:1`)
// names the GPU a test may use in CTEST_RESOURCE_GROUP_0_GPUS. The judge makes that GPU the only
// visible one before CUDA starts; its supervised children and workers inherit the setting.
#pragma once

#include <string>

namespace rkt {

/// The device id in a ctest allocation such as "id:1,slots:1" (or "" when there is none).
std::string gpu_of_ctest_allocation(const std::string& allocation);

/// Sets CUDA_VISIBLE_DEVICES from ctest's allocation when this process runs as a ctest test
/// with resource groups; returns what it did ("" when nothing), for the log.
std::string pin_gpu_from_ctest_resources();

/// Prints `pinning` (when not "") with the time this process took the GPU, and at exit the time
/// it let go of it (milliseconds since the epoch): lines from which a log of `ctest -V` shows that
/// no two tests shared a GPU (tools/gpu/check_gpu_sharing.py).
void log_gpu_pinning(const std::string& pinning);

}  // namespace rkt
