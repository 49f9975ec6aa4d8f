// rkt-worker: the untrusted side of the trust boundary. The judge starts it with a clean
// environment and one socket (descriptor 3); it loads one kernel library (named on its command
// line, or by the first message when it was started before its judge knew it), readies the
// devices, enters its sandbox and then serves requests. It links no judge code.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "framework/runtime/device_support.h"
#include "framework/runtime/off_stream_work_trace.h"
#include "framework/wire/worker_protocol.h"
#include "framework/worker/sandbox.h"
#include "framework/worker/worker_server.h"

namespace {

// The one symbol a kernel library exports (framework/worker/kernel_library_entry.cpp).
using KernelListFunction = void (*)(std::vector<rkt::KernelSpec*>*);

rkt::wire::KernelDescription describe(const rkt::KernelSpec& kernel) {
  rkt::wire::KernelDescription description;
  description.task_id = kernel.task_id();
  description.kernel_id = kernel.kernel_id();
  description.description = kernel.description();
  description.file = kernel.file();
  description.line = kernel.line();
  description.device = kernel.device();
  description.precision = kernel.precision();
  description.accumulation = kernel.accumulation();
  description.returns_tensors = kernel.returns_tensors();
  description.waived_gates = kernel.waived_gates();
  description.allowed_operators = kernel.allowed_operators();
  description.supported_dims = kernel.supported_dims();
  description.alignment_bytes = kernel.alignment_bytes();
  description.declaration_errors = kernel.declaration_errors();
  return description;
}

}  // namespace

int main(int argc, char** argv) {
  int socket = -1;
  std::string library;
  bool library_from_socket = false;  // started ahead: the library's path is the first message
  rkt::SandboxOptions sandbox;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--socket" && i + 1 < argc) socket = std::atoi(argv[++i]);
    else if (arg == "--library" && i + 1 < argc) library = argv[++i];
    else if (arg == "--library-from-socket") library_from_socket = true;
    else if (arg == "--no-chroot") sandbox.change_root = false;
    else {
      std::cerr << "rkt-worker: unknown argument '" << arg << "' (started by rkt, not by hand)\n";
      return 2;
    }
  }
  if (socket < 0 || library.empty() == !library_from_socket) {
    std::cerr << "rkt-worker: needs --socket FD and --library PATH or --library-from-socket (it is started by "
                 "rkt)\n";
    return 2;
  }
  if (library_from_socket) {
    // Started before its judge knew the library: the exec and LibTorch's loading are done; the
    // library comes now, and everything after this is as for a worker started with --library.
    rkt::wire::Datagram message;
    try {
      if (rkt::wire::receive_datagram(socket, -1, message) != rkt::wire::ReceiveStatus::received) return 0;
    } catch (const rkt::wire::WireError& error) {
      std::cerr << "rkt-worker: protocol error: " << error.what() << "\n";
      return 3;
    }
    const std::string prefix = rkt::wire::kLibraryMessagePrefix;
    if (message.bytes.compare(0, prefix.size(), prefix) != 0 || !message.fds.empty()) {
      std::cerr << "rkt-worker: protocol error: the first message is not a kernel library's path\n";
      return 3;
    }
    library = message.bytes.substr(prefix.size());
  }
  rkt::WorkerState state;
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    state.description.load_error = std::string("could not load the kernel library: ") + dlerror();
  } else if (auto list = reinterpret_cast<KernelListFunction>(dlsym(handle, "rkt_kernel_library_kernels"))) {
    list(&state.kernels);
    for (const rkt::KernelSpec* kernel : state.kernels) {
      state.description.kernels.push_back(describe(*kernel));
    }
  } else {
    state.description.load_error = library + " is not a kernel library (no rkt_kernel_library_kernels)";
  }
  try {
    rkt::prepare_devices(state.kernels);
  } catch (const std::exception& error) {
    std::cerr << "rkt-worker: readying the devices failed: " << error.what() << "\n";
  }
  // CUPTI reads /sys as it starts, which the sandbox hides: the escaped-work gate's trace
  // (framework/runtime/off_stream_work_trace.h) is started once here. A failure is told in each
  // traced call's reply, and the gate then reads the host's clock.
  for (const rkt::KernelSpec* kernel : state.kernels) {
    if (kernel->device() != rkt::Device::cuda || !rkt::device_available(rkt::Device::cuda)) continue;
    if (const std::string why_not = rkt::prepare_off_stream_tracing(); !why_not.empty()) {
      std::cerr << "rkt-worker: device work cannot be traced: " << why_not << "\n";
    }
    break;
  }
  state.description.sandbox = rkt::enter_worker_sandbox(sandbox);
  state.description.sandbox += rkt::check_devices_in_sandbox(state.kernels);
  try {
    return rkt::serve_worker_requests(socket, state);
  } catch (const rkt::wire::WireError& error) {
    std::cerr << "rkt-worker: protocol error: " << error.what() << "\n";
    return 3;
  }
}
