// rkt-worker: the untrusted side of the trust boundary. The judge starts it with a clean
// environment and one socket (descriptor 3); it loads one kernel library (named on its command
// line, or by the first message when it was started before its judge knew it), readies the
// devices, enters its sandbox and then serves requests. It links no judge code, and no LibTorch:
// LibTorch comes in only with a library that needs it, through the plugin of kernel_calls.h.
#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "framework/runtime/l2_persistence.h"
#include "framework/wire/worker_protocol.h"
#include "framework/worker/abort_report.h"
#include "framework/worker/call_steps.h"
#include "framework/worker/kernel_calls.h"
#include "framework/worker/needed_libraries.h"
#include "framework/worker/sandbox.h"
#include "framework/worker/sanitizer_probe.h"
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

// Whether LibTorch is loaded in this process (by the kernel library, its dependencies or the
// plugin): its core library, libc10, answers a no-load open.
bool libtorch_in_process() {
  void* c10 = dlopen("libc10.so", RTLD_NOW | RTLD_NOLOAD);
  if (c10 == nullptr) return false;
  dlclose(c10);
  return true;
}

// The LibTorch plugin beside this executable, loaded with its symbols global (so that a kernel
// library compiled against LibTorch's headers but not linked to it resolves against them), or
// nullptr with `error` saying why.
rkt::KernelCalls* load_torch_kernel_calls(std::string& error) {
  char executable[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
  if (length <= 0) {
    error = "cannot find rkt-worker's own path (/proc/self/exe)";
    return nullptr;
  }
  std::string path(executable, static_cast<std::size_t>(length));
  path = path.substr(0, path.rfind('/') + 1) + rkt::kTorchKernelCallsPlugin;
  void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (plugin == nullptr) {
    const char* why = dlerror();
    error = "cannot load LibTorch's calls (" + path + "): " + (why ? why : "?");
    return nullptr;
  }
  using Factory = rkt::KernelCalls* (*)();
  const auto factory = reinterpret_cast<Factory>(dlsym(plugin, rkt::kTorchKernelCallsSymbol));
  if (factory == nullptr) {
    error = path + " has no " + rkt::kTorchKernelCallsSymbol;
    return nullptr;
  }
  return factory();
}

// Whether `kernels` need LibTorch's calls: LibTorch came in with the library, or a kernel
// returns tensors (tensor form).
bool needs_libtorch(const std::vector<rkt::KernelSpec*>& kernels) {
  if (libtorch_in_process()) return true;
  for (const rkt::KernelSpec* kernel : kernels) {
    if (kernel->returns_tensors()) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  rkt::install_abort_report();
  int socket = -1;
  std::string library;
  bool library_from_socket = false;  // started ahead: the library's path is the first message
  rkt::SandboxOptions sandbox;
  bool with_libtorch = false;  // LibTorch's calls whatever the library needs (RKT_LIGHT_WORKER=0)
  bool own_device_copies = false;  // the sanitizer cases' worker (own_device_copies.h)
  // The judge's check of a compute-sanitizer tool runs this under the tool (sanitizer_probe.h).
  if (argc == 3 && std::string(argv[1]) == rkt::wire::kSanitizerProbeArgument) {
    return rkt::run_sanitizer_probe(argv[2]);
  }
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--socket" && i + 1 < argc) socket = std::atoi(argv[++i]);
    else if (arg == "--library" && i + 1 < argc) library = argv[++i];
    else if (arg == "--library-from-socket") library_from_socket = true;
    else if (arg == "--no-chroot") sandbox.change_root = false;
    else if (arg == "--no-seccomp")
      sandbox.seccomp = false;
    else if (arg == "--name-refused-calls")
      sandbox.name_refused_calls = true;
    else if (arg == "--with-libtorch")
      with_libtorch = true;
    else if (arg == "--own-device-copies")
      own_device_copies = true;
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
    // Started before its judge knew the library: the exec is done (LibTorch is not loaded: the
    // judges that start workers ahead, rkt eval's and rkt serve's, judge libraries built from
    // the light headers); the library comes now, and everything after this is as for a worker
    // started with --library.
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
  // A library that links LibTorch gets LibTorch's calls first, its symbols global, and is opened
  // after them (needed_libraries.h: run 42's workers died opening it first on the GPU).
  if (!with_libtorch && rkt::links_libtorch(library)) with_libtorch = true;
  rkt::WorkerState state;
  state.own_device_copies = own_device_copies;
  rkt::KernelCalls* torch_calls = nullptr;
  std::string torch_error;
  rkt::set_worker_step("loading LibTorch's calls (the plugin)");
  if (with_libtorch) torch_calls = load_torch_kernel_calls(torch_error);
  rkt::set_worker_step("loading the kernel library (and what it links: LibTorch, CUDA)");
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string load_failure = handle == nullptr ? dlerror() : "";
  if (handle == nullptr && torch_calls == nullptr &&
      load_failure.find("undefined symbol") != std::string::npos) {
    // A library compiled against LibTorch's headers (a tensor-form kernel) without linking it
    // finds its symbols in LibTorch loaded globally.
    torch_calls = load_torch_kernel_calls(torch_error);
    if (torch_calls != nullptr) {
      handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) load_failure = dlerror();
    }
  }
  if (handle == nullptr) {
    state.description.load_error = "could not load the kernel library: " + load_failure;
  } else if (auto list = reinterpret_cast<KernelListFunction>(dlsym(handle, "rkt_kernel_library_kernels"))) {
    list(&state.kernels);
    for (const rkt::KernelSpec* kernel : state.kernels) {
      state.description.kernels.push_back(describe(*kernel));
    }
  } else {
    state.description.load_error = library + " is not a kernel library (no rkt_kernel_library_kernels)";
  }
  rkt::set_worker_step("loading LibTorch's calls (the plugin) after the library");
  if (torch_calls == nullptr && needs_libtorch(state.kernels)) {
    torch_calls = load_torch_kernel_calls(torch_error);
    if (torch_calls == nullptr && state.description.load_error.empty()) {
      state.description.load_error = "the kernel library needs LibTorch, but " + torch_error;
      state.kernels.clear();
      state.description.kernels.clear();
    }
  }
  rkt::KernelCalls& calls = torch_calls != nullptr ? *torch_calls : rkt::light_kernel_calls();
  rkt::set_worker_step("readying the devices (CUDA context, memory pool, CUPTI)");
  try {
    calls.prepare_devices(state.kernels);
    // Before any call: what "the kernel set L2 persistence" is judged against (l2_persistence.h).
    for (const rkt::KernelSpec* kernel : state.kernels) {
      if (kernel->device() == rkt::Device::cuda) {
        rkt::remember_l2_carve_out_at_start();
        break;
      }
    }
  } catch (const std::exception& error) {
    std::cerr << "rkt-worker: readying the devices failed: " << error.what() << "\n";
  }
  rkt::set_worker_step("entering the sandbox");
  state.description.sandbox = rkt::enter_worker_sandbox(sandbox);
  rkt::set_worker_step("checking the devices in the sandbox");
  state.description.sandbox += rkt::check_devices_in_sandbox(state.kernels);
  // Nothing can be loaded once the sandbox is in place; a library that loaded LibTorch behind the
  // check above (from a thread of its own) would run ATen operators no one observes.
  state.description.libtorch_loaded = libtorch_in_process();
  if (state.description.libtorch_loaded && torch_calls == nullptr) {
    state.description.load_error = "the kernel library loaded LibTorch after it was loaded itself";
    state.kernels.clear();
    state.description.kernels.clear();
  }
  rkt::set_worker_step("serving requests");
  try {
    return rkt::serve_worker_requests(socket, state, calls);
  } catch (const rkt::wire::WireError& error) {
    std::cerr << "rkt-worker: protocol error: " << error.what() << "\n";
    return 3;
  }
}
