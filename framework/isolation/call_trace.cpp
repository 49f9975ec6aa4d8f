#include "framework/isolation/call_trace.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace rkt {
namespace {

const char* trace_path() {
  const char* setting = std::getenv(kCallTraceVariable);
  return setting != nullptr && *setting != '\0' ? setting : nullptr;
}

}  // namespace

bool call_trace_enabled() { return trace_path() != nullptr; }

void trace_call(const TracedCall& call) {
  const char* path = trace_path();
  if (path == nullptr) return;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::FILE* file = std::fopen(path, "a");
  if (file == nullptr) return;
  if (std::ftell(file) == 0) {
    std::fputs(
        "process\tat_ms\ttask\tkernel\tbytes\tpreparing_ms\tasking_ms\tworker_ms\tmapping_"
        "ms\tstream_ms\t"
        "device_ms\tchecking_ms\n",
        file);
  }
  static const auto first_call = std::chrono::steady_clock::now();
  const double at =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - first_call)
          .count();
  std::fprintf(file, "%d\t%.1f\t%s\t%s\t%lld\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n",
               static_cast<int>(::getpid()), at, call.task.c_str(), call.kernel.c_str(),
               static_cast<long long>(call.bytes), call.preparing_milliseconds,
               call.asking_milliseconds, call.worker_milliseconds, call.mapping_milliseconds,
               call.stream_milliseconds, call.device_milliseconds, call.checking_milliseconds);
  std::fclose(file);
}

}  // namespace rkt
