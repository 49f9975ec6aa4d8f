// The worker's request loop: it runs kernels of the library it loaded on buffers the judge shares,
// and answers with what happened. It computes no verdict and holds no reference, seed or
// hidden input: those never leave the judge.
#pragma once

#include <string>
#include <vector>

#include "framework/wire/worker_protocol.h"
#include "rkt/registration.h"

namespace rkt {

struct WorkerState {
  std::vector<KernelSpec*> kernels;  ///< As the kernel library registered them.
  wire::DescribeReply description;
};

/// Serves requests on `socket` until the judge closes it. Returns the process's exit status.
int serve_worker_requests(int socket, WorkerState& state);

/// What no longer works on the devices once the sandbox is in place ("" when all does): checked
/// with a cudaMallocAsync on the kernels' stream, since kernels use it for scratch.
std::string check_devices_in_sandbox(const std::vector<KernelSpec*>& kernels);

/// Readies what a kernel call needs before the sandbox closes the file system: the CUDA context
/// and stream, the cache-flush buffers (sized from sysfs and the device).
void prepare_devices(const std::vector<KernelSpec*>& kernels);

}  // namespace rkt
