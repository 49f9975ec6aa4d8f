#include "framework/isolation/kernel_library.h"

#include <ATen/ATen.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>

#include "framework/base/environment_switch.h"
#include "framework/base/start_ahead_switch.h"
#include "framework/isolation/call_trace.h"
#include "framework/isolation/hung_call_limit.h"
#include "framework/isolation/shared_tensors.h"
#include "framework/isolation/worker_hangs.h"
#include "framework/isolation/worker_process.h"
#include "framework/runtime/device_support.h"
#include "framework/runtime/torch_bridge.h"
#include "rkt/defaults.h"

namespace rkt {

KernelSpec& adopt_kernel(const KernelSpec& kernel);  // framework/kernel_api/kernel_registry.cpp

namespace {

struct LibraryState {
  WorkerLaunch launch;
  std::unique_ptr<WorkerProcess> worker;
  std::unique_ptr<WorkerProcess> spare;  // started ahead, lent next (keep_spare_worker)
  std::unique_ptr<WorkerProcess> awaiting;  // started before the library was known
  WorkerLaunch awaiting_launch;             // how `awaiting` was started (its library empty)
  bool keep_spare = false;                  // keep_spare_worker: spares wanted, once one is needed
  bool lent_worker_discarded = false;       // a lent worker was replaced: spares from here on
  bool keep_replacement = false;   // a worker was lost: keep `awaiting` loading as its successor
  std::size_t replacements_taken = 0;
  std::size_t workers_lost = 0;
  std::map<const KernelSpec*, std::uint32_t> worker_index;  // kernels that run in the worker
  std::string sandbox;
  bool libtorch_in_worker = false;  // the worker's description: whether LibTorch is loaded in it
  std::vector<std::string> kernel_ids;  // as the first worker described them, in order
};

LibraryState& state() {
  static LibraryState* instance = new LibraryState;
  return *instance;
}

[[noreturn]] void remote_stub(KernelCall&) {
  throw std::logic_error("a kernel of an isolated library runs only in its worker process");
}

std::vector<std::string> ids_of(const wire::DescribeReply& description) {
  std::vector<std::string> ids;
  for (const auto& kernel : description.kernels) ids.push_back(kernel.task_id + "/" + kernel.kernel_id);
  return ids;
}

std::string load_in_process(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return std::string("could not load the kernel library: ") + dlerror();
  using KernelListFunction = void (*)(std::vector<KernelSpec*>*);
  auto list = reinterpret_cast<KernelListFunction>(dlsym(handle, "rkt_kernel_library_kernels"));
  if (list == nullptr) return library + " is not a kernel library (no rkt_kernel_library_kernels)";
  std::vector<KernelSpec*> kernels;
  list(&kernels);
  for (const KernelSpec* kernel : kernels) adopt_kernel(*kernel);
  return "";
}

// The worker a parent judge lent this process, adopted; nullptr when none was lent, it serves
// another library, or it did not answer (then this process starts its own).
std::unique_ptr<WorkerProcess> adopt_lent_worker(const std::string& library) {
  const char* socket_text = std::getenv(kLentWorkerSocketVariable);
  const char* pid_text = std::getenv(kLentWorkerPidVariable);
  const char* lent_library = std::getenv(kLentWorkerLibraryVariable);
  const bool lent = socket_text && pid_text && lent_library && library == lent_library;
  const int socket = socket_text ? std::atoi(socket_text) : -1;
  const pid_t pid = pid_text ? static_cast<pid_t>(std::atol(pid_text)) : -1;
  // Lent to this process only: its own children start or adopt their own.
  ::unsetenv(kLentWorkerSocketVariable);
  ::unsetenv(kLentWorkerPidVariable);
  ::unsetenv(kLentWorkerLibraryVariable);
  if (!lent || socket < 0 || pid <= 0) {
    if (socket_text && socket >= 0) ::close(socket);  // Lent for another library: not ours to keep.
    return nullptr;
  }
  try {
    return WorkerProcess::adopt(socket, pid, defaults::kWorkerAdoptTimeoutSeconds);
  } catch (const WorkerFailure& failure) {
    std::fprintf(stderr, "rkt: %s; starting a worker of its own\n", failure.what());
    return nullptr;
  }
}

}  // namespace

IsolationMode isolation_mode() {
  const char* mode = std::getenv(kIsolationVariable);
  return mode != nullptr && std::string(mode) == "in-process" ? IsolationMode::in_process
                                                              : IsolationMode::isolated;
}

std::string isolation_summary() {
  if (isolation_mode() == IsolationMode::in_process) {
    return "in-process (debugging mode: kernels ran inside the judge's process, so the verdicts "
           "are not protected from them)";
  }
  if (state().sandbox.empty())
    return "isolated (kernels ran in sandboxed worker processes; no worker was started)";
  return "isolated (kernels ran in sandboxed worker processes; " + state().sandbox +
         (state().libtorch_in_worker ? "; LibTorch loaded in the worker, which the library needs"
                                     : "; no LibTorch in the worker: the library needs none") +
         ")";
}

namespace {
// The worker started ahead (start_worker_awaiting_library), given `launch.library`, when it was
// started as `launch` would start one and is still there; nullptr otherwise (it is ended).
std::unique_ptr<WorkerProcess> take_awaiting_worker(const WorkerLaunch& launch) {
  LibraryState& library = state();
  std::unique_ptr<WorkerProcess> awaiting = std::move(library.awaiting);
  if (!awaiting || launch.executable != library.awaiting_launch.executable ||
      launch.change_root != library.awaiting_launch.change_root || !launch.wrapper.empty() ||
      !awaiting->running()) {
    return nullptr;
  }
  try {
    awaiting->give_library(launch.library);
  } catch (const WorkerFailure& failure) {
    std::fprintf(stderr, "rkt: started ahead of its library, %s; starting another\n", failure.what());
    return nullptr;
  }
  return awaiting;
}
// Whether workers enter an empty root (RKT_WORKER_CHROOT=0: they do not).
bool workers_change_root() {
  const char* chroot = std::getenv(kWorkerChrootVariable);
  return !(chroot != nullptr && std::string(chroot) == "0");
}

// Starts a worker ahead of its library, as a launch of `executable` would start one. None when
// that fails: the worker is then started when it is needed, as without.
void start_awaiting_worker(LibraryState& library, const std::string& executable) {
  library.awaiting_launch = WorkerLaunch{};
  library.awaiting_launch.executable = executable;
  library.awaiting_launch.change_root = workers_change_root();
  try {
    library.awaiting = WorkerProcess::launch_awaiting_library(library.awaiting_launch);
  } catch (const WorkerFailure&) {
  }
}
}  // namespace

void start_worker_awaiting_library(const KernelLibraryLocation& location) {
  LibraryState& library = state();
  if (isolation_mode() != IsolationMode::isolated || library.awaiting || location.worker.empty())
    return;
  start_awaiting_worker(library, location.worker);
}

std::string load_kernel_library(const KernelLibraryLocation& location) {
  LibraryState& library = state();
  library.launch.library = location.library;
  if (const char* chosen = std::getenv(kKernelLibraryVariable); chosen && *chosen) {
    library.launch.library = chosen;
  }
  library.launch.executable = location.worker;
  library.launch.change_root = workers_change_root();
  if (library.launch.library.empty() || isolation_mode() == IsolationMode::in_process) {
    library.awaiting.reset();  // a worker started ahead that nothing will use
  }
  if (library.launch.library.empty()) return "";
  if (isolation_mode() == IsolationMode::in_process) return load_in_process(library.launch.library);
  try {
    library.worker = adopt_lent_worker(library.launch.library);
    if (library.worker) library.awaiting.reset();
    if (!library.worker) library.worker = take_awaiting_worker(library.launch);
    if (!library.worker) library.worker = std::make_unique<WorkerProcess>(library.launch);
  } catch (const WorkerFailure& failure) {
    return std::string("could not start a worker for ") + library.launch.library + ": " + failure.what();
  }
  const wire::DescribeReply& description = library.worker->description();
  if (!description.load_error.empty()) return description.load_error;
  library.sandbox = description.sandbox;
  library.libtorch_in_worker = description.libtorch_loaded;
  library.kernel_ids = ids_of(description);
  for (std::uint32_t i = 0; i < description.kernels.size(); ++i) {
    const wire::KernelDescription& kernel = description.kernels[i];
    KernelSpec& spec = register_kernel(kernel.task_id, kernel.kernel_id, {remote_stub, false},
                                       kernel.device, kernel.file.c_str(), static_cast<int>(kernel.line));
    spec.precision(kernel.precision).accumulates_in(kernel.accumulation).describe(kernel.description);
    spec.allow_operators(kernel.allowed_operators);
    for (const auto& [gate, reason] : kernel.waived_gates) spec.waive_gate(gate, reason);
    for (const DimRestriction& restriction : kernel.supported_dims) spec.supports(restriction);
    // Validated again here: the description comes from untrusted code.
    if (kernel.alignment_bytes != 0) spec.requires_alignment(kernel.alignment_bytes);
    for (const std::string& error : kernel.declaration_errors) spec.add_declaration_error(error);
    library.worker_index[&spec] = i;
  }
  return "";
}

bool runs_in_worker(const KernelSpec& kernel) { return state().worker_index.count(&kernel) != 0; }

std::uint32_t worker_kernel_index(const KernelSpec& kernel) { return state().worker_index.at(&kernel); }

namespace {
// The successor of a lost worker, loading before it is needed (discard_lost_worker).
void start_replacement_worker() {
  LibraryState& library = state();
  if (isolation_mode() != IsolationMode::isolated || library.launch.library.empty() ||
      !library.launch.wrapper.empty() || library.awaiting || !starting_ahead_enabled()) {
    return;
  }
  start_awaiting_worker(library, library.launch.executable);
}
}  // namespace

WorkerProcess& current_worker() {
  LibraryState& library = state();
  if (!library.worker) {
    library.worker = take_awaiting_worker(library.launch);
    if (library.worker) ++library.replacements_taken;
    if (!library.worker) library.worker = std::make_unique<WorkerProcess>(library.launch);
    if (ids_of(library.worker->description()) != library.kernel_ids) {
      library.worker.reset();
      throw WorkerFailure("a fresh worker described different kernels than the first one");
    }
    if (library.keep_replacement) start_replacement_worker();
  }
  return *library.worker;
}

void discard_lost_worker() {
  discard_worker();
  ++state().workers_lost;
  state().keep_replacement = true;
  start_replacement_worker();
}

std::size_t replacements_taken() { return state().replacements_taken; }

std::size_t workers_lost() { return state().workers_lost; }

namespace {
// Whether a GPU machine's judge lends its worker (default on; RKT_GPU_WORKER_LENDING=0 turns
// it off, for comparing the two or if a driver misbehaves with long-lived IPC mappings).
bool gpu_worker_lending() { return on_unless_set_to_zero("RKT_GPU_WORKER_LENDING"); }
}  // namespace

LentWorker lend_worker() {
  LentWorker lent;
  LibraryState& library = state();
  if (isolation_mode() != IsolationMode::isolated || library.launch.library.empty()) return lent;
  // On a GPU machine too (docs/gpu_runs.md, run 18): the worker's CUDA context is kept across
  // judges; the adopt request unmaps the IPC handles of judges that have ended, and a worker
  // whose context was lost is replaced (device_lost) like one that died.
  // RKT_GPU_WORKER_LENDING=0 starts a worker per child there, as before.
  if (device_available(Device::cuda) && !gpu_worker_lending()) return lent;
  if (library.worker && !library.worker->adopted() && !library.worker->running()) discard_worker();
  try {
    if (!library.worker && library.spare && library.spare->running()) {
      library.worker = std::move(library.spare);
    }
    if (library.spare && !library.spare->running()) library.spare.reset();
    if (library.keep_spare && library.lent_worker_discarded && !library.spare) {
      library.spare = WorkerProcess::launch_for_lending(library.launch);
    }
    WorkerProcess& worker = library.worker ? *library.worker : current_worker();
    lent.socket = worker.inheritable_socket();
    if (lent.socket < 0) return lent;
    ::setenv(kLentWorkerSocketVariable, std::to_string(lent.socket).c_str(), 1);
    ::setenv(kLentWorkerPidVariable, std::to_string(worker.pid()).c_str(), 1);
    ::setenv(kLentWorkerLibraryVariable, library.launch.library.c_str(), 1);
  } catch (const WorkerFailure&) {
    // Nothing lent: each child starts its own worker, as without a loan.
  }
  return lent;
}

void keep_spare_worker(bool keep) { state().keep_spare = keep; }

void return_worker(LentWorker& lent, bool reusable) {
  ::unsetenv(kLentWorkerSocketVariable);
  ::unsetenv(kLentWorkerPidVariable);
  ::unsetenv(kLentWorkerLibraryVariable);
  if (lent.socket < 0) return;
  ::close(lent.socket);
  lent.socket = -1;
  if (!reusable) {
    discard_worker();
    state().lent_worker_discarded = true;
  }
}

void discard_worker() {
  if (state().worker && state().worker->adopted()) state().worker->kill_now();
  state().worker.reset();
  release_confirmed();  // A dead worker holds no mapping any more.
}

at::Tensor copy_for_kernel(const at::Tensor& tensor, const KernelSpec& kernel,
                           const BufferPlacement& placement) {
  if (runs_in_worker(kernel)) return shared_copy(tensor, kernel.device(), placement);
  return guarded_copy(tensor, kernel.device(), placement);
}

at::Tensor allocate_for_kernel(at::IntArrayRef sizes, c10::ScalarType dtype, const KernelSpec& kernel,
                               const BufferPlacement& placement) {
  if (runs_in_worker(kernel)) return allocate_shared_tensor(sizes, dtype, kernel.device(), placement);
  return guarded_empty(sizes, dtype, kernel.device(), placement);
}


wire::Request call_request(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                           const std::vector<at::Tensor>& outputs, std::vector<SharedLocationRef>& buffers) {
  wire::Request request;
  request.kind = wire::RequestKind::call;
  request.kernel = worker_kernel_index(kernel);
  wire::ArgumentSet arguments;
  for (const auto* group : {&inputs, &outputs}) {
    for (const at::Tensor& tensor : *group) {
      const SharedLocation location = *locate_shared(tensor);
      buffers.push_back({location.buffer, location.fd});
      (group == &inputs ? arguments.inputs : arguments.outputs).push_back(tensor_reference(tensor, location));
    }
  }
  request.sets.push_back(arguments);
  return request;
}

const WorkerLaunch* worker_launch() {
  const LibraryState& library = state();
  if (isolation_mode() != IsolationMode::isolated || library.launch.library.empty()) return nullptr;
  return &library.launch;
}

namespace {

void trace_worker_call(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                       const std::vector<at::Tensor>& outputs, const wire::Reply& reply,
                       std::chrono::steady_clock::duration preparing,
                       std::chrono::steady_clock::duration asking,
                       std::chrono::steady_clock::duration checking) {
  const auto milliseconds = [](std::chrono::steady_clock::duration span) {
    return std::chrono::duration<double, std::milli>(span).count();
  };
  TracedCall call;
  call.task = kernel.task_id();
  call.kernel = kernel.kernel_id();
  for (const auto* tensors : {&inputs, &outputs}) {
    for (const at::Tensor& tensor : *tensors)
      call.bytes += static_cast<std::int64_t>(tensor.nbytes());
  }
  call.preparing_milliseconds = milliseconds(preparing);
  call.asking_milliseconds = milliseconds(asking);
  call.worker_milliseconds = reply.handling_milliseconds;
  call.mapping_milliseconds = reply.mapping_milliseconds;
  call.stream_milliseconds = reply.stream_milliseconds;
  call.device_milliseconds = reply.device_milliseconds;
  call.checking_milliseconds = milliseconds(checking);
  trace_call(call);
}

}  // namespace

KernelRun invoke_in_worker(const KernelSpec& kernel, const std::vector<at::Tensor>& inputs,
                           const std::vector<OutputSignature>& signatures,
                           const BufferPlacement& output_placement, bool trace_off_stream_work) {
  using Clock = std::chrono::steady_clock;
  const auto call_began = Clock::now();
  KernelRun run;
  std::vector<at::Tensor> outputs;
  for (const OutputSignature& signature : signatures) {
    outputs.push_back(allocate_for_kernel(signature.sizes, signature.dtype, kernel, output_placement));
    poison_output(outputs.back());
  }
  std::vector<at::Tensor> staged;  // inputs as the worker sees them
  for (const at::Tensor& input : inputs) {
    staged.push_back(locate_shared(input) && has_redzones(input) ? input : shared_copy(input, kernel.device()));
  }
  arm_redzones(staged);
  arm_redzones(outputs);
  synchronize_device(kernel.device());  // The poison, the redzones and the staged inputs are in place.
  std::vector<SharedLocationRef> buffers;
  wire::Request request = call_request(kernel, staged, outputs, buffers);
  request.released = take_released_buffers();
  request.trace_off_stream_work = trace_off_stream_work;
  wire::Reply reply;
  double argument_bytes = 0;  // the call's size, for its hang limit (hung_call_limit.h)
  for (const at::Tensor& input : inputs) argument_bytes += static_cast<double>(input.nbytes());
  for (const at::Tensor& output : outputs) argument_bytes += static_cast<double>(output.nbytes());
  const HungCallLimit limit = hung_call_limit(kernel.full_id(), argument_bytes);
  const auto asked = Clock::now();
  try {
    reply = current_worker().ask(request, buffers, limit.seconds);
  } catch (const WorkerFailure& failure) {
    discard_lost_worker();
    if (failure.hung_after_seconds == 0) throw;
    note_worker_hung(kernel.full_id(), failure.hung_after_seconds);
    if (limit.basis.empty()) throw;
    throw WorkerFailure(std::string(failure.what()) + "; the call's limit was " + limit.basis,
                        failure.signal_number, failure.hung_after_seconds);
  }
  const auto answered = Clock::now();
  if (reply.ok && !reply.device_lost) {
    note_call_returned(kernel.full_id(), current_worker().pid(),
                       std::chrono::duration<double>(answered - asked).count(), argument_bytes);
  }
  if (reply.device_lost) discard_lost_worker();
  release_confirmed();
  if (!reply.device_lost) check_redzones(kernel.task_id(), staged, outputs);
  return_staged_inputs(inputs, staged);
  if (call_trace_enabled()) {
    trace_worker_call(kernel, staged, outputs, reply, asked - call_began, answered - asked,
                      Clock::now() - answered);
  }
  if (reply.not_final_at_return) {
    throw_if_not_final(kernel.task_id(), reply.error, reply.not_final_output);
  }
  if (!reply.ok) throw std::runtime_error(reply.error);
  run.outputs = std::move(outputs);
  run.operators = std::move(reply.operators);
  run.stream_milliseconds = reply.stream_milliseconds;
  run.device_milliseconds = reply.device_milliseconds;
  if (reply.off_stream_traced) {
    run.off_stream = OffStreamOverrun{reply.off_stream_milliseconds, reply.off_stream_latest};
  }
  run.off_stream_untraced = reply.off_stream_untraced;
  if (reply.peak_memory_bytes >= 0) {
    run.peak_memory_bytes = reply.peak_memory_bytes;
    if (!kernel.returns_tensors()) {
      for (const at::Tensor& output : run.outputs) run.peak_memory_bytes += static_cast<double>(output.nbytes());
    }
  }
  run.call_start = std::chrono::steady_clock::now() -
                   std::chrono::microseconds(static_cast<long>(reply.stream_milliseconds * 1000));
  return run;
}

namespace {

// Waits for the worker's device, handing back the buffers released since the last request.
wire::Request synchronize_request() {
  wire::Request request;
  request.kind = wire::RequestKind::synchronize;
  request.released = take_released_buffers();
  return request;
}

}  // namespace

void synchronize_kernel_device(const KernelSpec& kernel) {
  synchronize_device(kernel.device());
  if (!runs_in_worker(kernel)) return;
  const wire::Request request = synchronize_request();
  try {
    const wire::Reply reply = current_worker().ask(request, {}, worker_reply_timeout_seconds());
    if (reply.device_lost) {
      discard_lost_worker();
      throw std::runtime_error(reply.error);
    }
  } catch (const WorkerFailure& failure) {
    if (failure.hung_after_seconds > 0)
      note_worker_hung(kernel.full_id(), failure.hung_after_seconds);
    discard_lost_worker();
    throw;
  }
  release_confirmed();
}

void return_released_buffers_now() {
  LibraryState& library = state();
  if (!library.worker) {
    release_confirmed();  // No worker maps them (one lost earlier was forgotten with its maps).
    return;
  }
  const wire::Request request = synchronize_request();
  try {
    const wire::Reply reply = library.worker->ask(request, {}, worker_reply_timeout_seconds());
    if (reply.device_lost) discard_worker();
  } catch (const WorkerFailure&) {
    discard_worker();  // The next case's call starts a fresh one, and says why if it fails too.
  }
  release_confirmed();
}

}  // namespace rkt
