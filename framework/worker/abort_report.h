// What a worker that dies by abort says on its way out. A worker that aborts before its first
// reply leaves the judge only "killed by signal 6"; on the GPU (run 42) every worker of a library
// linked to LibTorch did so, printing nothing but "terminate called without an active exception".
// With the report installed, an abort or std::terminate prints to the worker's standard error
// what the worker was doing (its startup step, or serving requests), the exception in flight if
// any, and the call stack (library and offset of each frame), then dies as before.
#pragma once

namespace rkt {

/// Installs the std::terminate handler and the SIGABRT handler, and loads what printing a call
/// stack needs while files can still be opened (before the sandbox).
void install_abort_report();

/// Names the worker's current step in the report, e.g. "loading the kernel library". `step`
/// must outlive the process (a string literal).
void set_worker_step(const char* step);

}  // namespace rkt
