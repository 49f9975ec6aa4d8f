// Cases whose kernel needs a device this machine lacks are skipped at their start, whatever their
// kind: every case body begins with skip_if_device_missing (cases/correctness_case.h). When every
// case a run selects is such a case, the verdicts are known before any child starts, and `rkt test`
// records them at once: a CUDA kernel's ctest entry on a machine without a GPU takes a tenth of a
// second instead of two (a judge child and its worker started only to skip).
#pragma once

#include <optional>
#include <string>

#include "framework/supervision/supervisor.h"

namespace rkt {

/// The run of the cases matching `gtest_filter`, each skipped with skip_if_device_missing's
/// message (the kernel, the device and why it is unavailable), when every one of them belongs to
/// a kernel whose device is unavailable; nullopt when any selected case could run here, or when
/// none is selected.
std::optional<SupervisedRun> skipped_for_missing_devices(const std::string& gtest_filter);

/// The environment variable a ctest entry sets to the device of the kernel it selects
/// (`rkt list --ctest`: "cuda" for a CUDA kernel), read before the kernel library is loaded.
inline constexpr const char* kSelectionDeviceVariable = "RKT_SELECTION_DEVICE";

/// True when the run was told its kernels need a GPU (kSelectionDeviceVariable is "cuda") and this
/// machine has no NVIDIA driver (neither /dev/nvidiactl nor /proc/driver/nvidia/version): a child
/// judge started ahead would only be killed once skipped_for_missing_devices knows. Asks nothing
/// of CUDA; false whenever a GPU may be present.
bool selection_surely_needs_a_missing_gpu();

}  // namespace rkt
