#include "framework/supervision/gpu_pinning.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace rkt {

std::string gpu_of_ctest_allocation(const std::string& allocation) {
  // ctest writes "id:<id>,slots:<n>", several separated by ';' when a group takes more.
  std::istringstream parts(allocation.substr(0, allocation.find(';')));
  std::string part;
  while (std::getline(parts, part, ',')) {
    if (part.rfind("id:", 0) == 0 && part.size() > 3) return part.substr(3);
  }
  return "";
}

namespace {
long long epoch_milliseconds() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}
}  // namespace

void log_gpu_pinning(const std::string& pinning) {
  if (pinning.empty()) return;
  std::fprintf(stderr, "rkt: %s; gpu %s taken at %lld\n", pinning.c_str(),
               std::getenv("CUDA_VISIBLE_DEVICES"), epoch_milliseconds());
  std::atexit([] {
    std::fprintf(stderr, "rkt: gpu %s released at %lld\n", std::getenv("CUDA_VISIBLE_DEVICES"),
                 epoch_milliseconds());
  });
}

std::string pin_gpu_from_ctest_resources() {
  const char* groups = std::getenv("CTEST_RESOURCE_GROUP_COUNT");
  if (groups == nullptr || std::atoi(groups) < 1) return "";
  const char* allocation = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (allocation == nullptr) return "";
  const std::string gpu = gpu_of_ctest_allocation(allocation);
  if (gpu.empty()) return "";
  setenv("CUDA_VISIBLE_DEVICES", gpu.c_str(), 1);
  return "ctest allocated GPU " + gpu + ": CUDA_VISIBLE_DEVICES=" + gpu;
}

}  // namespace rkt
