// A kernel library whose loading ends the process: a static initializer calls std::terminate with
// no exception in flight, as a library did on the GPU in run 42 (docs/gpu_runs.md). The worker's
// abort report (framework/worker/abort_report.h) must say which step it was in and where
// (tests/unit/worker_abort_report_test.cpp).
#include <exception>

namespace {

[[noreturn]] bool terminate_now() { std::terminate(); }

[[maybe_unused]] const bool terminated = terminate_now();

}  // namespace
