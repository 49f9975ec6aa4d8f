// Where kernels come from and where they run. By default kernels live in a shared library that
// only rkt-worker processes load (isolated mode): the judge learns what the library registered
// from a worker's description and never maps the kernel code. The in-process mode loads the
// library into the judge itself, for a debugger on one kernel; reports mark it, since a kernel
// there can reach everything the judge holds (docs/threat_model.md).
#pragma once

#include <ATen/core/Tensor.h>

#include <string>
#include <vector>

#include "framework/isolation/kernel_invocation.h"
#include "framework/isolation/redzones.h"
#include "framework/isolation/worker_process.h"
#include "rkt/registration.h"

namespace rkt {

enum class IsolationMode { isolated, in_process };

/// The environment variable that selects the mode ("in-process"; anything else: isolated). The
/// `--in-process` flag sets it, so that supervised children follow.
inline constexpr const char* kIsolationVariable = "RKT_ISOLATION";
/// Overrides the kernel library a suite was built with.
inline constexpr const char* kKernelLibraryVariable = "RKT_KERNEL_LIBRARY";
/// "0" turns the worker's empty root off (diagnosis only; reports show it).
inline constexpr const char* kWorkerChrootVariable = "RKT_WORKER_CHROOT";
/// Set by a judge that lends its worker to a child judge (the main job to the processes it
/// supervises): the inherited socket's descriptor, the worker's process id and its library.
inline constexpr const char* kLentWorkerSocketVariable = "RKT_LENT_WORKER_SOCKET";
inline constexpr const char* kLentWorkerPidVariable = "RKT_LENT_WORKER_PID";
inline constexpr const char* kLentWorkerLibraryVariable = "RKT_LENT_WORKER_LIBRARY";

struct KernelLibraryLocation {
  std::string library;  ///< The suite's kernel library (lib<suite>_kernels.so).
  std::string worker;   ///< The rkt-worker executable.
};

/// Registers the library's kernels with the judge's registry, in the mode the environment selects.
/// Returns "" or a sentence saying why the library could not be loaded.
std::string load_kernel_library(const KernelLibraryLocation& location);

/// A judge started ahead of its work (framework/supervision/started_ahead.h) starts its worker
/// now, before it knows which library it will judge: load_kernel_library hands that worker the
/// library when it has the same executable and sandbox setting, and starts its own otherwise.
/// The worker loads no kernel code until then.
void start_worker_awaiting_library(const KernelLibraryLocation& location);

IsolationMode isolation_mode();
/// One line for reports: the mode, and in isolated mode what the worker's sandbox holds.
std::string isolation_summary();

/// True when `kernel` runs in a worker process (isolated mode).
bool runs_in_worker(const KernelSpec& kernel);

/// A copy of `tensor` on `kernel`'s device that the kernel can be handed: shared memory for a
/// kernel in a worker, the judge's own memory otherwise; redzones around it either way, its
/// first element where `placement` puts it.
at::Tensor copy_for_kernel(const at::Tensor& tensor, const KernelSpec& kernel,
                           const BufferPlacement& placement = {});
/// Tensors the kernel can be handed, uninitialised.
at::Tensor allocate_for_kernel(at::IntArrayRef sizes, c10::ScalarType dtype, const KernelSpec& kernel,
                               const BufferPlacement& placement = {});

/// invoke_kernel for a kernel in a worker: outputs are allocated (poisoned) in shared memory,
/// inputs that are not shared memory are staged through it (and copied back afterwards, so that
/// a kernel that writes its inputs is seen). Throws WorkerFailure when the worker crashes, hangs
/// or breaks the protocol; a fresh worker serves the next call. Throws OutOfBoundsWrite when a
/// redzone changed.
KernelRun invoke_in_worker(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                           const std::vector<OutputSignature>& signatures,
                           const BufferPlacement& output_placement = {},
                           bool trace_off_stream_work = false);

/// A call request for `kernel` on shared tensors `inputs` and `outputs`; `buffers` gets the buffers
/// they lie in (for WorkerProcess::ask).
wire::Request call_request(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                           const std::vector<at::Tensor>& outputs, std::vector<SharedLocationRef>& buffers);

/// How this judge starts its workers, or nullptr when kernels do not run in one (in-process).
const WorkerLaunch* worker_launch();

/// Waits for all work on `kernel`'s device, in the worker's process too.
void synchronize_kernel_device(const KernelSpec& kernel);
/// Has the worker, if this judge has one now, let go of the shared buffers freed since its last
/// request, so that their device memory goes back now rather than with the next call (a worker
/// that fails to answer is forgotten; the next call starts one). Starts no worker.
void return_released_buffers_now();

/// A worker lent to the child judges started while it is alive (see lend_worker).
struct LentWorker {
  int socket = -1;  ///< The inheritable duplicate; -1 when nothing is lent.
};

/// Lends this judge's worker (started if there is none or it died) to the child processes
/// started until return_worker: they adopt it instead of starting their own, which saves each
/// one a worker start (the kernel library, and LibTorch's load where it needs it). Nothing is
/// lent in the in-process mode, when no worker can be started, or on a machine with a CUDA
/// device (not yet run there).
LentWorker lend_worker();
/// Whether lend_worker also starts the next worker ahead (the main job): once a lent worker has
/// been replaced (a child died in a case, or a kernel's run ended abnormally), a spare loads
/// while the children run, so the next replacement waits for no start. Until then none is
/// started: an honest kernel's judge (every `rkt eval` file) starts one worker, not two.
void keep_spare_worker(bool keep);
/// Ends the loan. `reusable`: the children ended normally (every case passed, failed on its
/// outputs or was skipped); otherwise the worker may be mid-request or hung, and is replaced.
void return_worker(LentWorker& lent, bool reusable);

/// The worker of this judge process, started on first use (isolated mode).
class WorkerProcess& current_worker();
/// Forgets the worker after a failure: the next call starts a fresh one.
void discard_worker();
/// Forgets a worker that died, hung or lost its CUDA context in a call, and starts its
/// replacement ahead (loading while the judge records the failure and prepares the next
/// case). From then on this process keeps one replacement loading: a kernel that crashed once
/// usually crashes again, and each crash would otherwise wait for a whole worker start.
void discard_lost_worker();
/// How many workers this process took started ahead as replacements (discard_lost_worker).
std::size_t replacements_taken();
/// How many workers this process has lost in calls (discard_lost_worker).
std::size_t workers_lost();
/// The index of `kernel` in the worker's description.
std::uint32_t worker_kernel_index(const KernelSpec& kernel);

}  // namespace rkt
