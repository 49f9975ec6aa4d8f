// Where the CUDA debugger back-end (libcudadebugger.so.1, installed with the driver) is, if
// anywhere. compute-sanitizer loads it to stop a kernel at an access it reports; on the device
// machines of runs 22-44 the tool printed "Could not find CUDA Debugger back-end", and memcheck
// never named a read past a buffer: the kernel spun on. The sanitizer cases say which it was when
// a sanitized call goes silent (framework/cases/sanitizer_cases.cpp).
#pragma once

#include <string>
#include <vector>

namespace rkt {

inline constexpr const char* kCudaDebuggerBackendFile = "libcudadebugger.so.1";

struct CudaDebuggerBackend {
  std::string path;                    ///< where it is; "" when in none of `looked_in`
  std::vector<std::string> looked_in;  ///< the folders searched, in order
};

/// The first of `directories` that holds kCudaDebuggerBackendFile.
CudaDebuggerBackend find_cuda_debugger_backend(const std::vector<std::string>& directories);

/// The folders the loader would search for it: the folder of the driver's libcuda.so loaded in
/// this process (if any), LD_LIBRARY_PATH's, then the system's library folders.
std::vector<std::string> cuda_debugger_backend_directories();

/// One clause for a message: "the CUDA debugger back-end ... is at P" or "... is in none of ...".
std::string describe_cuda_debugger_backend(const CudaDebuggerBackend& backend);

}  // namespace rkt
