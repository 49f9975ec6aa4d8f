// The worker's request loop: it runs kernels of the library it loaded on buffers the judge shares,
// and answers with what happened. It computes no verdict and holds no reference, seed or
// hidden input: those never leave the judge.
#pragma once

#include <string>
#include <vector>

#include "framework/wire/worker_protocol.h"
#include "framework/worker/kernel_calls.h"
#include "rkt/registration.h"

namespace rkt {

struct WorkerState {
  std::vector<KernelSpec*> kernels;  ///< As the kernel library registered them.
  wire::DescribeReply description;
  /// CUDA calls run on copies in the worker's own allocations (own_device_copies.h): the worker
  /// that compute-sanitizer watches.
  bool own_device_copies = false;
};

/// Serves requests on `socket` with `calls` until the judge closes it. Returns the process's exit
/// status.
int serve_worker_requests(int socket, WorkerState& state, KernelCalls& calls);

}  // namespace rkt
