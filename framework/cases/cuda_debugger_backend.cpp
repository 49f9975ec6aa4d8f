#include "framework/cases/cuda_debugger_backend.h"

#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

namespace rkt {
namespace {

// The folder of the first loaded object whose file name starts with libcuda.so; "" when none.
std::string loaded_driver_directory() {
  std::string directory;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* found) {
        const std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::size_t slash = path.rfind('/');
        if (slash == std::string::npos || path.compare(slash + 1, 10, "libcuda.so") != 0) return 0;
        *static_cast<std::string*>(found) = path.substr(0, slash);
        return 1;
      },
      &directory);
  return directory;
}

}  // namespace

CudaDebuggerBackend find_cuda_debugger_backend(const std::vector<std::string>& directories) {
  CudaDebuggerBackend backend;
  for (const std::string& directory : directories) {
    backend.looked_in.push_back(directory);
    const std::string candidate = directory + "/" + kCudaDebuggerBackendFile;
    if (::access(candidate.c_str(), F_OK) == 0) {
      backend.path = candidate;
      break;
    }
  }
  return backend;
}

std::vector<std::string> cuda_debugger_backend_directories() {
  std::vector<std::string> directories;
  const auto add = [&directories](const std::string& directory) {
    if (directory.empty()) return;
    for (const std::string& known : directories) {
      if (known == directory) return;
    }
    directories.push_back(directory);
  };
  add(loaded_driver_directory());
  if (const char* search = std::getenv("LD_LIBRARY_PATH")) {
    std::istringstream parts(search);
    for (std::string part; std::getline(parts, part, ':');) add(part);
  }
  for (const char* system :
       {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    add(system);
  }
  return directories;
}

std::string describe_cuda_debugger_backend(const CudaDebuggerBackend& backend) {
  if (!backend.path.empty()) return "the CUDA debugger back-end is at " + backend.path;
  std::string folders;
  for (const std::string& directory : backend.looked_in)
    folders += (folders.empty() ? "" : ", ") + directory;
  return std::string("the CUDA debugger back-end (") + kCudaDebuggerBackendFile +
         "), which compute-sanitizer needs to stop a kernel at an access it reports, is in none "
         "of " +
         folders +
         " (on the machines of runs 22-44, without it, memcheck named no read past a buffer)";
}

}  // namespace rkt
