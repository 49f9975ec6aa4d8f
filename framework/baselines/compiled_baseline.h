// The `compiled` baseline: a task's reference compiled ahead of time by TorchInductor
// (AOTInductor). A task's Python twin (tasks/twins/) is exported and packaged by
// tools/aoti/build_packages.py into a cache keyed by torch version, task, device (the GPU's
// architecture for CUDA) and dims;
// this file finds and loads a package with torch::inductor::AOTIModelPackageLoader.
#pragma once

#include <ATen/core/Tensor.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "rkt/task.h"

namespace rkt {

/// The cache folder: $RKT_AOTI_CACHE, else ~/.cache/rkt/aoti, then "torch-<LibTorch version>".
std::string compiled_cache_directory();

/// What a package is built for, in its file name: "cpu", or "cuda-sm<architecture>" (code
/// compiled for one GPU architecture is not what another runs); "cuda-sm-none" where no GPU is
/// visible, a package no GPU can have built.
std::string compiled_device_key(Device device, const std::string& gpu_architecture);

/// The package of `task` (its primary config) at its test dims on `device` (the visible GPU's
/// architecture for CUDA): "<cache>/<task>.<device key>.<dims>.pt2". A builder that cannot make
/// one writes the reason into the same path with ".absent" appended.
std::string compiled_package_path(const TaskSpec& task, Device device);

/// A loaded package: runs the compiled reference on the current stream.
class CompiledReference {
 public:
  virtual ~CompiledReference() = default;
  virtual std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs) = 0;
};

/// Loads the package of `task` on `device`, or returns nullptr with `absent_reason` saying why
/// (no twin, not built, or failed to load).
std::unique_ptr<CompiledReference> load_compiled_reference(const TaskSpec& task, Device device,
                                                           std::string& absent_reason);

/// What tools/aoti/build_packages.py needs, as JSON: for every task, the package path and the
/// inputs (name, shape, dtype) at the primary config's test dims on `device`.
void print_compiled_spec(std::ostream& out, Device device);

}  // namespace rkt
